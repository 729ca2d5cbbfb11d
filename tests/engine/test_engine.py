"""Every path of the assignment engine (core.engine), one request at a time."""

from collections import Counter
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from core import engine
from core.engine import SubmissionRefused
from core.models import Assignment, Campaign, Item, Rater, RaterExclusion, Rating
from core.progress import campaign_progress, rater_progress
from evalapp.services.campaigns import create_campaign
from tests.engine.builders import build_dataset

# On both databases: the engine runs some statements differently on PostgreSQL (core.rating_sql).
pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

T0 = timezone.now()
LEASE = 30 * 60


def new_raters(count, start=0):
    return [
        Rater.objects.create(
            external_id=f"r{start + index}", platform=Rater.Platform.PROLIFIC, order_seed=engine.new_order_seed()
        )
        for index in range(count)
    ]


def rate_all(campaign, rater, score=2, now=T0):
    done = []
    while (assignment := engine.next_assignment(campaign, rater, now)) is not None:
        engine.submit_rating(assignment.pk, rater, score, seconds=1.5, now=now)
        done.append(assignment.item_id)
    return done


def check_counters(campaign):
    """The counters equal what the rows say, for every item."""
    for item in Item.objects.filter(campaign=campaign):
        statuses = Counter(item.assignments.values_list("status", flat=True))
        counted = Rating.objects.filter(item=item, excluded=False).count()
        assert item.done_count == counted == statuses["done"]
        assert item.active_count == statuses["done"] + statuses["leased"] <= item.needed


def test_rater_for_user_creates_one_profile_with_a_random_order_seed(django_user_model):
    user = django_user_model.objects.create_user("someone")
    rater = engine.rater_for_user(user)
    assert engine.rater_for_user(user) == rater and Rater.objects.filter(user=user).count() == 1
    other = engine.rater_for_user(django_user_model.objects.create_user("other"))
    assert rater.order_seed != other.order_seed


def test_lease_is_resumed_until_submitted(campaign):
    (rater,) = new_raters(1)
    first = engine.next_assignment(campaign, rater, T0)
    assert first.status == Assignment.Status.LEASED and first.sequence == 1
    assert first.lease_expires_at == T0 + timedelta(seconds=campaign.lease_seconds)
    assert engine.next_assignment(campaign, rater, T0 + timedelta(minutes=5)).pk == first.pk
    assert first.item.instance.false_sent  # the screen needs the statement without another query
    rating, created = engine.submit_rating(first.pk, rater, 3, seconds=4.2, now=T0)
    assert created and (rating.score, rating.seconds, rating.assignment_id) == (3, 4.2, first.pk)
    second = engine.next_assignment(campaign, rater, T0)
    assert second.pk != first.pk and second.item_id != first.item_id and second.sequence == 2


def test_every_item_gets_exactly_m_distinct_raters_and_nobody_twice(campaign):
    raters = new_raters(5)
    per_rater = {rater.pk: rate_all(campaign, rater) for rater in raters}
    for items in per_rater.values():
        assert len(items) == len(set(items))
    for item in Item.objects.filter(campaign=campaign):
        raters_of_item = list(item.ratings.values_list("rater", flat=True))
        assert len(raters_of_item) == len(set(raters_of_item)) == item.needed == item.done_count
    assert sum(len(items) for items in per_rater.values()) == 8 * 2
    check_counters(campaign)
    assert all(engine.next_assignment(campaign, rater, T0) is None for rater in raters)


def test_items_closest_to_completion_come_first(campaign):
    first, second = new_raters(2)
    taken = engine.next_assignment(campaign, first, T0)
    # The item another rater holds is nearer completion than every untouched one.
    assert engine.next_assignment(campaign, second, T0).item_id == taken.item_id


