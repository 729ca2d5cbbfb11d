"""import_ratings (protocol.md#imports): Mechanical Turk and long-form files, row rejections, atomic refusals."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from core.models import Assignment, Item, Rater, Rating
from core.problems import FormatError
from evalapp.formats.ratings import parse_score
from evalapp.services.ratings_import import import_ratings
from evalapp.services.results import human_scores, table6
from tests.results.factories import make_campaign, make_dataset, make_system

MTURK_HEADER = "HITId,WorkerId,AssignmentId,AssignmentStatus,WorkTimeInSeconds,Input.id,Input.reason,Answer.score"


@pytest.fixture
def campaign(db):
    dataset = make_dataset("mt", n_instances=2)  # instance ids 100, 101
    systems = [make_system(dataset, "alpha", bleu=12.5), make_system(dataset, "beta", bleu=10.0)]
    return make_campaign(dataset, systems, name="mt-campaign", raters_per_item=3)


def mturk_file(rows, header=MTURK_HEADER):
    return (header + "\n" + "\n".join(rows) + "\n").encode()


def mturk_row(hit, worker, instance, score, status="Approved", reason=None, seconds=20):
    reason = reason if reason is not None else f"alpha reason {instance}."
    return f"H{hit},{worker},A{hit}{worker},{status},{seconds},{instance},{reason},{score}"


def test_two_out_of_range_answers_are_reported_and_the_score_uses_the_valid_ratings(campaign):
    rows = [
        mturk_row(1, "W1", 100, 3),
        mturk_row(1, "W2", 100, 2),
        mturk_row(1, "W3", 100, 5),
        mturk_row(2, "W1", 101, 1),
        mturk_row(2, "W2", 101, "two"),
        mturk_row(2, "W3", 101, 2),
    ]
    result = import_ratings(
        campaign, mturk_file(rows), "batch.csv", "mturk", system="alpha", columns={"reason": "Input.reason"}
    )
    summary = result.as_json()
    assert summary["accepted"] == 4
    assert [(r["line"], r["value"]) for r in summary["rejected"]] == [(4, "5"), (6, "two")]
    assert summary["rejected"][0]["reason"] == "score is out of range 0-3"
    assert summary["rejected"][1]["reason"] == "score is not an integer 0-3"
    score = human_scores(campaign)["alpha"]
    assert score == {"human": (3 + 2 + 1 + 2) / 4, "ratings": 4, "expected_ratings": 6, "complete": False}
    assert set(Rating.objects.values_list("source", flat=True)) == {Rating.Source.MTURK}
    assert Rater.objects.filter(platform=Rater.Platform.MTURK).count() == 3
    for item in Item.objects.filter(campaign=campaign):
        assert item.done_count == item.active_count == item.ratings.count() <= item.needed
    row = next(r for r in table6(campaign).rows if r.team == "alpha")
    assert row.complete is False and row.human == pytest.approx(2.0)


def test_rejected_assignments_are_skipped(campaign):
    rows = [mturk_row(1, "W1", 100, 3, status="Rejected"), mturk_row(1, "W2", 100, 2, status="Submitted")]
    summary = import_ratings(campaign, mturk_file(rows), "b.csv", "mturk", system="alpha").as_json()
    assert summary["accepted"] == 1 and summary["skipped"] == 1
    assert summary["skipped_rows"] == [{"line": 2, "reason": "assignment status 'Rejected'"}]


def test_file_without_worker_and_status_columns_imports_and_says_what_is_unknown(campaign):
    data = mturk_file(["H1,100,3", "H2,100,2", "H3,101,0"], header="HITId,Input.id,Answer.score")
    summary = import_ratings(campaign, data, "b.csv", "mturk", system="beta").as_json()
    assert summary["accepted"] == 3
    unknown = " ".join(summary["unknown"])
    assert "'WorkerId'" in unknown and "each assignment is counted as a different rater" in unknown
    assert "'AssignmentStatus'" in unknown and "no row was skipped" in unknown
    assert Rating.objects.values("rater").distinct().count() == 3
    assert human_scores(campaign)["beta"]["ratings"] == 3


def test_reimporting_the_same_file_counts_nothing_twice(campaign):
    data = mturk_file(["H1,100,3", "H2,100,2"], header="HITId,Input.id,Answer.score")
    import_ratings(campaign, data, "b.csv", "mturk", system="beta")
    again = import_ratings(campaign, data, "b.csv", "mturk", system="beta").as_json()
    assert again["accepted"] == 0
    assert {r["reason"] for r in again["rejected"]} == {"this rater has already rated this item"}
    assert Rating.objects.count() == 2


def test_item_with_m_ratings_rejects_further_rows(campaign):
    rows = [mturk_row(i, f"W{i}", 100, 2) for i in range(1, 5)]
    summary = import_ratings(campaign, mturk_file(rows), "b.csv", "mturk", system="alpha").as_json()
    assert summary["accepted"] == 3
    assert summary["rejected"] == [
        {"line": 5, "value": "100", "reason": "item already has its 3 ratings (done or in progress)", "column": None}
    ]
    assert Assignment.objects.filter(status=Assignment.Status.DONE).count() == 3


def test_reason_mismatch_refuses_the_file_and_writes_nothing(campaign):
    rows = [mturk_row(1, "W1", 100, 3), mturk_row(2, "W1", 101, 2, reason="Something else entirely.")]
    with pytest.raises(FormatError) as refused:
        import_ratings(campaign, mturk_file(rows), "b.csv", "mturk", system="alpha", columns={"reason": "Input.reason"})
    problem = refused.value.problems[0]
    assert (problem.file, problem.line, problem.column) == ("b.csv", 3, "Input.reason")
    assert "does not match the stored output of system 'alpha'" in problem.message
    assert Rating.objects.count() == 0 and Rater.objects.count() == 0


def test_reason_matching_up_to_whitespace_is_accepted(campaign):
    rows = [mturk_row(1, "W1", 100, 3, reason='"  alpha   reason 100. "')]
    assert (
        import_ratings(
            campaign, mturk_file(rows), "b.csv", "mturk", system="alpha", columns={"reason": "Input.reason"}
        ).accepted
        == 1
    )


def test_unknown_instance_or_system_refuses_the_file(campaign):
    data = b"instance_id,system,rater,score\n100,alpha,r1,3\n999,alpha,r1,2\n100,gamma,r1,1\n"
    with pytest.raises(FormatError) as refused:
        import_ratings(campaign, data, "long.csv", "long")
    assert [(p.line, p.column) for p in refused.value.problems] == [(3, "instance_id"), (4, "instance_id")]
    assert Rating.objects.count() == 0


def test_missing_required_column_names_file_and_column(campaign):
    with pytest.raises(FormatError) as refused:
        import_ratings(campaign, b"instance_id,system,rater\n100,alpha,r1\n", "long.csv", "long")
    problem = refused.value.problems[0]
    assert (problem.file, problem.line, problem.column) == ("long.csv", 1, "score")
    with pytest.raises(FormatError, match="'Answer.rating' is missing"):
        import_ratings(
            campaign,
            mturk_file([mturk_row(1, "W1", 100, 3)]),
            "b.csv",
            "mturk",
            system="alpha",
            columns={"score": "Answer.rating"},
        )


def test_long_form_with_seconds_enters_results(campaign):
    data = (
        b"instance_id,system,rater,score,seconds\n100,alpha,r1,3,12.5\n100,alpha,r2,2,\n"
        b"101,beta,r1,1,8\n101,beta,r1,0,8\n"
    )
    summary = import_ratings(campaign, data, "long.csv", "long").as_json()
    assert summary["accepted"] == 3 and summary["rejected"][0]["line"] == 5
    assert sorted(Rating.objects.values_list("seconds", flat=True), key=str) == [12.5, 8.0, None]
    assert set(Rating.objects.values_list("source", flat=True)) == {Rating.Source.LONG}
    assert human_scores(campaign)["alpha"]["human"] == 2.5


def test_command_json_summary_and_refusal(campaign, tmp_path):
    path = tmp_path / "batch.csv"
    path.write_bytes(mturk_file([mturk_row(1, "W1", 100, 3), mturk_row(1, "W2", 100, -1)]))
    out = io.StringIO()
    call_command(
        "import_ratings",
        "--campaign",
        campaign.name,
        "--file",
        str(path),
        "--format",
        "mturk",
        "--system",
        "alpha",
        "--json",
        stdout=out,
    )
    summary = json.loads(out.getvalue())
    assert summary["accepted"] == 1 and summary["skipped"] == 0
    assert summary["rejected"] == [
        {"line": 3, "value": "-1", "reason": "score is out of range 0-3", "column": "Answer.score"}
    ]
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"HITId,Answer.score\nH1,3\n")
    with pytest.raises(CommandError, match="'Input.id' is missing"):
        call_command(
            "import_ratings",
            "--campaign",
            campaign.name,
            "--file",
            str(bad),
            "--format",
            "mturk",
            "--system",
            "alpha",
            stdout=io.StringIO(),
        )


@pytest.mark.parametrize("text, expected", [("0", 0), (" 3 ", 3), ("+2", 2)])
def test_parse_score_accepts_integers_0_to_3(text, expected):
    assert parse_score(text) == expected


@pytest.mark.parametrize(
    "text, reason",
    [
        ("4", "out of range"),
        ("-1", "out of range"),
        ("2.5", "not an integer"),
        ("", "empty"),
        ("x", "not an integer"),
        ("٣", "not an integer"),
    ],
)
def test_parse_score_rejects_everything_else(text, reason):
    with pytest.raises(ValueError, match=reason):
        parse_score(text)
