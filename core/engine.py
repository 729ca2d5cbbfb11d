"""The assignment engine: which item a rater gets next, and which submissions count (S7).

Every invariant is enforced by the database, so it holds with any number of web, API or
worker processes, on SQLite and on PostgreSQL:

- capacity: ``Item.active_count`` (leased + done) only grows through a conditional UPDATE
  ``... WHERE active_count < needed``; check constraints keep done <= active <= needed;
- distinct raters: unique (item, rater) on Assignment and on Rating, and a Rating is one-to-one
  with its Assignment, so a doubled or retried submit cannot store a second rating;
- every change of an assignment's status is made under its row lock (or as an UPDATE
  conditional on the old status), so two workers never both act on one transition;
- a rater's own requests queue on a lock of their Rater row: two open tabs never lease twice,
  and an exclusion cannot interleave with a new lease; one live lease per rater per campaign is
  also a partial unique index (``assignment_one_lease_per_rater``), because on PostgreSQL the
  state read with that lock comes from the snapshot taken before the wait (a conflicting insert
  fails and is retried, and the retry resumes the lease the other request took).

On PostgreSQL the next item is taken with ``SELECT ... FOR NO KEY UPDATE SKIP LOCKED`` so that
concurrent raters take different items instead of queueing on one row. On SQLite transactions
start IMMEDIATE (settings), so writers queue. Lock timeouts, deadlocks and serialisation
failures are retried (:func:`core.retry.retry_on_contention`), never shown.
The statements a rating runs through are in :mod:`core.rating_sql`, as SQL.

Lock order, the same everywhere: rater, then assignments, then items.
"""

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import NamedTuple

from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from core import events, progress, rating_sql
from core.defaults import ORDER_WINDOW, RATER_ORDER_SEED_BOUND, SCORE_MAX, SCORE_MIN
from core.item_order import key_stride, rater_order_parameters
from core.models import Assignment, Campaign, Item, ItemFlag, Rater, RaterExclusion, Rating
from core.problems import Refusal
from core.retry import retry_on_contention

SWEEP_INTERVAL = timedelta(seconds=1)
_last_sweep: dict[int, datetime] = {}  # campaign pk -> ``now`` of this process's last lazy sweep


class SubmissionRefused(Refusal):
    """A rating that cannot be stored; ``message`` is written for the rater, ``code`` for programs."""

    NOT_FOUND = "not_found"
    NOT_NEEDED = "not_needed"
    EXCLUDED = "excluded"
    CLOSED = "closed"
    INVALID = "invalid"
    ALREADY_RATED = "already_rated"
    FLAGGED = "flagged"


def new_order_seed():
    """A random seed for a new rater's item order."""
    return secrets.randbelow(RATER_ORDER_SEED_BOUND)


def rater_for_user(user):
    """The user's Rater profile, created on first use with a random order seed."""
    rater, _ = Rater.objects.get_or_create(user=user, defaults={"order_seed": new_order_seed()})
    return rater


def is_excluded(campaign, rater):
    return RaterExclusion.objects.filter(campaign=campaign, rater=rater).exists()


# --- leasing -------------------------------------------------------------------------------


def next_assignment(campaign, rater, now=None, crowd_session_id=None):
    """The rater's current item in ``campaign``, leasing a new one when they hold none.

    Resumes a live lease (a reload shows the same item). Otherwise leases an item the rater
    never had, that still has room, preferring the items closest to completion (so the
    campaign fills evenly) and within those the rater's own random order. Returns None when
    nothing is left for this rater, when the rater is excluded, or when the campaign is closed.
    Expired leases go back to the pool lazily (at most every ``SWEEP_INTERVAL`` per process,
    and whenever the rater would otherwise get nothing), so no scheduled job is needed.
    """
    now = now or timezone.now()
    if campaign.status != Campaign.Status.OPEN:
        return None
    swept = _sweep_if_due(campaign, now)
    take = partial(_lease, campaign, rater, now, crowd_session_id)
    lease = retry_on_contention(take, retry_also=(IntegrityError,))
    if lease is None and not swept and expire_leases(campaign, now):
        lease = retry_on_contention(take, retry_also=(IntegrityError,))
    return None if lease is None else Assignment.objects.select_related("item__instance").get(pk=lease)


