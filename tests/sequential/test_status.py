"""The campaign's anytime-valid decisions (issue 23): the service, the dashboard, the API and the command agree;
decisions on real and simulated ratings; racing; the settings' checks."""

import io
import json

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from core import engine
from core.models import Campaign, Item, ItemOutput, Rater, SystemRetirement
from core.problems import FormatError
from evalapp.compute import sequential as compute
from evalapp.formats import table6 as table6_format
from evalapp.services import results
from evalapp.services.campaigns import create_campaign
from evalapp.services.sequential import retire_decided_systems, sequential_status
from tests.conftest import shared_file
from tests.engine.builders import build_dataset
from tests.results.factories import (
    add_ratings,
    butfit_campaign,
    make_campaign,
    make_dataset,
    make_raters,
    make_system,
)

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

KEYS = {"alpha", "epsilon", "method", "instances_seen", "settled", "pairs"}
PAIR_KEYS = {"better", "worse", "difference", "lower", "upper", "decision"}


def crossed_scores(rng, means, instances, raters=3, instance_sd=0.5, rater_sd=0.3, noise_sd=0.6, pool=12):
    """{system: [[score per rater] per instance]} from the crossed model, rounded to 0-3."""
    difficulty = rng.normal(0, instance_sd, instances)
    severity = rng.normal(0, rater_sd, pool)
    table = {}
    for name, mean in means.items():
        who = np.array([rng.choice(pool, raters, replace=False) for _ in range(instances)])
        latent = mean + difficulty[:, None] + severity[who] + rng.normal(0, noise_sd, (instances, raters))
        table[name] = np.clip(np.rint(latent), 0, 3).astype(int).tolist()
    return table


def simulated_campaign(means, instances, seed=0, name="sim", raters=3, racing=False):
    """A campaign rated in full from the crossed model (the same raters' columns for every system)."""
    rng = np.random.default_rng(seed)
    table = crossed_scores(rng, means, instances, raters)
    dataset = make_dataset(name + "-data", instances)
    systems = {n: make_system(dataset, n) for n in means}
    campaign = make_campaign(dataset, list(systems.values()), name, raters)
    if racing:
        Campaign.objects.filter(pk=campaign.pk).update(racing=True)
        campaign.refresh_from_db()
    rater_rows = make_raters(raters, prefix=name + "-w")
    items = {
        (io.output.system_id, io.output.instance_id): io.item
        for io in ItemOutput.objects.filter(campaign=campaign).select_related("item", "output")
    }
    ordered = list(dataset.instances.order_by("position"))
    add_ratings(
        campaign,
        [(items[systems[n].pk, inst.pk], rows[p]) for n, rows in table.items() for p, inst in enumerate(ordered)],
        rater_rows,
    )
    return campaign, table


def test_a_clear_gap_is_decided_and_the_interval_contains_the_difference():
    """The paper's REFERENCES (Human, 2.58) against ANA (2.10), 100 instances x 3 raters from the crossed model."""
    campaign, table = simulated_campaign({"REFERENCES": 2.58, "ANA": 2.10}, 100, seed=3)
    status = sequential_status(campaign)
    (pair,) = status.pairs
    assert (pair.better, pair.worse, pair.decision) == ("REFERENCES", "ANA", "better")
    observed = np.mean(np.mean(table["REFERENCES"], axis=1) - np.mean(table["ANA"], axis=1))
    assert pair.difference == pytest.approx(observed)
    assert pair.lower <= pair.difference <= pair.upper and pair.lower > 0
    assert status.instances_seen == 100 and status.settled and status.alpha == 0.05 and status.epsilon == 0.1


def test_five_equal_systems_show_no_better():
    campaign, _ = simulated_campaign(dict.fromkeys("ABCDE", 1.6), 150, seed=8)
    status = sequential_status(campaign)
    assert len(status.pairs) == 10
    assert all(pair.decision != "better" for pair in status.pairs)
    assert all(pair.lower <= pair.difference <= pair.upper for pair in status.pairs)
    assert not status.settled


