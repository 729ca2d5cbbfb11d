"""Rater quality figures (protocol.md#rater-quality) on a hand-made campaign, checked against hand computation."""

import random
from itertools import combinations

import pytest

from core import engine, quality
from core.models import Assignment, Campaign, Dataset, Instance, Item, ItemFlag, Rater, Rating

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

# item -> (kind, expected range, {rater: (score, seconds)})
CONTROL_OTHER, CONTROL_REFERENCE, CONTROL_STATEMENT = (0, 0), (2, 3), (0, 1)
RATINGS = {
    "Sys1": (None, {"A": (3, 4), "B": (3, 1), "C": (1, None)}),
    "Sys2": (None, {"A": (2, 6), "B": (1, 1), "C": (2, 3)}),
    "C1": (CONTROL_OTHER, {"A": (0, 10), "B": (2, 1)}),
    "C2": (CONTROL_REFERENCE, {"A": (3, 2), "B": (2, 2), "C": (0, 1)}),
    "C3": (CONTROL_STATEMENT, {"A": (1, 8), "C": (1, 2)}),
}


@pytest.fixture
def hand_made(django_user_model):
    """The campaign of RATINGS, its items' counters as the engine would leave them."""
    dataset = Dataset.objects.create(name="quality")
    instance = Instance.objects.create(dataset=dataset, external_id="1", position=0, false_sent="He ate a car.")
    campaign = Campaign.objects.create(
        name="quality", dataset=dataset, min_control_pass_rate=0.7, min_coagreement=0.3, min_median_seconds=5
    )
    raters = {name: Rater.objects.create(user=django_user_model.objects.create_user(username=name)) for name in "ABC"}
    for label, (expected, scores) in RATINGS.items():
        control = (
            {}
            if expected is None
            else {
                "kind": Item.Kind.CONTROL,
                "control_kind": Item.Control.OTHER_REASON,
                "expected_min": expected[0],
                "expected_max": expected[1],
            }
        )
        item = Item.objects.create(
            campaign=campaign,
            instance=instance,
            text=label,
            needed=3,
            active_count=len(scores),
            done_count=len(scores),
            **control,
        )
        for name, (score, seconds) in scores.items():
            Rating.objects.create(
                item=item,
                rater=raters[name],
                campaign=campaign,
                score=score,
                seconds=seconds,
                source=Rating.Source.LONG,
            )
    return campaign, raters


def by_name(campaign):
    return {record.rater: record for record in quality.rater_quality(campaign)}


def test_figures_match_hand_computation(hand_made):
    campaign, raters = hand_made
    records = by_name(campaign)
    a, b, c = records["A"], records["B"], records["C"]
    # A: controls C1=0 in [0,0], C2=3 in [2,3], C3=1 in [0,1].
    assert (a.ratings, a.control_ratings, a.control_passed, a.control_pass_rate) == (5, 3, 3, 1.0)
    # A's differences: Sys1 |3-3|,|3-1|; Sys2 |2-1|,|2-2|; C1 |0-2|; C2 |3-2|,|3-0|; C3 |1-1|.
    assert (a.compared_pairs, a.exact_agreement, a.mean_abs_difference) == (8, 3 / 8, 9 / 8)
    assert (a.timed_ratings, a.median_seconds) == (5, 6)
    # B: C1=2 fails, C2=2 passes; differences 0,2 | 1,1 | 2 | 1,2.
    assert (b.control_ratings, b.control_passed, b.control_pass_rate) == (2, 1, 0.5)
    assert (b.compared_pairs, b.exact_agreement, b.mean_abs_difference) == (7, 1 / 7, 9 / 7)
    assert (b.timed_ratings, b.median_seconds) == (4, 1)
    # C: C2=0 fails, C3=1 passes; differences 2,2 | 0,1 | 3,2 | 0; one rating untimed.
    assert (c.control_ratings, c.control_passed) == (2, 1)
    assert (c.compared_pairs, c.exact_agreement, c.mean_abs_difference) == (7, 2 / 7, 10 / 7)
    assert (c.timed_ratings, c.median_seconds) == (3, 2)


def test_flags_only_below_threshold_and_with_enough_data(hand_made):
    campaign, _ = hand_made
    records = by_name(campaign)
    assert not records["A"].flagged and records["A"].problems == []
    # B's pass rate 0.5 < 0.7 and median 1 s < 5 s, but on 2 controls and 4 timed ratings: too few.
    assert records["B"].problems == ["agreement with co-raters 14% is below 30%"]
    assert records["C"].problems == ["agreement with co-raters 29% is below 30%"]
    assert [record.rater for record in quality.rater_quality(campaign)] == ["B", "C", "A"], "flagged first"

    campaign.min_coagreement = 0.0
    campaign.min_median_seconds = 7
    campaign.save()
    records = by_name(campaign)
    assert records["A"].problems == ["median 6.0 s per item is below 7 s"]
    assert not records["B"].flagged and not records["C"].flagged


