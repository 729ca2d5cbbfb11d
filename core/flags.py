"""A rater reports an item as broken (S6): the report is kept and the rater skips the item.

Decision: a flag is also a skip. The rater's lease is released at once, so the item goes
back to the pool for other raters (who may rate it; the organizer reviews the flags), and,
like any assignment row that stays behind, it never comes back to this rater. The item keeps
needing its M ratings: one rater finding it broken is a report, not a verdict.

The release is the engine's lease-expiry transition (leased -> expired, slot returned) taken
early, with the same guarantees: a conditional UPDATE on the old status under the engine's
lock order (assignment, then item), retried on contention.
"""
from functools import partial

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from core import rating_sql
from core.defaults import NOTE_MAX_CHARS
from core.models import Assignment, Campaign, Item, ItemFlag
from core.problems import Refusal
from core.retry import retry_on_contention

MAX_NOTE_CHARS = NOTE_MAX_CHARS


class FlagRefused(Refusal):
    """The report cannot be taken (``message`` is for the rater, ``code`` for programs); nothing was written."""

    NOT_FOUND = "not_found"
    CLOSED = "closed"
    EXCLUDED = "excluded"
    NOT_LIVE = "not_live"


def flag_item(assignment_id, rater, campaign, note="", crowd_session_id=None, now=None):
    """Record the rater's report on the item of their live lease and release the lease.

    The checks of a submit: the campaign open, the rater not excluded, the lease the rater's own
    (of ``crowd_session_id``'s crowd session, None: outside any) and still live. Returns
    ``(flag, released)``; raises :class:`FlagRefused` otherwise, writing nothing.
    """
    note = (note or "").strip()[:MAX_NOTE_CHARS]
    now = now or timezone.now()
    return retry_on_contention(partial(_flag, assignment_id, rater, note, campaign, crowd_session_id, now),
                               retry_also=(IntegrityError,))


def _flag(assignment_id, rater, note, campaign, crowd_session_id, now):
    with transaction.atomic():
        # Lock order: the rater, then the assignment, then the item (core.engine).
        state = rating_sql.lock_rater_state(rater.pk, campaign.pk, now, crowd_session_id=crowd_session_id)
        locked = rating_sql.lock_assignment(assignment_id, rater.pk, campaign.pk, crowd_session_id)
        if locked is None:
            raise FlagRefused("This item is not one of yours; nothing was recorded.", FlagRefused.NOT_FOUND)
        item_id, _, status, _, campaign_status, _ = locked
        if campaign_status != Campaign.Status.OPEN:
            raise FlagRefused("This campaign is closed; your report was not recorded.", FlagRefused.CLOSED)
        if state is None or state[0] or status == Assignment.Status.EXCLUDED:
            raise FlagRefused("You are no longer part of this campaign; your report was not recorded.",
                              FlagRefused.EXCLUDED)
        if state[1] != assignment_id:
            raise FlagRefused("This item is no longer yours to report (you rated it, or its time ran out); "
                              "nothing was recorded.", FlagRefused.NOT_LIVE)
        flag, _ = ItemFlag.objects.get_or_create(item_id=item_id, rater=rater, defaults={"note": note})
        released = Assignment.objects.filter(pk=assignment_id, status=Assignment.Status.LEASED).update(
            status=Assignment.Status.EXPIRED)
        if released:
            Item.objects.filter(pk=item_id).update(active_count=F("active_count") - 1)
        return flag, bool(released)


# --- the organizer's view of the reports ----------------------------------------------------------

def campaign_flags(campaign):
    """Every report of a broken item in the campaign, newest first, with its item, statement and rater."""
    return (ItemFlag.objects.filter(item__campaign=campaign).select_related("item__instance", "rater__user")
            .order_by("-created_at", "-id"))


def flagged_items(campaign):
    """The reported items, one record each: item, instance, kind, how many reports and their notes (no names)."""
    items = {}
    for flag in sorted(campaign_flags(campaign), key=lambda flag: (flag.item_id, flag.pk)):
        entry = items.setdefault(flag.item_id, {"item": flag.item_id, "instance_id": flag.item.instance.external_id,
                                                "kind": flag.item.kind, "flags": 0, "notes": []})
        entry["flags"] += 1
        if flag.note:
            entry["notes"].append(flag.note)
    return list(items.values())