def test_only_the_complete_prefix_of_the_rating_order_counts():
    campaign, _ = simulated_campaign({"A": 2.5, "B": 0.5}, 20, seed=1)
    # The instance fifth in the campaign's order loses a rating: the prefix stops before it.
    fifth = campaign.sampled.order_by("position")[4].instance
    item = Item.objects.filter(campaign=campaign, instance=fifth).first()
    item.ratings.first().delete()
    status = sequential_status(campaign)
    assert status.instances_seen == 4 and status.pairs[0].better == "A"


@pytest.mark.shared
def test_real_butfit_ratings():
    """The real ratings in ../shared (one rater, four BUT-FIT systems, 100 test instances), imported as a
    campaign with M = 1: every interval holds its difference, and BART over the untrained transformer is decided."""
    campaign, rows, _ = butfit_campaign(shared_file)
    names = sorted({row["system"] for row in rows})
    status = sequential_status(campaign)
    assert status.instances_seen == 100 and len(status.pairs) == 6
    means = {name: np.mean([int(r["rating_0to3"]) for r in rows if r["system"] == name]) for name in names}
    for pair in status.pairs:
        assert pair.lower <= pair.difference <= pair.upper
        assert pair.difference == pytest.approx(means[pair.better] - means[pair.worse])
    decided = {(p.better, p.worse) for p in status.pairs if p.decision == "better"}
    assert ("butfit_bart", "butfit_transformer-notpretrained") in decided


def test_web_api_and_command_agree(client, organizer):
    campaign, _ = simulated_campaign({"A": 2.4, "B": 1.2, "C": 1.15}, 120, seed=4)
    status = sequential_status(campaign).as_dict()
    assert set(status) == KEYS and all(set(pair) == PAIR_KEYS for pair in status["pairs"])
    api = APIClient()
    api.force_authenticate(organizer)
    assert api.get(f"/api/campaigns/{campaign.pk}/sequential/").json() == json.loads(json.dumps(status))
    out = io.StringIO()
    call_command("sequential_status", "--campaign", campaign.name, "--json", stdout=out)
    assert json.loads(out.getvalue()) == json.loads(json.dumps(status))
    text = io.StringIO()
    call_command("sequential_status", "--campaign", campaign.name, stdout=text)
    assert f"instances seen: {status['instances_seen']}" in text.getvalue()
    client.force_login(organizer)
    page = client.get(reverse("results:dashboard", args=(campaign.pk,))).content.decode()
    assert "Stopping early: decisions per pair" in page and "Ranking stability" not in page
    for pair in status["pairs"]:
        assert f'<th scope="row">{pair["better"]}</th><td>{pair["worse"]}</td>' in page
        assert f"{pair['lower']:.3f}" in page and f"{pair['upper']:.3f}" in page
    decided = [pair for pair in status["pairs"] if pair["decision"] == "better"]
    assert {(p["better"], p["worse"]) for p in decided} >= {("A", "B"), ("A", "C")}


def test_settled_banner_offers_to_close_to_organizers_only(client, organizer, researcher):
    campaign, _ = simulated_campaign({"A": 2.6, "B": 0.4}, 60, seed=2)
    assert sequential_status(campaign).settled
    client.force_login(organizer)
    page = client.get(reverse("results:dashboard", args=(campaign.pk,))).content.decode()
    assert "<strong>Settled</strong>" in page and "Close the campaign now" in page and "95%" in page
    client.force_login(researcher)
    page = client.get(reverse("results:dashboard", args=(campaign.pk,))).content.decode()
    assert "<strong>Settled</strong>" in page and "Close the campaign now" not in page


def test_a_rater_sees_no_decisions(client, rater_user):
    campaign, _ = simulated_campaign({"A": 2.6, "B": 0.4}, 10, seed=2)
    client.force_login(rater_user)
    assert client.get(reverse("results:dashboard", args=(campaign.pk,))).status_code == 403
    assert client.post(reverse("results:racing", args=(campaign.pk,))).status_code == 403
    api = APIClient()
    api.force_authenticate(rater_user)
    response = api.get(f"/api/campaigns/{campaign.pk}/sequential/")
    assert response.status_code == 403 and b"A" not in response.content.replace(b"API", b"")


