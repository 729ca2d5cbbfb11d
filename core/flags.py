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

from core.models import Assignment, Item, ItemFlag
from core.retry import retry_on_contention

MAX_NOTE_CHARS = 2000


class FlagRefused(Exception):
    """The assignment is not the rater's; nothing was written."""


def flag_item(assignment_id, rater, note=""):
    """Record the rater's report on their assignment's item and release the lease.

    Returns ``(flag, released)``; flagging twice keeps the first report and releases nothing
    more. Raises :class:`FlagRefused` when the assignment is not the rater's.
    """
    note = (note or "").strip()[:MAX_NOTE_CHARS]
    return retry_on_contention(partial(_flag, assignment_id, rater, note), retry_also=(IntegrityError,))


def _flag(assignment_id, rater, note):
    with transaction.atomic():
        assignment = (Assignment.objects.select_for_update(no_key=True)
                      .filter(pk=assignment_id, rater=rater).values_list("pk", "item_id").first())
        if assignment is None:
            raise FlagRefused("This item is not one of yours; nothing was recorded.")
        _, item_id = assignment
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