def test_order_is_random_per_rater():
    dataset = build_dataset(instances=30, systems=("alpha",))
    campaign = create_campaign(dataset, "order", raters_per_item=1, seed=3)
    sequences = []
    for rater in new_raters(3):
        firsts = []
        for _ in range(5):
            assignment = engine.next_assignment(campaign, rater, T0)
            firsts.append(assignment.item_id)
            engine.submit_rating(assignment.pk, rater, 1, now=T0)
        sequences.append(firsts)
    assert len({tuple(sequence) for sequence in sequences}) == 3


def test_expired_lease_returns_the_item_to_the_pool(campaign):
    holder, other = new_raters(2)
    held = engine.next_assignment(campaign, holder, T0)
    later = T0 + timedelta(seconds=campaign.lease_seconds + 1)
    assert engine.expire_leases(campaign, T0) == 0
    assert engine.expire_leases(campaign, later) == 1
    held.refresh_from_db()
    assert held.status == Assignment.Status.EXPIRED
    assert Item.objects.get(pk=held.item_id).active_count == 0
    assert engine.expire_leases(campaign, later) == 0
    # The holder never gets that item again; the next rater does.
    assert engine.next_assignment(campaign, holder, later).item_id != held.item_id
    check_counters(campaign)


def test_next_assignment_expires_leases_lazily():
    dataset = build_dataset(instances=1, systems=("alpha",))
    campaign = create_campaign(dataset, "lazy", raters_per_item=1, seed=1)
    holder, other = new_raters(2)
    held = engine.next_assignment(campaign, holder, T0)
    assert engine.next_assignment(campaign, other, T0) is None
    assert engine.next_assignment(campaign, other, T0 + timedelta(seconds=LEASE + 1)).item_id == held.item_id


def test_repeated_submit_stores_one_rating(campaign):
    (rater,) = new_raters(1)
    assignment = engine.next_assignment(campaign, rater, T0)
    rating, created = engine.submit_rating(assignment.pk, rater, 2, now=T0)
    again, created_again = engine.submit_rating(assignment.pk, rater, 0, now=T0)
    assert created and not created_again and again.pk == rating.pk and again.score == 2
    assert Rating.objects.count() == 1 and Item.objects.get(pk=assignment.item_id).done_count == 1


def test_late_submit_counts_when_the_item_still_has_room(campaign):
    (rater,) = new_raters(1)
    assignment = engine.next_assignment(campaign, rater, T0)
    late = T0 + timedelta(seconds=campaign.lease_seconds + 60)
    # Not yet swept: the slot is still the rater's.
    assert engine.submit_rating(assignment.pk, rater, 1, now=late)[1]
    (other,) = new_raters(1, start=10)
    second = engine.next_assignment(campaign, other, T0)
    engine.expire_leases(campaign, late)
    assert engine.submit_rating(second.pk, other, 1, now=late)[1]  # swept, but room: re-takes a slot
    second.refresh_from_db()
    assert second.status == Assignment.Status.DONE
    check_counters(campaign)


def test_late_submit_for_a_full_item_is_refused_with_a_clear_message():
    campaign = create_campaign(build_dataset(instances=1, systems=("alpha",)), "one", raters_per_item=2, seed=1)
    slow, fast1, fast2 = new_raters(3)
    held = engine.next_assignment(campaign, slow, T0)
    engine.expire_leases(campaign, T0 + timedelta(hours=1))
    for rater in (fast1, fast2):
        assignment = engine.next_assignment(campaign, rater, T0)
        assert assignment.item_id == held.item_id
        engine.submit_rating(assignment.pk, rater, 3, now=T0)
    with pytest.raises(SubmissionRefused) as refused:
        engine.submit_rating(held.pk, slow, 0, now=T0 + timedelta(hours=1))
    assert refused.value.code == SubmissionRefused.NOT_NEEDED
    assert str(refused.value) == "This item already has its 2 ratings; your choice was not needed."
    assert not Rating.objects.filter(rater=slow).exists()
    check_counters(campaign)


