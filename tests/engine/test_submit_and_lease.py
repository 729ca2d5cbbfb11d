"""The rater screen's submit: the score stored and the next item leased in one transaction.

Also the SQL of the rating path (``core.rating_sql``) read back as the ORM reads it.
"""

from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core import engine, rating_sql
from core.engine import SubmissionRefused
from core.models import Assignment, Item, Rating
from core.progress import rater_progress
from tests.engine.test_engine import T0, check_counters, new_raters

# On both databases: the engine runs some statements differently on PostgreSQL (core.rating_sql).
pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def leased_items(campaign, rater):
    return set(Assignment.objects.filter(campaign=campaign, rater=rater).values_list("item_id", flat=True))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_score_and_the_next_lease_are_one_transaction(campaign):
    (rater,) = new_raters(1)
    first = engine.next_assignment(campaign, rater, T0)
    with CaptureQueriesContext(connection) as queries:
        submitted = engine.submit_and_lease(first.pk, rater, 3, campaign, seconds=2.0, now=T0)
    assert [q["sql"] for q in queries].count("COMMIT") == 1
    assert submitted.created and submitted.rating.score == 3 and submitted.rating.assignment_id == first.pk
    following = Assignment.objects.get(pk=submitted.next_assignment_id)
    assert following.status == Assignment.Status.LEASED and following.item_id != first.item_id
    assert following.sequence == 2 and following.lease_expires_at == T0 + timedelta(seconds=campaign.lease_seconds)
    assert engine.next_assignment(campaign, rater, T0).pk == following.pk
    check_counters(campaign)


@pytest.mark.django_db(transaction=True)
def test_a_failure_after_the_rating_writes_nothing(campaign, monkeypatch):
    (rater,) = new_raters(1)
    first = engine.next_assignment(campaign, rater, T0)

    def broken(*args, **kwargs):
        raise RuntimeError("the server died while leasing")

    monkeypatch.setattr(engine, "_lease_locked", broken)
    with pytest.raises(RuntimeError):
        engine.submit_and_lease(first.pk, rater, 3, campaign, now=T0)
    first.refresh_from_db()
    assert first.status == Assignment.Status.LEASED and not Rating.objects.exists()
    assert Assignment.objects.count() == 1
    check_counters(campaign)


def test_a_repeated_submit_stores_nothing_new_and_keeps_the_next_lease(campaign):
    (rater,) = new_raters(1)
    first = engine.next_assignment(campaign, rater, T0)
    once = engine.submit_and_lease(first.pk, rater, 3, campaign, now=T0)
    twice = engine.submit_and_lease(first.pk, rater, 0, campaign, now=T0)
    assert not twice.created and twice.rating.pk == once.rating.pk and twice.rating.score == 3
    assert twice.next_assignment_id == once.next_assignment_id
    check_counters(campaign)


def test_a_second_live_lease_of_one_rater_is_refused_by_the_database(campaign):
    """Issue 18: one live lease per rater per campaign is a partial unique index, not only the engine's care."""
    (rater,) = new_raters(1)
    first = engine.next_assignment(campaign, rater, T0)
    other = Item.objects.filter(campaign=campaign).exclude(pk=first.item_id).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(
            item=other,
            rater=rater,
            campaign=campaign,
            leased_at=T0,
            sequence=2,
            lease_expires_at=T0 + timedelta(minutes=30),
        )
    submitted = engine.submit_and_lease(first.pk, rater, 1, campaign, now=T0)
    assert submitted.next_assignment_id is not None
    assert Assignment.objects.filter(rater=rater, campaign=campaign, status="leased").count() == 1


def test_a_timed_out_lease_left_marked_leased_does_not_block_the_next(campaign):
    """The rater's own lease past its time is expired before a new one is taken (the index would refuse it)."""
    (rater,) = new_raters(1)
    first = engine.next_assignment(campaign, rater, T0)
    later = T0 + timedelta(seconds=campaign.lease_seconds + 1)
    engine._last_sweep[campaign.pk] = later  # no campaign-wide sweep: the engine's own check must do it
    second = engine.next_assignment(campaign, rater, later)
    assert second is not None and second.pk != first.pk
    assert Assignment.objects.get(pk=first.pk).status == Assignment.Status.EXPIRED
    check_counters(campaign)


def test_the_last_submit_leases_nothing(campaign):
    (rater,) = new_raters(1)
    submitted = engine.submit_and_lease(engine.next_assignment(campaign, rater, T0).pk, rater, 2, campaign, now=T0)
    while submitted.next_assignment_id is not None:
        submitted = engine.submit_and_lease(submitted.next_assignment_id, rater, 2, campaign, now=T0)
    assert Rating.objects.filter(rater=rater).count() == Item.objects.filter(campaign=campaign).count()
    assert engine.next_assignment(campaign, rater, T0) is None
    check_counters(campaign)


def test_a_refused_submit_leases_nothing(campaign):
    (rater,) = new_raters(1)
    first = engine.next_assignment(campaign, rater, T0)
    engine.exclude_rater(campaign, rater)
    with pytest.raises(SubmissionRefused) as refused:
        engine.submit_and_lease(first.pk, rater, 2, campaign, now=T0)
    assert refused.value.code == SubmissionRefused.EXCLUDED
    assert Assignment.objects.filter(rater=rater).count() == 1
    check_counters(campaign)


def test_someone_elses_assignment_is_not_found(campaign):
    owner, intruder = new_raters(2)
    first = engine.next_assignment(campaign, owner, T0)
    with pytest.raises(SubmissionRefused) as refused:
        engine.submit_and_lease(first.pk, intruder, 2, campaign, now=T0)
    assert refused.value.code == SubmissionRefused.NOT_FOUND
    assert not Assignment.objects.filter(rater=intruder).exists() and not Rating.objects.exists()


@pytest.mark.postgres
def test_the_live_lease_reads_back_as_the_orm_reads_it(campaign):
    (rater,) = new_raters(1)
    now = timezone.now()
    leased = engine.next_assignment(campaign, rater, now)
    read = rating_sql.live_lease(campaign.pk, rater.pk, now)
    orm = Assignment.objects.select_related("item__instance").get(pk=leased.pk)
    assert (read.pk, read.item_id, read.leased_at, read.lease_expires_at, read.sequence, read.status) == (
        orm.pk,
        orm.item_id,
        orm.leased_at,
        orm.lease_expires_at,
        orm.sequence,
        orm.status,
    )
    assert timezone.is_aware(read.leased_at)
    assert (read.item.text, read.item.instance.false_sent) == (orm.item.text, orm.item.instance.false_sent)
    assert read.item.needed == orm.item.needed  # a field not read loads on access
    assert rating_sql.live_lease(campaign.pk, rater.pk, orm.lease_expires_at) is None


def test_the_item_page_reads_the_lease_and_the_progress_in_one_statement(campaign, django_assert_num_queries):
    (rater,) = new_raters(1)
    now = timezone.now()
    assert engine.live_lease_and_progress(campaign, rater, now) == (None, (0, 8))
    leased = engine.next_assignment(campaign, rater, now)
    with django_assert_num_queries(1):
        lease, progress = engine.live_lease_and_progress(campaign, rater, now)
    assert lease.pk == leased.pk and lease.item.text == leased.item.text
    assert progress == rater_progress(campaign, rater) == (0, 8)
    engine.exclude_rater(campaign, rater)
    assert engine.live_lease_and_progress(campaign, rater, now) == (None, (0, 0))