def _sweep_if_due(campaign, now):
    """Return the campaign's expired leases to the pool, at most every ``SWEEP_INTERVAL`` per process.

    Whether it swept (a cheap throttle: one dictionary look-up when it is not due).
    """
    last = _last_sweep.get(campaign.pk)
    if last is not None and timedelta(0) <= now - last < SWEEP_INTERVAL:
        return False
    _last_sweep[campaign.pk] = now
    expire_leases(campaign, now)
    return True


def _lease(campaign, rater, now, crowd_session_id=None):
    with transaction.atomic():
        return _lease_locked(campaign, rater, now, crowd_session_id=crowd_session_id)


def _lease_locked(campaign, rater, now, state=None, crowd_session_id=None):
    """The rater's live lease or a new one (an Assignment id, or None), inside the caller's transaction.

    One statement locks the rater (their requests queue here) and reads what decides the rest;
    ``state`` is that statement's result when the caller has already run it. In a crowd session
    only that session's lease is resumed, and a new lease belongs to it.
    """
    state = state or rating_sql.lock_rater_state(rater.pk, campaign.pk, now, crowd_session_id=crowd_session_id)
    if state is None:
        return None
    excluded, live, held, other_leases = state
    if excluded:
        return None
    if live is not None:
        return live
    if other_leases and _holds_lease_elsewhere(campaign, rater, now):
        return None
    item_id = _pick_item(campaign, rater, skip_locked=True)
    if item_id is None and connection.features.has_select_for_update_skip_locked:
        item_id = _pick_item(campaign, rater, skip_locked=False)
    if item_id is None:
        return None
    leased = rating_sql.lease_item(
        item_id, rater.pk, campaign.pk, now, now + timedelta(seconds=campaign.lease_seconds), held + 1, crowd_session_id
    )
    # Under the row lock the item cannot have filled up; the condition is the database's guarantee anyway.
    if leased is None:
        raise IntegrityError(f"item {item_id} filled up while locked")
    return leased


def _holds_lease_elsewhere(campaign, rater, now):
    """One live lease per rater per campaign (the ``assignment_one_lease_per_rater`` index): expire the
    rater's own timed-out leases in the campaign, under their row lock, and say whether a live one is
    left (another crowd session's), in which case nothing new is leased."""
    held_elsewhere = False
    for assignment_id, item_id, expires_at in Assignment.objects.filter(
        campaign=campaign, rater=rater, status=Assignment.Status.LEASED
    ).values_list("pk", "item_id", "lease_expires_at"):
        if expires_at <= now:
            _expire_in_transaction(assignment_id, item_id, now)
        else:
            held_elsewhere = True
    return held_elsewhere


def _pick_item(campaign, rater, skip_locked):
    """Lock the rater's best open item and return its id, or None.

    Best: among the open items closest to completion (the highest ``active_count``), the front
    of the campaign's key order, which follows the instances' random rating order
    (``core.item_order``): so the instances are completed in about that order, and every prefix
    of it is a simple random sample of the campaign (what the anytime-valid decisions read). Of
    the first ``ORDER_WINDOW`` such items the rater takes one of the frontmost instance, the first
    in their own permutation of the keys, so that raters see an instance's systems in different
    orders (and, arriving together, take different items), at the cost of an index probe and
    ``ORDER_WINDOW`` rows.

    With ``skip_locked`` rows other raters are taking right now are passed over; without it,
    the query waits for them (used only when every open item is locked at this instant).
    """
    multiplier, offset = rater_order_parameters(rater.order_seed)
    # A query of its own: as a subquery, SQLite reads every open item instead of one level.
    fullest = rating_sql.fullest_open_level(campaign.pk, rater.pk, campaign.raters_per_item)
    if fullest is None:
        return None
    item_id = rating_sql.lock_item_in_window(
        campaign.pk, rater.pk, fullest, key_stride(campaign.sample_size), multiplier, offset, ORDER_WINDOW, skip_locked
    )
    if item_id is not None:
        return item_id
    # Every item of the window is being taken right now: any open item will do.
    return rating_sql.lock_any_open_item(campaign.pk, rater.pk, campaign.raters_per_item, skip_locked)