def test_someone_elses_assignment_is_refused_without_saying_more(campaign):
    owner, intruder = new_raters(2)
    assignment = engine.next_assignment(campaign, owner, T0)
    for assignment_id in (assignment.pk, 999_999):
        with pytest.raises(SubmissionRefused) as refused:
            engine.submit_rating(assignment_id, intruder, 3, now=T0)
        assert refused.value.code == SubmissionRefused.NOT_FOUND
        assert "not one of yours" in refused.value.message
    assert not Rating.objects.exists()


@pytest.mark.parametrize("score", [-1, 4, 2.5, "2", None, True])
def test_scores_outside_0_3_are_refused(campaign, score):
    (rater,) = new_raters(1)
    assignment = engine.next_assignment(campaign, rater, T0)
    with pytest.raises(SubmissionRefused, match="whole number from 0 to 3") as refused:
        engine.submit_rating(assignment.pk, rater, score, now=T0)
    assert refused.value.code == SubmissionRefused.INVALID and not Rating.objects.exists()


@pytest.mark.parametrize("seconds", [-1, "soon", float("nan"), float("inf")])
def test_bad_times_are_refused(campaign, seconds):
    (rater,) = new_raters(1)
    assignment = engine.next_assignment(campaign, rater, T0)
    with pytest.raises(SubmissionRefused, match="non-negative number of seconds"):
        engine.submit_rating(assignment.pk, rater, 1, seconds=seconds, now=T0)