def test_control_pass_rate_flag():
    thresholds = quality.Thresholds(min_control_pass_rate=0.7, min_coagreement=0.0, min_median_seconds=0)
    records = [quality.RatingRecord(item, 1, score, None, False, 2, 3, True) for item, score in enumerate([3, 1, 0, 2])]
    figures = quality.summarize(records, thresholds)[1]
    assert (figures["control_ratings"], figures["control_passed"], figures["control_pass_rate"]) == (4, 2, 0.5)
    assert figures["problems"] == ["control pass rate 50% is below 70%"]
    assert quality.summarize(records[: quality.MIN_CONTROL_RATINGS - 1], thresholds)[1]["problems"] == []


def test_control_pass_bounds():
    assert quality.control_passes(0, 0, 0) and not quality.control_passes(1, 0, 0)
    assert quality.control_passes(2, 2, None) and quality.control_passes(3, 2, 3)
    assert not quality.control_passes(1, 2, 3) and quality.control_passes(1, None, 1)


def test_flags_raised_and_raters_with_only_a_lease_are_listed(hand_made, django_user_model):
    campaign, raters = hand_made
    ItemFlag.objects.create(item=Item.objects.get(text="Sys1"), rater=raters["A"], note="odd")
    newcomer = Rater.objects.create(user=django_user_model.objects.create_user(username="D"))
    item = Item.objects.get(text="C1")
    from django.utils import timezone

    Assignment.objects.create(
        item=item, rater=newcomer, campaign=campaign, leased_at=timezone.now(), lease_expires_at=timezone.now()
    )
    records = by_name(campaign)
    assert records["A"].flags_raised == 1
    assert (records["D"].ratings, records["D"].exact_agreement, records["D"].median_seconds) == (0, None, None)
    assert not records["D"].flagged
    assert set(records["D"].as_dict()) >= {
        "rater",
        "control_pass_rate",
        "exact_agreement",
        "mean_abs_difference",
        "median_seconds",
        "ratings",
        "flags_raised",
        "flagged",
        "problems",
    }


def test_excluded_rater_keeps_figures_but_leaves_co_raters_figures(hand_made):
    campaign, raters = hand_made
    engine.exclude_rater(campaign, raters["B"])
    records = by_name(campaign)
    assert records["B"].excluded and not records["B"].flagged
    assert (records["B"].ratings, records["B"].compared_pairs) == (4, 7)
    # A without B: Sys1 |3-1|, Sys2 |2-2|, C2 |3-0|, C3 |1-1|.
    a = records["A"]
    assert (a.compared_pairs, a.exact_agreement, a.mean_abs_difference) == (4, 0.5, 5 / 4)


def brute_force(records):
    """Agreement by enumerating rater pairs per item: a second, independent computation."""
    pairs = {}
    items = {}
    for record in records:
        items.setdefault(record.item_id, []).append(record)
    for ratings in items.values():
        for first, second in combinations(ratings, 2):
            for mine, other in ((first, second), (second, first)):
                if not other.excluded:
                    pairs.setdefault(mine.rater_id, []).append(abs(mine.score - other.score))
    return pairs


def test_agreement_equals_pairwise_enumeration_on_random_data():
    rng = random.Random(7)
    thresholds = quality.Thresholds(0.7, 0.0, 3.0)
    records = []
    for item in range(60):
        for rater in rng.sample(range(12), rng.randint(1, 5)):
            records.append(quality.RatingRecord(item, rater, rng.randint(0, 3), None, rng.random() < 0.1))
    figures = quality.summarize(records, thresholds)
    for rater, differences in brute_force(records).items():
        assert figures[rater]["compared_pairs"] == len(differences)
        assert figures[rater]["exact_agreement"] == pytest.approx(differences.count(0) / len(differences))
        assert figures[rater]["mean_abs_difference"] == pytest.approx(sum(differences) / len(differences))


def test_control_items_carry_no_system_output(db):
    """Why control ratings can never reach a system score: no ItemOutput links them to a system."""
    from tests.screens.conftest import make_campaign

    campaign = make_campaign()
    controls = Item.objects.filter(campaign=campaign, kind=Item.Kind.CONTROL)
    assert controls.count() == 3
    assert not controls.filter(item_outputs__isnull=False).exists()
    assert not Item.objects.filter(campaign=campaign, kind=Item.Kind.SYSTEM, item_outputs__isnull=True).exists()