def live_lease(campaign, rater, now=None, crowd_session_id=None):
    """The rater's unexpired leased assignment in ``campaign`` (with item and statement), or None;
    in a crowd session, that session's."""
    return rating_sql.live_lease(campaign.pk, rater.pk, now or timezone.now(), crowd_session_id)


def expire_leases(campaign=None, now=None):
    """Return expired leases (of one campaign, or all) to the pool; the number returned.

    The rows stay, marked expired, so the rater never gets the same item again; a late
    submit may still count if the item has room then (see :func:`submit_rating`).
    """
    now = now or timezone.now()
    stale = Assignment.objects.filter(status=Assignment.Status.LEASED, lease_expires_at__lte=now)
    if campaign is not None:
        stale = stale.filter(campaign=campaign)
    expired = 0
    for assignment_id, item_id in stale.order_by("pk").values_list("pk", "item_id"):
        expired += retry_on_contention(partial(_expire, assignment_id, item_id, now))
    return expired


def _expire(assignment_id, item_id, now):
    with transaction.atomic():
        return _expire_in_transaction(assignment_id, item_id, now)


def _expire_in_transaction(assignment_id, item_id, now):
    if not Assignment.objects.filter(
        pk=assignment_id, status=Assignment.Status.LEASED, lease_expires_at__lte=now
    ).update(status=Assignment.Status.EXPIRED):
        return 0  # submitted, excluded or expired by someone else meanwhile
    # A retired item stays full (core.flags.retire_instance), even for a lease taken while it retired.
    Item.objects.filter(pk=item_id, retired=False).update(active_count=F("active_count") - 1)
    return 1


# --- submitting ----------------------------------------------------------------------------


def _checked_score(score):
    if isinstance(score, bool) or not isinstance(score, int) or not SCORE_MIN <= score <= SCORE_MAX:
        raise SubmissionRefused(
            f"A score must be a whole number from {SCORE_MIN} to {SCORE_MAX}.", SubmissionRefused.INVALID
        )
    return score


def _checked_seconds(seconds):
    if seconds is None:
        return None
    try:
        seconds = float(seconds)
    except (TypeError, ValueError):
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise SubmissionRefused(
            "The time spent on an item must be a non-negative number of seconds.", SubmissionRefused.INVALID
        )
    return seconds


def submit_rating(assignment_id, rater, score, seconds=None, now=None, campaign=None, crowd_session_id=None):
    """Store the rater's score for their assignment; returns ``(rating, created)``.

    ``seconds`` is the time spent on the item, or a function of the (locked) assignment that
    returns it, so that a screen can measure from the lease without reading the assignment
    first. With ``campaign``, an assignment of another campaign counts as not the rater's; an
    assignment of another crowd session than ``crowd_session_id`` (None: none) is not theirs either.

    Idempotent: a repeated submit (double click, retried request) returns the stored rating
    with ``created=False`` and ignores the repeated score. Accepted while the lease is held,
    and after it expired if the item still has room then. Raises :class:`SubmissionRefused`
    when the item no longer needs the rating, the assignment is not the rater's (the message
    does not say whether it exists), the rater was excluded, the campaign is closed, the rater
    reported the item as broken, or the score is not an integer 0-3.
    """
    score, seconds, now = _checked_score(score), _checked_or_deferred(seconds), now or timezone.now()
    return retry_on_contention(
        partial(_submit, assignment_id, rater, score, seconds, now, campaign, crowd_session_id=crowd_session_id)
    )


class Submitted(NamedTuple):
    """What :func:`submit_and_lease` did: the rating, whether it is new, the rater's next assignment id."""

    rating: Rating
    created: bool
    next_assignment_id: int | None