def test_racing_retires_a_decided_system_and_the_engine_stops_giving_its_items(organizer):
    dataset = build_dataset(instances=40, systems=("good", "mid", "bad"))
    campaign = create_campaign(dataset, "race", seed=5, raters_per_item=1, racing=True)
    rater = Rater.objects.create(external_id="r", platform=Rater.Platform.SITE, order_seed=7)  # a lab rater
    score = {"good": 3, "mid": 2, "bad": 0}
    system_of = dict(ItemOutput.objects.filter(campaign=campaign).values_list("item_id", "output__system__name"))
    for _ in range(60):  # 20 instances x 3 systems, in the rating order
        assignment = engine.next_assignment(campaign, rater)
        engine.submit_rating(assignment.pk, rater, score[system_of[assignment.item_id]])
    status = sequential_status(campaign)
    assert status.instances_seen == 20
    api = APIClient()
    api.force_authenticate(organizer)
    response = api.post(f"/api/campaigns/{campaign.pk}/sequential/racing/")
    assert response.status_code == 200
    retired = response.json()["retired"]
    assert retired and set(retired) == set(status.retirable())
    assert response.json()["items_closed"] == 20 * len(retired)
    recorded = dict(SystemRetirement.objects.filter(campaign=campaign).values_list("system__name", "instances"))
    assert recorded == dict.fromkeys(retired, 20)
    # Racing again retires nothing new; the engine never hands out a retired system's item.
    assert api.post(f"/api/campaigns/{campaign.pk}/sequential/racing/").json()["retired"] == []
    while (assignment := engine.next_assignment(campaign, rater)) is not None:
        assert system_of[assignment.item_id] not in retired
        engine.submit_rating(assignment.pk, rater, score[system_of[assignment.item_id]])
    table = results.table6(campaign, secondary=False)
    assert any(f"{name} after 20 instances" in note for note in table6_format.notes(table) for name in retired)
    rows = {row.team: row for row in table.rows}
    for name in retired:
        assert rows[name].human == pytest.approx(score[name]) and rows[name].ratings == 20


def test_racing_off_changes_nothing(client, organizer):
    campaign, _ = simulated_campaign({"A": 2.6, "B": 0.4}, 60, seed=2)
    assert retire_decided_systems(campaign).systems == []
    client.force_login(organizer)
    response = client.post(reverse("results:racing", args=(campaign.pk,)), follow=True)
    assert "Racing is off" in response.content.decode()
    assert not SystemRetirement.objects.exists()


@pytest.mark.parametrize("margin", [0, -0.1, 1.6, float("nan"), "0.1", True])
def test_a_bad_tie_margin_is_refused_naming_the_field(margin):
    dataset = build_dataset(instances=3, systems=("a",))
    with pytest.raises(FormatError) as caught:
        create_campaign(dataset, "bad margin", tie_margin=margin)
    assert "tie_margin" in caught.value.fields and not Campaign.objects.exists()


def test_the_margin_and_racing_are_stored_and_shown():
    dataset = build_dataset(instances=3, systems=("a", "b"))
    campaign = create_campaign(dataset, "settings", tie_margin=0.25, racing=True)
    assert (campaign.tie_margin, campaign.racing) == (0.25, True)
    assert sequential_status(campaign).epsilon == 0.25
    assert compute.pair_alpha(0.05, 2) == 0.05


