"""Honest columns and exports that say why (issue 19, items 4 and 5): secondary columns empty with the
reason when raters cannot be told apart, a shared rating entering the mixed model once, excluded raters
and control items named, percentages rounded to nearest."""

import csv
import io
import json

import numpy as np
import pytest

from core.models import Item, ItemOutput, Rater, RaterExclusion, SystemOutput
from evalapp.compute import rater_effects
from evalapp.formats.table6 import percent_text
from evalapp.options.table6 import Table6Options
from evalapp.services import exports
from evalapp.services.ratings_import import import_ratings
from tests.results.factories import add_ratings, make_campaign, make_dataset, make_raters, make_system, rated_campaign

NO_WORKER_HEADER = "HITId,AssignmentId,AssignmentStatus,WorkTimeInSeconds,Input.id,Input.reason,Answer.score"


@pytest.fixture
def no_worker_campaign(db):
    """Two systems, 6 instances, 3 ratings per item from a Mechanical Turk file without WorkerId."""
    dataset = make_dataset("kalm-like", n_instances=6)
    systems = [make_system(dataset, "alpha", bleu=12.5), make_system(dataset, "beta", bleu=10.0)]
    campaign = make_campaign(dataset, systems, name="no-worker", raters_per_item=3)
    rng = np.random.default_rng(7)
    for name in ("alpha", "beta"):
        lines = [NO_WORKER_HEADER]
        for instance in range(100, 106):
            for slot in range(3):
                lines.append(f"H{instance},A{name}{instance}{slot},Approved,20,{instance},r,{rng.integers(0, 4)}")
        import_ratings(campaign, ("\n".join(lines) + "\n").encode(), f"{name}.csv", "mturk", system=name)
    return campaign


def test_no_worker_ids_leave_the_secondary_columns_empty_with_the_reason(no_worker_campaign):
    document = json.loads(exports.table6(no_worker_campaign, "json", Table6Options(bootstrap=1)).text)
    assert all(row["human_z"] is None and row["human_adjusted"] is None for row in document["rows"])
    assert all(row["human_adjusted_low"] is None for row in document["rows"])
    reason = document["secondary"]["not_estimable"]
    assert "raters unknown or each rater with one rating" in reason and "not identifiable" in reason
    assert reason in document["secondary"]["secondary"]
    assert document["secondary"]["human_adjusted"]["rater_variance"] is None
    # The headline is there, and its intervals fall back visibly to instances.
    assert all(row["human"] is not None for row in document["rows"])
    assert document["intervals"]["fallback"].startswith("raters not identifiable")
    table = list(csv.DictReader(io.StringIO(exports.table6(no_worker_campaign, "csv").text)))
    assert all(row["human_z"] == "" and row["human_adjusted"] == "" for row in table)
    markdown = exports.table6(no_worker_campaign, "markdown").text
    assert "| -‡ | -‡ |" in markdown and "- ‡ Human z and Human adjusted are empty, not estimable" in markdown
    latex = exports.table6(no_worker_campaign, "latex").text
    assert "-$^\\ddagger$" in latex


def test_the_page_shows_a_dash_with_its_footnote(client, organizer, no_worker_campaign):
    client.force_login(organizer)
    body = client.get(f"/results/{no_worker_campaign.pk}/table6/").content.decode()
    assert "-‡" in body and "‡ Human z and Human adjusted are empty" in body


def test_secondary_problem_rule():
    assert rater_effects.secondary_problem([], []) == "no counted ratings"
    assert "single rater" in rater_effects.secondary_problem([1, 2], ["r", "r"])
    assert "not identifiable" in rater_effects.secondary_problem([1, 2, 3], ["a", "b", "c"])
    # A shared rating (one id, two rows) is one rating of its rater.
    assert "not identifiable" in rater_effects.secondary_problem([1, 1, 2], ["a", "a", "b"])
    assert rater_effects.secondary_problem([1, 2, 3], ["a", "a", "b"]) is None


def test_shared_rating_enters_the_mixed_model_once():
    """A shared rating's rows carry 1/m each (the weights sum to the distinct ratings), the fit differs from
    counting it twice, and without shared ratings the weighted fit is exactly the unweighted one (which
    tests/results/test_rater_effects.py holds to statsmodels' MixedLM)."""
    rng = np.random.default_rng(3)
    rows = []
    rating = 0
    severity = rng.normal(0, 0.5, 6)
    for instance in range(12):
        for system in ("a", "b", "c"):
            for rater in rng.choice(6, 3, replace=False):
                rows.append(
                    (
                        rating,
                        instance,
                        system,
                        int(rater),
                        float(np.clip(np.rint(1.5 + severity[rater] + rng.normal(0, 0.7)), 0, 3)),
                    )
                )
                rating += 1
    # Instance 0..5: b's item is shared with c (identical outputs): c's rows repeat b's ratings.
    rows = [r for r in rows if not (r[2] == "c" and r[1] < 6)]
    rows += [(r[0], r[1], "c", r[3], r[4]) for r in rows if r[2] == "b" and r[1] < 6]
    ids, instances, systems, raters, scores = (np.array(c, dtype=object) for c in zip(*rows))
    ids = ids.astype(int)
    weights = rater_effects.shared_weights(ids)
    assert sorted(set(weights.tolist())) == [0.5, 1.0] and weights.sum() == len(set(ids.tolist()))
    weighted = rater_effects.mixed_model(
        instances, systems, raters, scores.astype(float), ["a", "b", "c"], weights=weights
    )
    doubled = rater_effects.mixed_model(instances, systems, raters, scores.astype(float), ["a", "b", "c"])
    assert weighted.converged and doubled.converged
    assert weighted.scores["b"].estimate != doubled.scores["b"].estimate or (
        weighted.rater_variance != doubled.rater_variance
    )
    # Without any shared rating the weights are all 1 and the fit is exactly the unweighted one (and MixedLM's).
    plain = [r for r in rows if not (r[2] == "c" and r[1] < 6)]
    ids, instances, systems, raters, scores = (np.array(c, dtype=object) for c in zip(*plain))
    ones = rater_effects.mixed_model(
        instances,
        systems,
        raters,
        scores.astype(float),
        ["a", "b", "c"],
        weights=rater_effects.shared_weights(ids.astype(int)),
    )
    unweighted = rater_effects.mixed_model(instances, systems, raters, scores.astype(float), ["a", "b", "c"])
    assert ones == unweighted


