"""Importing datasets and submissions through the services and the commands."""

import json
from io import StringIO

import pytest
from django.core.management import call_command, execute_from_command_line
from django.core.management.base import CommandError

from core.models import Campaign, Instance, Item, ItemOutput, System, SystemOutput
from core.problems import FormatError
from evalapp.compute import official_bleu
from evalapp.models import Submission
from evalapp.services.imports import import_comve, import_submission
from tests.data.helpers import PAIR_ANSWERS, PAIRS, REFERENCES, STATEMENTS, SUBMISSION, db_counts, import_mini, source

SUBMISSION_KEYS = {
    "system",
    "rows",
    "official_bleu",
    "warnings",
    "dataset",
    "marker",
    "partial",
    "missing",
    "submission_id",
    "sha256",
    "bleu_signature",
}


# What helpers.REFERENCES and helpers.SUBMISSION hold, written out for the expected BLEU.
REFERENCE_LISTS = [
    ["An elephant is bigger than a fridge.", "A fridge is too small for an elephant.", "Elephants do not fit."],
    ["The sun rises in the east.", "The sun comes up in the east.", "In the west, the sun sets."],
    ["Cats cannot read.", "A cat does not understand words.", "Only people read newspapers."],
]
REASONS = ["An elephant is too big for a fridge.", "The sun rises in the east.", "Cats cannot read."]


def expected_bleu():
    return official_bleu.corpus_bleu(REASONS, REFERENCE_LISTS).score


@pytest.mark.django_db
def test_dataset_import_with_pairs():
    result = import_comve(
        "mini",
        source("s.csv", STATEMENTS),
        source("r.csv", REFERENCES),
        pairs=source("p.csv", PAIRS),
        pair_answers=source("a.csv", PAIR_ANSWERS),
        split="dev",
    )
    assert (result.instances, result.references, result.true_sentences) == (3, 9, 3)
    assert result.dataset.split == "dev"
    instance = Instance.objects.get(dataset=result.dataset, external_id="2")
    assert instance.position == 1 and instance.true_sent == "The sun rises in the east."
    assert [r.text for r in instance.references.order_by("position")][2] == "In the west, the sun sets."


@pytest.mark.django_db
@pytest.mark.postgres
def test_bom_and_windows_line_endings_are_accepted():
    crlf = lambda data: b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")  # noqa: E731
    dataset = import_comve("mini", source("s.csv", crlf(STATEMENTS)), source("r.csv", crlf(REFERENCES))).dataset
    assert list(dataset.instances.values_list("external_id", flat=True)) == ["1", "2", "3"]
    result = import_submission(dataset, "A", source("sub.csv", crlf(SUBMISSION)))
    assert result.rows == 3 and result.warnings == []
    assert result.official_bleu == pytest.approx(expected_bleu())
    assert (
        SystemOutput.objects.get(system=result.system, instance__external_id="1").text
        == "An elephant is too big for a fridge."
    )


@pytest.mark.django_db
def test_partial_submission_needs_the_option_and_gets_no_bleu():
    dataset = import_mini()
    with pytest.raises(FormatError, match="missing"):
        import_submission(dataset, "A", source("sub.csv", b"1,x\n"))
    result = import_submission(dataset, "A", source("sub.csv", b"1,x\n"), allow_partial=True)
    assert (result.rows, result.official_bleu, result.submission.partial, result.missing) == (1, None, True, 2)


@pytest.mark.django_db
def test_complete_file_with_allow_partial_is_not_partial():
    result = import_submission(import_mini(), "A", source("sub.csv", SUBMISSION), allow_partial=True)
    assert not result.submission.partial and result.official_bleu == pytest.approx(expected_bleu())


@pytest.mark.django_db
def test_empty_reason_is_stored_with_a_warning():
    result = import_submission(import_mini(), "A", source("sub.csv", SUBMISSION.replace(b"Cats cannot read.", b"")))
    (warning,) = result.warnings
    assert (warning.line, warning.column) == (3, 2)
    assert result.submission.warnings[0]["message"] == "empty reason for id '3'"
    assert result.official_bleu is not None


@pytest.mark.django_db
@pytest.mark.postgres
def test_reimport_replaces_outputs_and_records_a_new_submission(organizer):
    dataset = import_mini()
    first = import_submission(dataset, "A", source("v1.csv", SUBMISSION), marker="*")
    kept = SystemOutput.objects.get(system=first.system, instance__external_id="1").pk
    second = import_submission(
        dataset, "A", source("v2.csv", SUBMISSION.replace(b"Cats cannot read.", b"Cats can't.")), user=organizer
    )
    assert System.objects.filter(dataset=dataset).count() == 1
    assert Submission.objects.filter(system=first.system).count() == 2
    assert second.system.marker == "*"  # kept when no marker is given
    assert second.submission.uploaded_by == organizer and second.submission.filename == "v2.csv"
    outputs = dict(SystemOutput.objects.filter(system=first.system).values_list("instance__external_id", "text"))
    assert outputs == {
        "1": "An elephant is too big for a fridge.",
        "2": "The sun rises in the east.",
        "3": "Cats can't.",
    }
    assert SystemOutput.objects.get(system=first.system, instance__external_id="1").pk == kept
    third = import_submission(dataset, "A", source("v3.csv", b"2,only\n"), marker="", allow_partial=True)
    assert third.system.marker == ""
    assert list(SystemOutput.objects.filter(system=first.system).values_list("text", flat=True)) == ["only"]