def test_the_web_form_and_the_api_take_the_margin_and_racing(client, organizer):
    dataset = build_dataset(instances=4, systems=("a", "b"))
    client.force_login(organizer)
    data = {
        "dataset": dataset.pk,
        "name": "web race",
        "selection": "sample",
        "sample": 3,
        "seed": 1,
        "raters_per_item": 1,
        "lease_minutes": 30,
        "control_rate": 0.0,
        "human_reference": "",
        "tie_margin": "0.2",
        "racing": "on",
    }
    for score in range(4):
        data[f"rubric_label_{score}"], data[f"rubric_description_{score}"] = f"Label {score}", ""
    assert client.post(reverse("campaigns:create"), data).status_code == 302
    web = Campaign.objects.get(name="web race")
    assert (web.tie_margin, web.racing) == (0.2, True)
    data.update(name="web default", tie_margin="")
    data.pop("racing")
    assert client.post(reverse("campaigns:create"), data).status_code == 302
    assert Campaign.objects.filter(name="web default", tie_margin=0.1, racing=False).exists()
    api = APIClient()
    api.force_authenticate(organizer)
    created = api.post(
        "/api/campaigns/",
        {"dataset": dataset.pk, "name": "api race", "sample": 3, "seed": 1, "tie_margin": 0.3, "racing": True},
        format="json",
    )
    assert created.status_code == 201 and (created.json()["tie_margin"], created.json()["racing"]) == (0.3, True)
    refused = api.post("/api/campaigns/", {"dataset": dataset.pk, "name": "api bad", "tie_margin": 2.0}, format="json")
    assert refused.status_code == 400 and "tie_margin" in refused.content.decode()
    assert not Campaign.objects.filter(name="api bad").exists()


IMMEDIATE_TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_retires_decided_systems_as_ratings_arrive_without_a_button(settings):
    """With racing on, the background check after each committed rating retires the decided systems;
    the engine then hands out only the systems still racing. A campaign without racing is untouched."""
    settings.TASKS = IMMEDIATE_TASKS
    dataset = build_dataset(instances=40, systems=("good", "mid", "bad"))
    racing = create_campaign(dataset, "auto-race", seed=5, raters_per_item=1, racing=True)
    plain = create_campaign(dataset, "no-race", seed=5, raters_per_item=1)
    score = {"good": 3, "mid": 2, "bad": 0}
    for campaign in (racing, plain):
        rater = Rater.objects.create(external_id=f"r-{campaign.name}", platform=Rater.Platform.SITE, order_seed=7)
        system_of = dict(ItemOutput.objects.filter(campaign=campaign).values_list("item_id", "output__system__name"))
        handed, retired_before = [], []
        while (assignment := engine.next_assignment(campaign, rater)) is not None and len(handed) < 90:
            retired_before.append(
                set(SystemRetirement.objects.filter(campaign=campaign).values_list("system__name", flat=True))
            )
            handed.append(system_of[assignment.item_id])
            engine.submit_rating(assignment.pk, rater, score[handed[-1]])
        retired = set(SystemRetirement.objects.filter(campaign=campaign).values_list("system__name", flat=True))
        if campaign is plain:
            assert retired == set() and len(handed) == 90
            continue
        assert retired, "a clear gap on 1-rater items must retire a system before 90 ratings"
        # No item of a system is handed out once the system is retired.
        assert not any(name in before for name, before in zip(handed, retired_before))


def test_a_retired_instance_leaves_the_pairs_and_the_status_still_answers(organizer):
    """An organizer retires a broken statement (flag review): the decisions read the instances in use only."""
    from core import flags

    dataset = build_dataset(instances=12, systems=("good", "bad"))
    campaign = create_campaign(dataset, "retire-one", seed=3, raters_per_item=1)
    rater = Rater.objects.create(external_id="r", platform=Rater.Platform.SITE, order_seed=7)
    system_of = dict(ItemOutput.objects.filter(campaign=campaign).values_list("item_id", "output__system__name"))
    while (assignment := engine.next_assignment(campaign, rater)) is not None:
        engine.submit_rating(assignment.pk, rater, 3 if system_of[assignment.item_id] == "good" else 0)
    before = sequential_status(campaign)
    item = Item.objects.filter(campaign=campaign, kind=Item.Kind.SYSTEM).first()
    flags.retire_instance(campaign, item.pk, organizer, "broken statement")
    after = sequential_status(campaign)
    assert after.instances_seen == before.instances_seen - 1 == 11