def test_percentages_round_to_nearest_and_never_claim_complete():
    assert percent_text(200, 300) == "67%"
    assert percent_text(10, 12) == "83%"
    assert percent_text(1, 8) == "13%"  # 12.5 rounds half up
    assert percent_text(999, 1000) == "99%" and percent_text(1, 1000) == "1%"
    assert percent_text(0, 10) == "0%" and percent_text(10, 10) == "100%"


@pytest.mark.django_db
def test_exports_name_excluded_raters_and_control_items():
    campaign, _ = rated_campaign({"A": [[3, 2, 1], [2, 2, None]], "B": [[1, 1, 0], [0, 1, 2]]}, name="why")
    rater = Rater.objects.get(external_id="why-w2")
    RaterExclusion.objects.create(campaign=campaign, rater=rater)
    control = Item.objects.create(
        campaign=campaign,
        instance=campaign.sampled.first().instance,
        kind=Item.Kind.CONTROL,
        control_kind=Item.Control.STATEMENT,
        expected_max=1,
        needed=3,
    )
    add_ratings(campaign, [(control, [0, 1, 0])], list(Rater.objects.filter(external_id__startswith="why-")))
    markdown = exports.table6(campaign, "markdown").text
    assert "Excluded: 1 rater excluded by the organizer, 3 ratings not counted" in markdown
    assert "Control items: 1 item with known answers (3 ratings) check the raters and are not counted" in markdown
    assert "A 4 of 6 (67%)" in markdown  # 66.7% to nearest, not floored to 66%
    document = json.loads(exports.table6(campaign, "json").text)
    assert document["counted"] == {
        "excluded_raters": 1,
        "excluded_ratings": 3,
        "control_items": 1,
        "control_ratings": 3,
    }
    latex = exports.table6(campaign, "latex").text
    assert "Excluded: 1 rater excluded" in latex


@pytest.mark.django_db
def test_incomplete_campaign_tests_the_displayed_difference():
    """Missing ratings: the comparison's difference is the difference of the displayed formula (1) means
    (the former test compared per-instance means, another difference), and the note says so."""
    campaign, _ = rated_campaign(
        {"A": [[3, 3, None], [0, 1, 1], [2, 2, 2], [3, None, None]], "B": [[2, 2, 2], [1, 1, 1], [2, 1, 2], [1, 2, 2]]},
        name="partial-test",
    )
    document = json.loads(exports.table6(campaign, "json", Table6Options(bootstrap=1)).text)
    rows = {row["team"]: row for row in document["rows"]}
    comparison = document["significance"]["comparisons"][0]
    displayed = abs(rows["A"]["human"] - rows["B"]["human"])
    assert comparison["difference"] == pytest.approx(displayed, abs=1e-12)
    per_instance = np.nanmean([np.mean([3, 3]) - 2, np.mean([0, 1, 1]) - 1, 2 - 5 / 3, 3 - 5 / 3])
    assert abs(per_instance - displayed) > 0.05  # the two differences do differ here
    markdown = exports.table6(campaign, "markdown", Table6Options(bootstrap=1)).text
    assert "the intervals and tests are of these same means and their displayed differences" in markdown


@pytest.mark.django_db
def test_shared_item_campaign_fits_once(db):
    """Through the service: a campaign whose item stands for two systems' identical outputs gives the
    weighted fit (the rating counted once in the model), and formula (1) still counts it for both."""
    dataset = make_dataset("shared-fit", 8)
    a, b, c = make_system(dataset, "A"), make_system(dataset, "B"), make_system(dataset, "C")
    SystemOutput.objects.filter(system=b).update(text="same")
    SystemOutput.objects.filter(system=c).update(text="same")
    campaign = make_campaign(dataset, [a, b, c], name="shared-fit", raters_per_item=3)
    for instance in dataset.instances.all():
        b_item = Item.objects.get(campaign=campaign, instance=instance, item_outputs__output__system=b)
        c_item = Item.objects.get(campaign=campaign, instance=instance, item_outputs__output__system=c)
        ItemOutput.objects.filter(item=c_item).update(item=b_item)
        c_item.delete()
    raters = make_raters(5, prefix="sf")
    rng = np.random.default_rng(2)
    for item in Item.objects.filter(campaign=campaign).order_by("pk"):
        chosen = rng.choice(5, 3, replace=False)
        add_ratings(campaign, [(item, rng.integers(0, 4, 3).tolist())], [raters[r] for r in chosen])
    document = json.loads(exports.table6(campaign, "json").text)
    rows = {row["team"]: row for row in document["rows"]}
    assert rows["B"]["human"] == rows["C"]["human"] and rows["B"]["ratings"] == 24
    assert rows["B"]["human_adjusted"] == pytest.approx(rows["C"]["human_adjusted"], abs=1e-6)
    assert document["secondary"]["not_estimable"] is None
