"""Creating campaigns: the service, the id-list and rubric formats, and manage.py create_campaign."""

import json
import random
from collections import Counter

import pytest
from django.core.management import CommandError, call_command

from core.models import Campaign, CampaignInstance, Instance, Item, ItemOutput, System, SystemOutput, default_rubric
from core.problems import FormatError
from evalapp.formats.instance_list import read_instance_list
from evalapp.formats.rubric import read_rubric
from evalapp.services.campaigns import CampaignError, campaign_summary, create_campaign
from tests.engine.builders import build_dataset

pytestmark = pytest.mark.django_db


def sampled_ids(campaign):
    return list(
        CampaignInstance.objects.filter(campaign=campaign)
        .order_by("position")
        .values_list("instance__external_id", flat=True)
    )


def refusal(**kwargs):
    before = Campaign.objects.count()
    with pytest.raises(CampaignError) as refused:
        create_campaign(**kwargs)
    assert Campaign.objects.count() == before
    return refused.value


@pytest.fixture
def dataset():
    return build_dataset(instances=20, systems=("alpha", "beta", "gamma"))


# --- sampling ------------------------------------------------------------------------------


def test_seeded_sample_is_reproducible_and_stored(dataset):
    first = create_campaign(dataset, "first", sample=5, seed=2020)
    again = create_campaign(dataset, "again", sample=5, seed=2020)
    other = create_campaign(dataset, "other", sample=5, seed=7)
    assert (first.seed, first.sample_size) == (2020, 5)
    assert sampled_ids(first) == sampled_ids(again) != sampled_ids(other)
    in_file_order = list(
        Instance.objects.filter(dataset=dataset).order_by("position").values_list("external_id", flat=True)
    )
    assert sampled_ids(first) == [in_file_order[i] for i in random.Random(2020).sample(range(20), 5)]


def test_a_seed_is_drawn_and_stored_when_none_is_given(dataset):
    campaign = create_campaign(dataset, "drawn", sample=5)
    assert campaign.seed is not None
    assert sampled_ids(create_campaign(dataset, "redrawn", sample=5, seed=campaign.seed)) == sampled_ids(campaign)


def test_without_sample_or_list_every_instance_is_in(dataset):
    campaign = create_campaign(dataset, "all")
    assert sampled_ids(campaign) == [str(number) for number in range(1, 21)]
    assert Item.objects.filter(campaign=campaign).count() == 60