def test_the_database_refuses_a_second_rating_or_assignment_of_one_rater(campaign):
    (rater,) = new_raters(1)
    assignment = engine.next_assignment(campaign, rater, T0)
    engine.submit_rating(assignment.pk, rater, 1, now=T0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Rating.objects.create(item=assignment.item, rater=rater, campaign=campaign, score=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(
            item=assignment.item, rater=rater, campaign=campaign, leased_at=T0, lease_expires_at=T0
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Item.objects.filter(pk=assignment.item_id).update(active_count=3)  # needed is 2


def test_an_imported_rating_of_the_same_rater_is_not_duplicated(campaign):
    (rater,) = new_raters(1)
    item = Item.objects.filter(campaign=campaign).order_by("pk").first()
    Rating.objects.create(item=item, rater=rater, campaign=campaign, score=2, source=Rating.Source.LONG)
    Item.objects.filter(pk=item.pk).update(active_count=1, done_count=1)
    assert item.pk not in rate_all(campaign, rater)


def test_closed_campaign_gives_no_items_and_takes_no_ratings(campaign):
    (rater,) = new_raters(1)
    assignment = engine.next_assignment(campaign, rater, T0)
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.CLOSED)
    campaign.refresh_from_db()
    assert engine.next_assignment(campaign, rater, T0) is None
    with pytest.raises(SubmissionRefused) as refused:
        engine.submit_rating(assignment.pk, rater, 1, now=T0)
    assert refused.value.code == SubmissionRefused.CLOSED


def test_excluding_a_rater_drops_their_ratings_and_reopens_their_items(campaign, organizer):
    bad, good = new_raters(2)
    rated = []
    for _ in range(3):
        assignment = engine.next_assignment(campaign, bad, T0)
        engine.submit_rating(assignment.pk, bad, 0, now=T0)
        rated.append(assignment.item_id)
    held = engine.next_assignment(campaign, bad, T0)
    result = engine.exclude_rater(campaign, bad, by=organizer, reason="failed the controls")
    assert result.created and result.ratings_excluded == 3 and result.items_reopened == 4
    assert RaterExclusion.objects.get(campaign=campaign, rater=bad).excluded_by == organizer
    assert set(Rating.objects.filter(rater=bad).values_list("excluded", flat=True)) == {True}
    assert set(Assignment.objects.filter(rater=bad).values_list("status", flat=True)) == {"excluded"}
    assert all(item.active_count == item.done_count == 0 for item in Item.objects.filter(pk__in=rated + [held.item_id]))
    assert engine.next_assignment(campaign, bad, T0) is None
    with pytest.raises(SubmissionRefused) as refused:
        engine.submit_rating(held.pk, bad, 2, now=T0)
    assert refused.value.code == SubmissionRefused.EXCLUDED
    assert set(rated) <= set(rate_all(campaign, good))  # reopened for a new rater
    again = engine.exclude_rater(campaign, bad)
    assert not again.created and again.exclusion == result.exclusion


def test_an_excluded_rater_cannot_retake_an_expired_slot(campaign):
    (rater,) = new_raters(1)
    assignment = engine.next_assignment(campaign, rater, T0)
    engine.expire_leases(campaign, T0 + timedelta(hours=1))
    engine.exclude_rater(campaign, rater)
    with pytest.raises(SubmissionRefused) as refused:
        engine.submit_rating(assignment.pk, rater, 2, now=T0)
    assert refused.value.code == SubmissionRefused.EXCLUDED
    check_counters(campaign)


def test_exclusion_also_reopens_imported_ratings(campaign):
    (rater,) = new_raters(1)
    item = Item.objects.filter(campaign=campaign).first()
    Rating.objects.create(item=item, rater=rater, campaign=campaign, score=0, source=Rating.Source.MTURK)
    Item.objects.filter(pk=item.pk).update(active_count=1, done_count=1)
    assert engine.exclude_rater(campaign, rater).items_reopened == 1
    item.refresh_from_db()
    assert (item.active_count, item.done_count) == (0, 0)


def test_rater_progress_counts_what_is_still_open_to_the_rater(campaign):
    first, second, third = new_raters(3)
    assert rater_progress(campaign, first) == (0, 8)
    assert len(rate_all(campaign, first)) == 8
    assert rater_progress(campaign, first) == (8, 8)
    assignment = engine.next_assignment(campaign, second, T0)
    engine.submit_rating(assignment.pk, second, 1, now=T0)
    engine.next_assignment(campaign, second, T0)
    assert rater_progress(campaign, second) == (1, 8)
    done, total = rater_progress(campaign, third)
    assert (done, total) == (0, 6)  # two items are full (first + second) or held
    engine.exclude_rater(campaign, third)
    assert rater_progress(campaign, third) == (0, 0)


def test_campaign_progress_per_system_and_controls():
    dataset = build_dataset(
        instances=4,
        systems=("alpha", "beta", "gamma"),
        outputs=lambda name, index: "same" if name != "gamma" else f"own {index}",
    )
    campaign = create_campaign(
        dataset, "p", seed=1, raters_per_item=2, share_identical_outputs=True, control_rate=0.5, human_reference=1
    )
    (rater,) = new_raters(1)
    shared = Item.objects.filter(campaign=campaign, item_outputs__output__system__name="alpha").first()
    Item.objects.filter(pk=shared.pk).update(active_count=1, done_count=1)
    progress = campaign_progress(campaign)
    # 4 instances x (alpha = beta shared, gamma, Human) = 12 system items; controls: round(0.5 * 12) = 6.
    assert (progress.items, progress.expected, progress.ratings) == (12, 24, 1)
    assert (progress.control_items, progress.control_expected) == (6, 12)
    by_name = {system.name: system for system in progress.systems}
    assert list(by_name) == ["Human", "alpha", "beta", "gamma"]
    assert (by_name["alpha"].ratings, by_name["beta"].ratings, by_name["gamma"].ratings) == (1, 1, 0)
    assert by_name["alpha"].expected == 8 and not by_name["alpha"].complete
    engine.next_assignment(campaign, rater, T0)
    progress = campaign_progress(campaign, T0)
    assert (progress.leased, progress.active_raters) == (1, 1)
    data = progress.as_dict()
    assert data["systems"][1]["name"] == "alpha" and data["fraction"] == pytest.approx(1 / 24)