def submit_and_lease(assignment_id, rater, score, campaign, seconds=None, now=None, crowd_session_id=None):
    """Store the score as :func:`submit_rating` does and lease the rater's next item, in one transaction.

    The rater screen's submit: one transaction and one commit instead of two. The rater's
    row is locked first, as every lease does. ``next_assignment_id`` is None when nothing
    is left for the rater right now; the caller then asks :func:`next_assignment`, which
    also returns expired leases to the pool.
    """
    score, seconds, now = _checked_score(score), _checked_or_deferred(seconds), now or timezone.now()
    if campaign.status == Campaign.Status.OPEN:
        _sweep_if_due(campaign, now)
    return retry_on_contention(
        partial(
            _submit, assignment_id, rater, score, seconds, now, campaign, lease=True, crowd_session_id=crowd_session_id
        ),
        retry_also=(IntegrityError,),
    )


def _checked_or_deferred(seconds):
    return seconds if callable(seconds) else _checked_seconds(seconds)


def _submit(assignment_id, rater, score, seconds, now, campaign, lease=False, crowd_session_id=None):
    try:
        with transaction.atomic():
            if not lease:
                return _store_rating(assignment_id, rater, score, seconds, now, campaign, crowd_session_id)
            # Lock order: the rater, then the assignment, then items (module docstring).
            state = rating_sql.lock_rater_state(
                rater.pk, campaign.pk, now, submitting=assignment_id, crowd_session_id=crowd_session_id
            )
            rating, created = _store_rating(assignment_id, rater, score, seconds, now, campaign, crowd_session_id)
            open_ = campaign.status == Campaign.Status.OPEN
            next_id = (
                _lease_locked(campaign, rater, now, state, crowd_session_id) if open_ and state is not None else None
            )
            return Submitted(rating, created, next_id)
    except IntegrityError:
        # An imported rating of the same (item, rater) is the only one that can be there.
        if not Rating.objects.filter(rater=rater, item__assignments__pk=assignment_id).exists():
            raise
        raise SubmissionRefused(
            "You have already rated this item; nothing new was recorded.", SubmissionRefused.ALREADY_RATED
        ) from None


def _store_rating(assignment_id, rater, score, seconds, now, campaign, crowd_session_id=None):
    locked = rating_sql.lock_assignment(
        assignment_id, rater.pk, campaign.pk if campaign is not None else None, crowd_session_id
    )
    if locked is None:
        raise SubmissionRefused("This item is not one of yours; nothing was recorded.", SubmissionRefused.NOT_FOUND)
    item_id, campaign_id, status, leased_at, campaign_status, needed = locked
    if status == Assignment.Status.DONE:
        return Rating.objects.get(assignment_id=assignment_id), False
    if status == Assignment.Status.EXCLUDED:
        raise SubmissionRefused(
            "You are no longer part of this campaign; your choice was not recorded.", SubmissionRefused.EXCLUDED
        )
    if campaign_status != Campaign.Status.OPEN:
        raise SubmissionRefused("This campaign is closed; your choice was not recorded.", SubmissionRefused.CLOSED)
    retaken = status == Assignment.Status.EXPIRED
    # A report of a broken item released the lease (expired): its reporter may not rate it after all.
    if retaken and ItemFlag.objects.filter(item_id=item_id, rater_id=rater.pk).exists():
        raise SubmissionRefused(
            "You reported this item as broken; your score for it was not recorded.", SubmissionRefused.FLAGGED
        )
    # An expired lease gave its slot back to the pool: take one again, if the item still has room.
    if retaken and not rating_sql.take_slot(item_id, also_done=True):
        raise SubmissionRefused(
            f"This item already has its {needed} ratings; your choice was not needed.", SubmissionRefused.NOT_NEEDED
        )
    if callable(seconds):
        seconds = _checked_seconds(
            seconds(
                rating_sql.from_row(
                    Assignment,
                    ("id", "item", "rater", "campaign", "status", "leased_at"),
                    (assignment_id, item_id, rater.pk, campaign_id, status, leased_at),
                )
            )
        )
    rating = rating_sql.record_rating(
        assignment_id, item_id, rater.pk, campaign_id, score, seconds, now, count=not retaken
    )
    rating.rater = rater
    if campaign is not None:
        rating.campaign = campaign
    racing = None if campaign is None else campaign.racing
    transaction.on_commit(partial(events.rating_recorded.send, sender=Rating, campaign_id=campaign_id, racing=racing))
    return rating, True


# --- exclusion -----------------------------------------------------------------------------


