"""The rating invariants (protocol.md#invariants) under concurrent raters, on SQLite and (second pass) PostgreSQL.

Each test runs >= 16 threads, each with its own database connection and its own Rater,
against committed data (``transaction=True``); ``pytest -s`` shows the counts they print.
"""

import random
import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Count
from django.utils import timezone

from core import engine
from core.engine import SubmissionRefused
from core.models import Assignment, Item, Rater, Rating
from evalapp.services.campaigns import create_campaign
from tests.engine.builders import build_dataset
from tests.engine.threads import require_threadable_database, run_in_threads

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 16


@pytest.fixture(autouse=True)
def threadable_database():
    require_threadable_database()


def new_raters(count, prefix="r"):
    return Rater.objects.bulk_create(
        Rater(platform=Rater.Platform.PROLIFIC, external_id=f"{prefix}{index}", order_seed=engine.new_order_seed())
        for index in range(count)
    )


def assert_invariants(campaign):
    """Every item: done == stored ratings == done assignments, all from distinct raters, <= M."""
    for item in Item.objects.filter(campaign=campaign):
        raters = list(Rating.objects.filter(item=item).values_list("rater", flat=True))
        statuses = Counter(item.assignments.values_list("status", flat=True))
        assert len(raters) == len(set(raters)) == item.done_count == statuses["done"] <= item.needed
        assert item.active_count == statuses["done"] + statuses["leased"]
    duplicated = (
        Assignment.objects.filter(campaign=campaign).values("item", "rater").annotate(n=Count("pk")).filter(n__gt=1)
    )
    assert not duplicated.exists()


def one_item_campaign(raters_per_item=3):
    return create_campaign(
        build_dataset(instances=1, systems=("alpha",)), "one", raters_per_item=raters_per_item, seed=1
    )


def test_racing_for_the_last_places_of_an_item():
    campaign = one_item_campaign()
    raters = new_raters(THREADS)
    leases = run_in_threads([lambda rater=rater: engine.next_assignment(campaign, rater) for rater in raters])
    got = [lease for lease in leases if lease is not None]
    print(f"\n[{connection.vendor}] {THREADS} raters raced for 3 places: {len(got)} leases")
    assert len(got) == 3 and len({lease.rater_id for lease in got}) == 3
    assert Item.objects.get(campaign=campaign).active_count == 3
    assert_invariants(campaign)


def test_a_submit_repeated_by_many_threads_stores_one_rating():
    campaign = one_item_campaign()
    (rater,) = new_raters(1)
    assignment = engine.next_assignment(campaign, rater)
    outcomes = run_in_threads(
        [lambda score=index % 4: engine.submit_rating(assignment.pk, rater, score) for index in range(THREADS)]
    )
    created = [rating for rating, was_created in outcomes if was_created]
    print(f"\n[{connection.vendor}] {THREADS} identical submits: {len(created)} stored")
    assert len(created) == 1 and {rating.pk for rating, _ in outcomes} == {created[0].pk}
    assert Rating.objects.count() == 1 and Item.objects.get(campaign=campaign).done_count == 1


def test_late_submits_racing_for_an_item_are_accepted_only_while_needed():
    campaign = one_item_campaign()
    start = timezone.now()
    raters, held = new_raters(THREADS + 2), []
    for group in range(0, len(raters), 3):  # every lease expires before the next three raters come
        now = start + timedelta(hours=group)
        held += [engine.next_assignment(campaign, rater, now) for rater in raters[group : group + 3]]
        engine.expire_leases(campaign, now + timedelta(minutes=45))
    assert all(lease is not None for lease in held)

    def late(lease):
        try:
            return engine.submit_rating(lease.pk, lease.rater, 2)[1]
        except SubmissionRefused as refused:
            return refused.code

    outcomes = Counter(run_in_threads([lambda lease=lease: late(lease) for lease in held[:THREADS]]))
    print(f"\n[{connection.vendor}] {THREADS} late submits for 3 places: {dict(outcomes)}")
    assert outcomes == {True: 3, SubmissionRefused.NOT_NEEDED: THREADS - 3}
    assert_invariants(campaign)


