"""A rater corrects the score they have just submitted (undo of the last submission).

Decision: a slip of the finger ("2" meant "3") is fixed in place, not by rating again. The
rater's last rating in a campaign may take another score within
``CORRECTION_WINDOW_SECONDS`` of its submit, while the rater has rated nothing else there since
(in practice: while they are on the next item). The Rating row stays (same item, rater and
assignment), so capacity, progress and the distinct-raters invariant are untouched; a
:class:`~core.models.RatingCorrection` row records the score it had before, for the audit.

The same checks as a submit: the campaign open, the rating the rater's own and counting (an
excluded rater's or a rejected crowd session's ratings are frozen). The rater's row is locked
first, the lock order of the engine (rater, then assignments, then items), so a correction and
an exclusion of the same rater never interleave.
"""

from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.db import transaction
from django.utils import timezone

from core.defaults import CORRECTION_WINDOW_SECONDS, SCORE_MAX, SCORE_MIN
from core.models import Assignment, Campaign, Rater, Rating, RatingCorrection
from core.problems import Refusal
from core.retry import retry_on_contention

CORRECTION_WINDOW = timedelta(seconds=CORRECTION_WINDOW_SECONDS)


class CorrectionRefused(Refusal):
    """The score cannot be changed (``message`` is for the rater, ``code`` for programs); nothing was written."""

    NOT_FOUND = "not_found"
    NOT_RATED = "not_rated"
    INVALID = "invalid"
    CLOSED = "closed"
    EXCLUDED = "excluded"
    NOT_LAST = "not_last"
    TOO_LATE = "too_late"


@dataclass(frozen=True)
class Correction:
    """The outcome: the rating's score before and after; ``changed`` False when the score was already that."""

    assignment_id: int
    old_score: int
    new_score: int
    changed: bool


def correctable_until(rating):
    """The moment after which ``rating`` can no longer be corrected."""
    return rating.created_at + CORRECTION_WINDOW


def correct_last_rating(assignment_id, rater, campaign, score, now=None):
    """Give the rating of the rater's assignment ``assignment_id`` in ``campaign`` the score ``score``.

    It must be the rater's last rating there, saved at most ``CORRECTION_WINDOW_SECONDS`` ago.
    Returns a :class:`Correction`; raises :class:`CorrectionRefused`, writing nothing.
    """
    if not isinstance(score, int) or isinstance(score, bool) or not SCORE_MIN <= score <= SCORE_MAX:
        raise CorrectionRefused(
            f"A score is a whole number from {SCORE_MIN} to {SCORE_MAX}.", CorrectionRefused.INVALID
        )
    now = now or timezone.now()
    return retry_on_contention(partial(_correct, assignment_id, rater, campaign, score, now))


def _correct(assignment_id, rater, campaign, score, now):
    with transaction.atomic():
        list(Rater.objects.select_for_update(no_key=True).filter(pk=rater.pk).values_list("pk"))
        rating = (
            Rating.objects.select_for_update(no_key=True)
            .filter(assignment_id=assignment_id, rater=rater, campaign=campaign, source=Rating.Source.APP)
            .first()
        )
        if rating is None and Assignment.objects.filter(pk=assignment_id, rater=rater, campaign=campaign).exists():
            raise CorrectionRefused(
                "This item has no score of yours yet; submit one first.", CorrectionRefused.NOT_RATED
            )
        if rating is None:
            raise CorrectionRefused(
                "This rating is not one of yours; nothing was changed.", CorrectionRefused.NOT_FOUND
            )
        if Campaign.objects.filter(pk=campaign.pk).values_list("status", flat=True).first() != Campaign.Status.OPEN:
            raise CorrectionRefused("This campaign is closed; your score was not changed.", CorrectionRefused.CLOSED)
        if rating.excluded:
            raise CorrectionRefused(
                "This rating no longer counts; your score was not changed.", CorrectionRefused.EXCLUDED
            )
        last = (
            Rating.objects.filter(rater=rater, campaign=campaign)
            .order_by("-created_at", "-pk")
            .values_list("pk", flat=True)
            .first()
        )
        if last != rating.pk:
            raise CorrectionRefused(
                "You have rated another item since: only your last score can be changed.", CorrectionRefused.NOT_LAST
            )
        if now > correctable_until(rating):
            raise CorrectionRefused(
                f"A score can be changed for {CORRECTION_WINDOW_SECONDS // 60} minutes after "
                "it was saved; this one was not changed.",
                CorrectionRefused.TOO_LATE,
            )
        old = rating.score
        if old == score:
            return Correction(assignment_id, old, score, changed=False)
        Rating.objects.filter(pk=rating.pk).update(score=score)
        RatingCorrection.objects.create(rating=rating, old_score=old, new_score=score, corrected_at=now)
        return Correction(assignment_id, old, score, changed=True)