@dataclass
class ExclusionResult:
    exclusion: RaterExclusion
    created: bool
    ratings_excluded: int = 0
    items_reopened: int = 0


def exclude_rater(campaign, rater, by=None, reason=""):
    """Drop ``rater`` from ``campaign`` (S8): their ratings stop counting and their items reopen.

    Their ratings are marked excluded (kept for the record), their assignments become
    excluded, and every item they held or rated gets the slot back for a new rater. Excluding
    twice changes nothing the second time.
    """
    return retry_on_contention(partial(_exclude, campaign, rater, by, reason))


def _exclude(campaign, rater, by, reason):
    with transaction.atomic():
        list(Rater.objects.select_for_update(no_key=True).filter(pk=rater.pk).values_list("pk"))
        exclusion, created = RaterExclusion.objects.get_or_create(
            campaign=campaign, rater=rater, defaults={"excluded_by": by, "reason": reason}
        )
        if not created:
            return ExclusionResult(exclusion, created=False)
        # Imported ratings have no assignment but count in the items' counters all the same.
        ratings_excluded, items_reopened = _withdraw(
            Assignment.objects.filter(campaign=campaign, rater=rater),
            Rating.objects.filter(campaign=campaign, rater=rater, excluded=False),
            imported=Rating.objects.filter(campaign=campaign, rater=rater, excluded=False, assignment__isnull=True),
        )
        return ExclusionResult(exclusion, True, ratings_excluded, items_reopened)


def _withdraw(assignments, ratings, imported=None):
    """Inside the caller's transaction, with the raters locked: take ``assignments`` (and ``ratings``,
    and the assignment-less ``imported`` ratings) out of the campaign. The assignments become
    excluded, expired ones too (a late submit cannot re-take a slot); the ratings are marked excluded
    (kept for the record); every item they held or rated gets its slot back for a new rater.
    Returns ``(ratings excluded, items reopened)``.
    """
    held = list(
        assignments.select_for_update(no_key=True)
        .exclude(status=Assignment.Status.EXCLUDED)
        .values_list("pk", "item_id", "status")
    )
    leased = [item_id for _, item_id, status in held if status == Assignment.Status.LEASED]
    rated = [item_id for _, item_id, status in held if status == Assignment.Status.DONE]
    if imported is not None:
        rated += list(imported.values_list("item_id", flat=True))
    Assignment.objects.filter(pk__in=[pk for pk, _, _ in held]).update(status=Assignment.Status.EXCLUDED)
    ratings_excluded = ratings.update(excluded=True)
    # A retired item stays full (it takes no more ratings, and none of its ratings count anyway).
    open_items = Item.objects.filter(retired=False)
    open_items.filter(pk__in=leased).update(active_count=F("active_count") - 1)
    open_items.filter(pk__in=rated).update(active_count=F("active_count") - 1, done_count=F("done_count") - 1)
    return ratings_excluded, len(leased) + len(rated)


def reject_crowd_sessions(sessions):
    """Take the work of rejected crowd sessions out of their campaign: their ratings stop counting
    and their items reopen for other raters, as an exclusion does for a whole rater.

    Inside the caller's transaction (the reconciliation's), in the engine's lock order: the
    sessions' raters (by id), then their assignments, then the items. Returns
    ``(ratings excluded, items reopened)``.
    """
    if not sessions:
        return 0, 0
    session_ids = [session.pk for session in sessions]
    list(
        Rater.objects.select_for_update(no_key=True)
        .filter(pk__in={s.rater_id for s in sessions})
        .order_by("pk")
        .values_list("pk")
    )
    return _withdraw(
        Assignment.objects.filter(crowd_session_id__in=session_ids),
        Rating.objects.filter(assignment__crowd_session_id__in=session_ids, excluded=False),
    )


def live_lease_and_progress(campaign, rater, now=None, crowd_session_id=None):
    """:func:`live_lease` and the rater's progress read in one statement: what the item page shows."""
    lease, figures = rating_sql.live_lease_and_progress(
        campaign.pk, rater.pk, campaign.raters_per_item, now or timezone.now(), crowd_session_id
    )
    return lease, progress.from_figures(figures)
