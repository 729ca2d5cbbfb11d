"""What counts in results: system items only, excluded raters never, shared items for each system."""

import krippendorff
import numpy as np
import pytest

from core.models import Item, ItemOutput, Rater, RaterExclusion, Rating, SystemOutput
from evalapp.services.results import agreement_report, human_scores, ratings_records, table6
from tests.conftest import shared_file
from tests.results.factories import (
    add_ratings,
    butfit_campaign,
    make_campaign,
    make_dataset,
    make_raters,
    make_system,
    rated_campaign,
)


@pytest.fixture
def campaign(db):
    campaign, _ = rated_campaign({"A": [[3, 3, 2], [1, 2, 2]], "B": [[0, 1, 1], [2, 2, 2]]}, name="svc")
    return campaign


def test_records_are_instance_system_rater_score(campaign):
    rows = list(ratings_records(campaign))
    assert len(rows) == 12
    assert rows[0][:2] == ("100", "A") and all(score in range(4) for *_, score in rows)


def test_control_items_never_count(campaign):
    raters = list(Rater.objects.all())
    control = Item.objects.create(
        campaign=campaign,
        instance=campaign.sampled.first().instance,
        kind=Item.Kind.CONTROL,
        control_kind=Item.Control.STATEMENT,
        expected_max=1,
        needed=3,
    )
    add_ratings(campaign, [(control, [3, 3, 3])], raters)
    assert len(ratings_records(campaign)) == 12
    assert human_scores(campaign)["A"]["human"] == pytest.approx(13 / 6)


def test_excluded_raters_never_count(campaign):
    rater = Rater.objects.get(external_id="svc-w0")
    RaterExclusion.objects.create(campaign=campaign, rater=rater)
    scores = human_scores(campaign)
    assert scores["A"] == {"human": pytest.approx(9 / 4), "ratings": 4, "expected_ratings": 6, "complete": False}
    RaterExclusion.objects.all().delete()
    Rating.objects.filter(rater=rater).update(excluded=True)
    assert human_scores(campaign)["A"]["ratings"] == 4


def test_shared_identical_output_counts_for_each_system(db):
    dataset = make_dataset("shared", 1)
    a, b = make_system(dataset, "A"), make_system(dataset, "B")
    SystemOutput.objects.filter(system=b).update(text="A reason 100.")
    campaign = make_campaign(dataset, [a, b], name="shared", raters_per_item=2)
    first, second = Item.objects.filter(campaign=campaign).order_by("id")
    ItemOutput.objects.filter(item=second).update(item=first)  # one item now stands for both outputs
    second.delete()
    add_ratings(campaign, [(first, [3, 1])], make_raters(2))
    scores = human_scores(campaign)
    assert scores["A"] == scores["B"] == {"human": 2.0, "ratings": 2, "expected_ratings": 2, "complete": True}
    report = agreement_report(campaign)
    assert report["units"] == 1 and report["ratings"] == 2  # the shared item is one unit for agreement


def test_agreement_report_equals_krippendorff_package(campaign):
    report = agreement_report(campaign)
    data = np.array([[3, 1, 0, 2], [3, 2, 1, 2], [2, 2, 1, 2]], dtype=float)  # raters x items (A100, A101, B100, B101)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=[0, 1, 2, 3])
    assert report["krippendorff_alpha_ordinal"] == pytest.approx(expected, abs=1e-9)
    assert {entry["rater"] for entry in report["raters"]} == {f"rater-{r.pk}" for r in Rater.objects.all()}


def test_partial_submission_has_no_bleu_and_latest_submission_decides(db):
    campaign, systems = rated_campaign({"A": [[2]], "B": [[1]]}, name="bleu", bleu={"A": 20.0}, partial={"B"})
    rows = {row.team: row for row in table6(campaign).rows}
    assert rows["A"].bleu == 20.0 and rows["A"].bleu_rank == 1
    assert rows["B"].bleu is None and rows["B"].bleu_rank is None
    systems["A"].submissions.create(filename="a2.csv", sha256="1" * 64, rows=1, partial=True)
    assert table6(campaign).rows[0].bleu is None


@pytest.mark.shared
def test_real_butfit_ratings_import_as_long_form(db):
    campaign, rows, summary = butfit_campaign(shared_file)
    assert summary["accepted"] == 400 and summary["rejected"] == []
    assert any("all rows are counted as one rater" in line for line in summary["unknown"])
    scores = human_scores(campaign)
    for name in sorted({row["system"] for row in rows}):
        file_mean = np.mean([int(row["rating_0to3"]) for row in rows if row["system"] == name])
        assert scores[name] == {
            "human": pytest.approx(file_mean),
            "ratings": 100,
            "expected_ratings": 100,
            "complete": True,
        }