def test_explicit_instance_list_keeps_its_order(dataset, tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text("id\n7\n\n3\r\n12\n")
    listed = read_instance_list(path.read_bytes(), str(path))
    assert [line for line, _ in listed.entries] == [2, 4, 5]
    campaign = create_campaign(dataset, "listed", instance_ids=listed)
    assert sampled_ids(campaign) == ["7", "3", "12"] and campaign.sample_size == 3


def test_unknown_ids_are_reported_with_their_lines(dataset):
    listed = read_instance_list(b"3\nnope\n5\nnada\n", "ids.txt")
    error = refusal(dataset=dataset, name="bad", instance_ids=listed)
    assert [str(problem) for problem in error.problems] == [
        "ids.txt, line 2, column 1: unknown instance id 'nope' (not in dataset 'ds')",
        "ids.txt, line 4, column 1: unknown instance id 'nada' (not in dataset 'ds')",
    ]
    assert error.fields == ["instance_ids", "instance_ids"]


@pytest.mark.parametrize(
    "data, message",
    [
        (b"1\n2\n1\n", "ids.txt, line 3, column 1: id '1' repeats line 1"),
        (b"1,2\n", "ids.txt, line 1, column 2: expected one id per line, found 2 fields"),
        (b"\n\n", "ids.txt: the file lists no instance ids"),
        (b"\x00\x01", "ids.txt: file looks binary"),
        (b"1\n\xff\n", "ids.txt, line 2, column 1: not valid UTF-8"),
    ],
)
def test_malformed_id_lists_are_refused_where_they_are_wrong(data, message):
    with pytest.raises(FormatError) as refused:
        read_instance_list(data, "ids.txt")
    assert str(refused.value).startswith(message)


@pytest.mark.parametrize(
    "arguments, field, message",
    [
        ({"sample": 5, "instance_ids": ["1"]}, "instance_ids", "either a sample size or an instance list"),
        ({"sample": 21}, "sample", "cannot sample 21 instances: dataset 'ds' has 20"),
        ({"sample": 0}, "sample", "positive whole number"),
        ({"seed": -1}, "seed", "the seed must be a whole number"),
        ({"raters_per_item": 0}, "raters_per_item", "from 1 to 50"),
        ({"human_reference": 4}, "human_reference", "reference 1, 2 or 3"),
        ({"lease_seconds": 10}, "lease_seconds", "from 60 seconds to a week"),
        ({"lease_seconds": 8 * 24 * 3600}, "lease_seconds", "from 60 seconds to a week"),
        ({"name": "a\x00b"}, "name", "NUL character"),
        ({"instructions": "read\x00me"}, "instructions", "NUL character"),
        ({"rubric": [{"score": s, "label": "L\x00"} for s in range(4)]}, "rubric", "NUL character"),
        ({"control_rate": 1.5}, "control_rate", "from 0 to 1"),
        ({"control_rate": float("nan")}, "control_rate", "from 0 to 1"),
        ({"rubric": [{"score": 0, "label": "x"}]}, "rubric", "missing: 1, 2, 3"),
        ({"systems": ["alpha", "zeta"]}, "systems", "no system 'zeta' (systems: alpha, beta, gamma)"),
        ({"systems": ["alpha", "alpha"]}, "systems", "listed twice"),
        ({"systems": ["Human"]}, "systems", "chosen with human_reference"),
        ({"name": ""}, "name", "needs a name"),
    ],
)
def test_bad_settings_are_refused_naming_the_parameter(dataset, arguments, field, message):
    error = refusal(dataset=dataset, **{"name": "bad", **arguments})
    assert field in error.fields
    assert any(message in problem.message for problem in error.problems)
    assert not Item.objects.exists()


def test_a_taken_name_is_refused(dataset):
    create_campaign(dataset, "taken")
    error = refusal(dataset=dataset, name="taken")
    assert error.fields == ["name"] and "exists already" in error.problems[0].message


# --- systems -------------------------------------------------------------------------------


def test_default_systems_are_those_covering_the_sample(dataset):
    partial = System.objects.create(dataset=dataset, name="partial")
    SystemOutput.objects.create(
        system=partial, instance=Instance.objects.get(dataset=dataset, external_id="1"), text="only one"
    )
    campaign = create_campaign(dataset, "default", sample=10, seed=1)
    assert sorted(campaign.systems.values_list("name", flat=True)) == ["alpha", "beta", "gamma"]
    assert campaign_summary(campaign)["systems_not_included"] == ["partial"]
    only_one = create_campaign(dataset, "one", instance_ids=["1"])  # partial covers instance 1
    assert "partial" in only_one.systems.values_list("name", flat=True)


def test_a_named_system_missing_outputs_is_a_clear_error(dataset):
    partial = System.objects.create(dataset=dataset, name="partial")
    SystemOutput.objects.create(
        system=partial, instance=Instance.objects.get(dataset=dataset, external_id="1"), text="only one"
    )
    error = refusal(dataset=dataset, name="bad", instance_ids=["1", "2", "3"], systems=["alpha", "partial"])
    assert str(error) == "systems: system 'partial' has no output for 2 of the 3 campaign instances (ids 2, 3)"


def test_no_complete_system_and_no_human_is_refused():
    dataset = build_dataset(instances=3, systems=())
    error = refusal(dataset=dataset, name="empty")
    assert error.fields == ["systems"] and "no system has an output" in error.problems[0].message


def test_human_pseudo_system_is_reference_k_and_is_reused(dataset):
    campaign = create_campaign(dataset, "human", sample=4, seed=1, human_reference=2, systems=["alpha"])
    human = System.objects.get(dataset=dataset, is_human=True)
    assert (human.name, human.human_reference, campaign.human_reference) == ("Human", 2, 2)
    assert set(campaign.systems.all()) == {human, System.objects.get(name="alpha")}
    assert SystemOutput.objects.filter(system=human).count() == 20  # every instance of the dataset
    output = SystemOutput.objects.get(system=human, instance__external_id="3")
    assert output.text == "Reference 2 of statement 3."
    create_campaign(dataset, "human again", sample=4, seed=2, human_reference=2)
    assert System.objects.filter(dataset=dataset, is_human=True).count() == 1
    create_campaign(dataset, "human 1", sample=4, seed=2, human_reference=1)
    assert System.objects.filter(dataset=dataset, is_human=True).count() == 2


def test_human_reference_missing_for_a_sampled_instance_is_refused():
    dataset = build_dataset(instances=3, systems=("alpha",), references=1)
    error = refusal(dataset=dataset, name="no ref", human_reference=3)
    assert error.fields == ["human_reference"] and "3 campaign instances have no reference 3" in str(error)


# --- items ---------------------------------------------------------------------------------


def test_one_item_per_instance_and_system_with_the_output_text(dataset):
    campaign = create_campaign(dataset, "items", sample=6, seed=3, raters_per_item=3)
    items = Item.objects.filter(campaign=campaign)
    assert items.count() == 18 and set(items.values_list("needed", flat=True)) == {3}
    for link in ItemOutput.objects.filter(campaign=campaign).select_related("item", "output"):
        assert link.item.text == link.output.text and link.item.instance_id == link.output.instance_id
    assert ItemOutput.objects.filter(campaign=campaign).count() == 18
    keys = list(items.values_list("shuffle_key", flat=True))
    assert len(set(keys)) == len(keys)


def test_identical_outputs_share_one_item_when_asked():
    same = {"alpha": "Elephants are big.", "beta": "  Elephants   are big. ", "gamma": "elephants are big."}
    dataset = build_dataset(instances=2, systems=tuple(same), outputs=lambda name, index: same[name])
    shared = create_campaign(dataset, "shared", share_identical_outputs=True)
    assert shared.share_identical_outputs
    assert Item.objects.filter(campaign=shared).count() == 4  # alpha+beta shared, gamma differs in case
    groups = Counter(ItemOutput.objects.filter(campaign=shared).values_list("item", flat=True))
    assert sorted(groups.values()) == [1, 1, 2, 2]
    assert campaign_summary(shared)["outputs_sharing_an_item"] == 2
    separate = create_campaign(dataset, "separate")
    assert Item.objects.filter(campaign=separate).count() == 6


def test_control_items_at_the_rate_with_rotating_kinds(dataset):
    campaign = create_campaign(dataset, "controls", sample=10, seed=5, control_rate=0.1, human_reference=1)
    controls = Item.objects.filter(campaign=campaign, kind=Item.Kind.CONTROL)
    assert controls.count() == 4  # round(0.1 * 40 system items)
    assert not ItemOutput.objects.filter(item__in=controls).exists()
    kinds = Counter(controls.values_list("control_kind", flat=True))
    assert kinds == {"other_reason": 2, "statement": 1, "reference": 1}
    for item in controls.select_related("instance"):
        if item.control_kind == "statement":
            assert (item.text, item.expected_min, item.expected_max) == (item.instance.false_sent, 0, 1)
        elif item.control_kind == "reference":
            assert item.text.endswith(f"of statement {item.instance.external_id}.")
            assert (item.expected_min, item.expected_max) == (2, 3) and not item.text.startswith("Reference 1 ")
        else:
            assert not item.text.endswith(f"of statement {item.instance.external_id}.")
            assert (item.expected_min, item.expected_max) == (0, 0)
    again = create_campaign(dataset, "controls again", sample=10, seed=5, control_rate=0.1, human_reference=1)
    assert list(controls.order_by("pk").values_list("text", flat=True)) == list(
        Item.objects.filter(campaign=again, kind="control").order_by("pk").values_list("text", flat=True)
    )


def test_controls_without_references_are_refused_before_anything_is_written():
    dataset = build_dataset(instances=4, systems=("alpha",), references=0)
    error = refusal(dataset=dataset, name="no refs", control_rate=0.5)
    assert error.fields == ["control_rate"] and "references" in str(error)
    assert not Item.objects.exists() and not System.objects.filter(is_human=True).exists()


def test_creation_is_atomic(dataset, monkeypatch):
    from evalapp.services import campaigns

    def broken(*args):
        raise RuntimeError("disk full")

    monkeypatch.setattr(campaigns, "_create_items", broken)
    with pytest.raises(RuntimeError):
        create_campaign(dataset, "atomic", human_reference=1)
    assert not Campaign.objects.exists() and not CampaignInstance.objects.exists()
    assert not System.objects.filter(is_human=True).exists()


# --- rubric --------------------------------------------------------------------------------


def test_rubric_defaults_to_table_1_and_can_be_edited(dataset):
    assert create_campaign(dataset, "default rubric").rubric == default_rubric()
    custom = [{"score": score, "label": f"  L{score} ", "description": f"D{score}"} for score in (3, 2, 1, 0)]
    campaign = create_campaign(dataset, "custom", rubric=custom)
    assert campaign.rubric == [{"score": s, "label": f"L{s}", "description": f"D{s}"} for s in range(4)]


@pytest.mark.parametrize(
    "text, message",
    [
        ('[{"score": 0, "label": "a"', "rubric.json, line 1, column 27: not valid JSON"),
        ('{"score": 0}', "rubric.json: the rubric must be a list"),
        ('[{"score": 0, "label": "a", "lable": "b"}]', "rubric.json: entry 1: unknown key(s) lable"),
        ('[{"score": 4, "label": "a"}]', "rubric.json: entry 1: score must be one of 0, 1, 2, 3"),
        ('[{"score": 0, "label": ""}]', "rubric.json: entry 1: a label is required"),
    ],
)
def test_malformed_rubric_files_are_refused(text, message):
    with pytest.raises(FormatError) as refused:
        read_rubric(text.encode(), "rubric.json")
    assert str(refused.value).startswith(message)


# --- the command ---------------------------------------------------------------------------


def test_command_creates_the_campaign_and_prints_json(dataset, tmp_path, capsys):
    rubric = tmp_path / "rubric.json"
    rubric.write_text(json.dumps([{"score": s, "label": f"L{s}", "description": ""} for s in range(4)]))
    call_command(
        "create_campaign",
        "--dataset",
        "ds",
        "--name",
        "cli",
        "--sample",
        "8",
        "--seed",
        "2020",
        "--raters-per-item",
        "2",
        "--systems",
        "alpha,beta",
        "--human-reference",
        "1",
        "--lease-minutes",
        "10",
        "--control-rate",
        "0.25",
        "--share-identical",
        "--rubric",
        str(rubric),
        "--json",
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["campaign"] == "cli" and summary["seed"] == 2020 and summary["sample_size"] == 8
    assert summary["systems"] == ["Human", "alpha", "beta"] and summary["systems_not_included"] == ["gamma"]
    assert (summary["items"], summary["control_items"], summary["ratings_expected"]) == (24, 6, 48)
    assert summary["lease_seconds"] == 600 and summary["shared_identical_outputs"] is True
    assert summary["rubric"][0]["label"] == "L0"
    campaign = Campaign.objects.get(name="cli")
    assert summary["instances"] == sampled_ids(campaign)


def test_command_prints_a_human_summary(dataset, capsys):
    call_command("create_campaign", "--dataset", "ds", "--name", "plain", "--sample", "5", "--seed", "1")
    out = capsys.readouterr().out
    assert "Created campaign 'plain' on dataset 'ds': 5 instances (seed 1) x 3 systems = 15 items" in out
    assert "45 ratings to collect" in out


def test_command_errors_name_the_option_or_the_file_line(dataset, tmp_path):
    with pytest.raises(CommandError) as refused:
        call_command("create_campaign", "--dataset", "ds", "--name", "x", "--sample", "99", "--lease-minutes", "0")
    assert "--sample: cannot sample 99 instances" in str(refused.value)
    assert "--lease-minutes: a lease must last from 60 seconds to a week" in str(refused.value)
    ids = tmp_path / "ids.txt"
    ids.write_text("1\n404\n")
    with pytest.raises(CommandError) as refused:
        call_command("create_campaign", "--dataset", "ds", "--name", "x", "--instances", str(ids))
    assert f"{ids}, line 2, column 1: unknown instance id '404'" in str(refused.value)
    with pytest.raises(CommandError, match="cannot read file"):
        call_command("create_campaign", "--dataset", "ds", "--name", "x", "--instances", str(tmp_path / "missing"))
    with pytest.raises(CommandError, match="no dataset named 'nope'"):
        call_command("create_campaign", "--dataset", "nope", "--name", "x")
    assert not Campaign.objects.exists()


def test_command_refuses_sample_and_list_together(dataset):
    with pytest.raises(CommandError, match="not allowed with argument"):
        call_command("create_campaign", "--dataset", "ds", "--name", "x", "--sample", "3", "--instances", "f")


@pytest.mark.shared
def test_real_comve_test_set_sample_of_100(tmp_path):
    """The paper's protocol on the real test set: 100 instances, seed 2020, 3 real systems + Human."""
    from evalapp.formats.csvfile import read_file
    from tests.conftest import shared_file

    statements = read_file(shared_file("test_statements.csv"))[1:]
    references = {row.fields[0]: row.fields[1:] for row in read_file(shared_file("test_references.csv"))}
    dataset = build_dataset(name="comve-test", instances=0, systems=())
    Instance.objects.bulk_create(
        Instance(dataset=dataset, external_id=row.fields[0], position=index, false_sent=row.fields[1])
        for index, row in enumerate(statements)
    )
    from core.models import Reference

    instances = {instance.external_id: instance for instance in Instance.objects.filter(dataset=dataset)}
    Reference.objects.bulk_create(
        Reference(instance=instances[key], position=position, text=text)
        for key, texts in references.items()
        for position, text in enumerate(texts, 1)
        if text
    )
    for name in ("butfit_bart", "kalm_bart-postcomp-v2", "justers_gpt2"):
        system = System.objects.create(dataset=dataset, name=name)
        rows = read_file(shared_file("systems", f"{name}_test.csv"))
        SystemOutput.objects.bulk_create(
            SystemOutput(system=system, instance=instances[row.fields[0]], text=row.fields[1]) for row in rows
        )
    campaign = create_campaign(dataset, "paper", sample=100, seed=2020, human_reference=1, control_rate=0.1)
    summary = campaign_summary(campaign)
    assert summary["instances"] == [statements[i].fields[0] for i in random.Random(2020).sample(range(1000), 100)]
    assert (summary["items"], summary["control_items"], summary["ratings_expected"]) == (400, 40, 1200)