@pytest.mark.django_db
@pytest.mark.postgres
def test_outputs_in_a_campaign_cannot_change():
    dataset = import_mini()
    result = import_submission(dataset, "A", source("sub.csv", SUBMISSION))
    campaign = Campaign.objects.create(name="c1", dataset=dataset)
    output = SystemOutput.objects.get(system=result.system, instance__external_id="2")
    item = Item.objects.create(campaign=campaign, instance=output.instance, text=output.text, needed=3)
    ItemOutput.objects.create(campaign=campaign, item=item, output=output)
    before = db_counts()
    with pytest.raises(FormatError, match=r"outputs in campaign\(s\) c1"):
        import_submission(dataset, "A", source("sub.csv", SUBMISSION.replace(b"east.", b"East!")))
    assert db_counts() == before
    assert SystemOutput.objects.get(pk=output.pk).text == "The sun rises in the east."
    # changing only outputs that no campaign uses is fine
    import_submission(dataset, "A", source("sub.csv", SUBMISSION.replace(b"Cats cannot read.", b"No.")))


@pytest.mark.django_db
def test_import_submission_json_contract(tmp_path):
    import_mini()
    path = tmp_path / "sub.csv"
    path.write_bytes(SUBMISSION)
    out = StringIO()
    call_command(
        "import_submission",
        "--dataset",
        "mini",
        "--system",
        "Team",
        "--file",
        str(path),
        "--marker",
        "+",
        "--json",
        stdout=out,
    )
    payload = json.loads(out.getvalue())
    assert set(payload) == SUBMISSION_KEYS
    assert payload["system"] == "Team" and payload["rows"] == 3 and payload["marker"] == "+"
    assert payload["official_bleu"] == pytest.approx(expected_bleu()) and payload["warnings"] == []


@pytest.mark.django_db
def test_import_submission_json_partial_has_null_bleu_and_warning_objects(tmp_path):
    import_mini()
    path = tmp_path / "sub.csv"
    path.write_bytes(b"1,\n")
    out = StringIO()
    call_command(
        "import_submission",
        "--dataset",
        "mini",
        "--system",
        "Team",
        "--file",
        str(path),
        "--allow-partial",
        "--json",
        stdout=out,
    )
    payload = json.loads(out.getvalue())
    assert payload["official_bleu"] is None and payload["partial"] is True and payload["missing"] == 2
    assert payload["warnings"] == [
        {"file": str(path), "line": 1, "column": 2, "message": "empty reason for id '1'", "value": "1"}
    ]


@pytest.mark.django_db
def test_command_lists_every_problem_and_exits_non_zero(tmp_path, capsys, monkeypatch):
    import_mini()
    path = tmp_path / "bad.csv"
    path.write_bytes(b"1,a\n1,b\n7,c\n")
    before = db_counts()
    with pytest.raises(CommandError) as caught:
        call_command("import_submission", "--dataset", "mini", "--system", "T", "--file", str(path))
    message = str(caught.value)
    assert f"{path}, line 2, column 1: id '1' repeated (first on line 1)" in message
    assert f"{path}, line 3, column 1: id '7' is not in dataset 'mini'" in message
    assert "2 id(s) of dataset 'mini' are missing: '2', '3'" in message
    # run_from_argv closes the connections when it ends; the in-memory test database must survive it
    monkeypatch.setattr("django.core.management.base.connections.close_all", lambda: None)
    with pytest.raises(SystemExit) as exited:
        execute_from_command_line(
            [
                "manage.py",
                "import_submission",
                "--dataset",
                "mini",
                "--system",
                "T",
                "--file",
                str(path),
                "--skip-checks",
            ]
        )
    assert exited.value.code != 0
    assert "nothing was written" in capsys.readouterr().err
    assert db_counts() == before


@pytest.mark.django_db
def test_command_json_error_is_printed_as_json(tmp_path):
    import_mini()
    out = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_submission",
            "--dataset",
            "mini",
            "--system",
            "T",
            "--file",
            str(tmp_path / "absent.csv"),
            "--json",
            stdout=out,
        )
    payload = json.loads(out.getvalue())
    assert payload["problems"][0]["message"].startswith("cannot read file")


@pytest.mark.django_db
def test_import_comve_command(tmp_path):
    files = {"s.csv": STATEMENTS, "r.csv": REFERENCES, "p.csv": PAIRS, "a.csv": PAIR_ANSWERS}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    out = StringIO()
    call_command(
        "import_comve",
        "--name",
        "mini",
        "--statements",
        str(tmp_path / "s.csv"),
        "--references",
        str(tmp_path / "r.csv"),
        "--pairs",
        str(tmp_path / "p.csv"),
        "--pair-answers",
        str(tmp_path / "a.csv"),
        "--json",
        stdout=out,
    )
    payload = json.loads(out.getvalue())
    assert payload == {
        "dataset": "mini",
        "split": "test",
        "instances": 3,
        "references": 9,
        "true_sentences": 3,
        "warnings": [],
    }
    with pytest.raises(CommandError, match="--pair-answers: the pairs file and the pair answers file go together"):
        call_command(
            "import_comve",
            "--name",
            "x",
            "--statements",
            str(tmp_path / "s.csv"),
            "--references",
            str(tmp_path / "r.csv"),
            "--pairs",
            str(tmp_path / "p.csv"),
        )


@pytest.mark.django_db
def test_oversized_file_on_disk_is_refused_before_reading(tmp_path, settings):
    import_mini()
    path = tmp_path / "big.csv"
    path.write_bytes(SUBMISSION)
    settings.COMVE_MAX_UPLOAD_BYTES = 10
    before = db_counts()
    with pytest.raises(CommandError, match=rf"big\.csv: file is {len(SUBMISSION)} bytes; the limit is 10 bytes"):
        call_command("import_submission", "--dataset", "mini", "--system", "T", "--file", str(path))
    assert db_counts() == before