def test_hammering_with_leavers_double_clicks_and_a_sweeper_keeps_every_invariant():
    """Raters submit, double-submit and leave mid-item while a sweeper expires every lease
    (live ones too, so late submits race for re-taken slots); then fresh raters finish."""
    campaign = create_campaign(
        build_dataset(instances=12, systems=("alpha", "beta", "gamma")),
        "hammer",
        seed=4,
        raters_per_item=3,
        control_rate=0.1,
    )
    accepted, repeated, refused = [], [], Counter()
    record = threading.Lock()
    workers_done = threading.Event()

    def worker(rater, seed):
        rng = random.Random(seed)
        while (lease := engine.next_assignment(campaign, rater)) is not None:
            if rng.random() < 0.03:
                return  # leaves with the item leased
            try:
                rating, created = engine.submit_rating(lease.pk, rater, rng.randint(0, 3), seconds=rng.random())
                outcomes = [(rating, created)]
                if rng.random() < 0.2:
                    outcomes.append(engine.submit_rating(lease.pk, rater, rng.randint(0, 3)))
            except SubmissionRefused as exc:
                with record:
                    refused[exc.code] += 1
                continue
            with record:
                accepted.extend(rating for rating, created in outcomes if created)
                repeated.extend(rating for rating, created in outcomes if not created)

    def sweeper():
        swept = 0
        while not workers_done.wait(0.01):
            swept += engine.expire_leases(campaign, timezone.now() + timedelta(days=1))
        return swept

    remaining = [THREADS]

    def counted_worker(rater, seed):
        try:
            worker(rater, seed)
        finally:
            with record:
                remaining[0] -= 1
                if not remaining[0]:
                    workers_done.set()

    results = run_in_threads(
        [lambda rater=rater, seed=index: counted_worker(rater, seed) for index, rater in enumerate(new_raters(THREADS))]
        + [sweeper]
    )
    engine.expire_leases(campaign, timezone.now() + timedelta(days=1))
    for rater in new_raters(3, prefix="closer"):  # what the leavers left: at most 3 more per item
        while (lease := engine.next_assignment(campaign, rater)) is not None:
            accepted.append(engine.submit_rating(lease.pk, rater, 1)[0])

    items = list(Item.objects.filter(campaign=campaign))
    stored = {rating.pk: rating.score for rating in Rating.objects.all()}
    print(
        f"\n[{connection.vendor}] hammer: {len(items)} items, {len(accepted)} accepted, {len(repeated)} repeats "
        f"answered with the stored rating, refused {dict(refused)}, {results[-1]} leases swept, "
        f"{len(stored)} ratings stored"
    )
    assert all(item.done_count == item.needed == 3 for item in items)
    assert_invariants(campaign)
    assert len(accepted) == len(stored) == 3 * len(items)
    assert {rating.pk: rating.score for rating in accepted} == stored  # none lost, none changed
    assert {rating.pk for rating in repeated} <= set(stored)


def test_simulated_campaign_17_systems_100_instances_3_raters_64_concurrent_raters():
    """Done-when of the issue: 5,100 ratings by 64 concurrent raters, none lost."""
    systems = tuple(f"team{index:02d}" for index in range(17))
    campaign = create_campaign(
        build_dataset(instances=100, systems=systems), "simulation", seed=2020, raters_per_item=3
    )
    raters = new_raters(64)

    def rate(rater, seed):
        rng, mine = random.Random(seed), []
        while (lease := engine.next_assignment(campaign, rater)) is not None:
            rating, created = engine.submit_rating(lease.pk, rater, rng.randint(0, 3), seconds=1.0)
            assert created
            mine.append((rating.pk, lease.item_id, rating.score))
        return mine

    started = timezone.now()
    per_rater = run_in_threads(
        [lambda rater=rater, seed=index: rate(rater, seed) for index, rater in enumerate(raters)]
    )
    elapsed = (timezone.now() - started).total_seconds()
    submitted = [entry for mine in per_rater for entry in mine]
    stored = dict(Rating.objects.values_list("pk", "score"))
    distinct = Counter(
        item_id
        for item_id, raters in Item.objects.filter(campaign=campaign)
        .annotate(raters=Count("ratings__rater", distinct=True))
        .values_list("pk", "raters")
        if raters == 3
    )
    items = Item.objects.filter(campaign=campaign).count()
    print(
        f"\n[{connection.vendor}] simulation: {items} items (17 systems x 100 instances), 64 concurrent raters, "
        f"{len(submitted)} accepted submissions, {len(stored)} ratings stored, {len(distinct)} items with exactly "
        f"3 distinct raters, lost {len({pk for pk, _, _ in submitted} - set(stored))}, "
        f"{elapsed:.1f} s ({len(submitted) / elapsed:.0f} ratings/s), ratings per rater "
        f"{min(map(len, per_rater))}-{max(map(len, per_rater))}"
    )
    assert items == 1700 and len(submitted) == len(stored) == 5100 and len(distinct) == 1700
    assert {pk: score for pk, _, score in submitted} == stored
    assert_invariants(campaign)
