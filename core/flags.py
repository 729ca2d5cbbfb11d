"""A rater reports an item as broken (S6): the report is kept and the rater skips the item.

Decision: a flag is also a skip. The rater's lease is released at once, so the item goes
back to the pool for other raters (who may rate it; the organizer reviews the flags), and,
like any assignment row that stays behind, it never comes back to this rater. The item keeps
needing its M ratings: one rater finding it broken is a report, not a verdict.

The release is the engine's lease-expiry transition (leased -> expired, slot returned) taken
early, with the same guarantees: a conditional UPDATE on the old status under the engine's
lock order (assignment, then item), retried on contention.
"""

from dataclasses import dataclass
from functools import partial

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from core import rating_sql
from core.defaults import NOTE_MAX_CHARS
from core.models import Assignment, Campaign, CampaignInstance, Item, ItemFlag, ItemOutput
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
    return retry_on_contention(
        partial(_flag, assignment_id, rater, note, campaign, crowd_session_id, now), retry_also=(IntegrityError,)
    )


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
            raise FlagRefused(
                "You are no longer part of this campaign; your report was not recorded.", FlagRefused.EXCLUDED
            )
        if state[1] != assignment_id:
            raise FlagRefused(
                "This item is no longer yours to report (you rated it, or its time ran out); nothing was recorded.",
                FlagRefused.NOT_LIVE,
            )
        flag, _ = ItemFlag.objects.get_or_create(item_id=item_id, rater=rater, defaults={"note": note})
        released = Assignment.objects.filter(pk=assignment_id, status=Assignment.Status.LEASED).update(
            status=Assignment.Status.EXPIRED
        )
        if released:
            Item.objects.filter(pk=item_id, retired=False).update(active_count=F("active_count") - 1)
        return flag, bool(released)


# --- the organizer's view of the reports ----------------------------------------------------------


def campaign_flags(campaign):
    """Every report of a broken item in the campaign, newest first, with its item, statement and rater."""
    return (
        ItemFlag.objects.filter(item__campaign=campaign)
        .select_related("item__instance", "rater__user")
        .order_by("-created_at", "-id")
    )


# --- the organizer's decisions on the reports -------------------------------------------------------


class ReviewRefused(Refusal):
    """A decision on a reported item that cannot be taken (``message`` for the organizer); nothing was written."""

    NOT_FOUND = "not_found"


@dataclass(frozen=True)
class Report:
    """One rater's report on an item, as the review queue shows it."""

    rater_id: int
    rater: str
    note: str
    created_at: object
    status: str


@dataclass(frozen=True)
class ReportedItem:
    """An item raters reported, with what the organizer needs to decide: the statement, the reason as
    raters saw it, the systems whose output it shows (shown only by the organizer's choice), the reports."""

    item_id: int
    instance_id: str
    statement: str
    reason: str
    kind: str
    systems: tuple
    reports: tuple
    ratings: int
    needed: int
    retired: bool

    @property
    def open(self):
        return any(report.status == ItemFlag.Status.OPEN for report in self.reports)

    @property
    def notes(self):
        return [report.note for report in self.reports if report.note]


def review_queue(campaign, include_resolved=False):
    """The reported items of the campaign, open reports first (oldest report first): the review queue."""
    flags = ItemFlag.objects.filter(item__campaign=campaign).select_related("item__instance", "rater__user")
    systems: dict[int, list[str]] = {}
    for item_id, name, marker in (
        ItemOutput.objects.filter(item__in=flags.values("item_id"))
        .values_list("item_id", "output__system__name", "output__system__marker")
        .order_by("output__system__name")
    ):
        systems.setdefault(item_id, []).append(f"{name}{marker}")
    items: dict[int, tuple[Item, list[Report]]] = {}
    for flag in flags.order_by("created_at", "pk"):
        items.setdefault(flag.item_id, (flag.item, []))[1].append(
            Report(flag.rater_id, str(flag.rater), flag.note, flag.created_at, flag.status)
        )
    queue = [
        ReportedItem(
            item.pk,
            item.instance.external_id,
            item.instance.false_sent,
            item.text,
            item.kind,
            tuple(systems.get(item.pk, ())),
            tuple(reports),
            item.done_count,
            item.needed,
            item.retired,
        )
        for item, reports in items.values()
    ]
    if not include_resolved:
        queue = [entry for entry in queue if entry.open]
    return sorted(queue, key=lambda entry: not entry.open)


@dataclass(frozen=True)
class Decision:
    """What a decision changed: reports resolved, the instance retired (with its items and the leases released)."""

    item_id: int
    instance_id: str
    reports_resolved: int
    items_retired: int = 0
    leases_released: int = 0
    already: bool = False


def _campaign_item(campaign, item_id):
    item = Item.objects.select_related("instance").filter(campaign=campaign, pk=item_id).first()
    if item is None:
        raise ReviewRefused(
            f"Item {item_id} is not an item of campaign '{campaign}'; nothing was changed.", ReviewRefused.NOT_FOUND
        )
    return item


def dismiss_reports(campaign, item_id, by=None, now=None):
    """Dismiss the open reports on an item: it is rated as it stands.

    The item stays in the pool, for any rater who has neither rated nor reported it: a rater who
    reported it keeps their expired assignment, so the engine never hands it to them again.
    Dismissing an item without open reports changes nothing (``already``).
    """
    now = now or timezone.now()
    item = _campaign_item(campaign, item_id)
    with transaction.atomic():
        resolved = ItemFlag.objects.filter(item=item, status=ItemFlag.Status.OPEN).update(
            status=ItemFlag.Status.DISMISSED, resolved_by=by, resolved_at=now
        )
    return Decision(item.pk, item.instance.external_id, resolved, already=resolved == 0)


def retire_instance(campaign, item_id, by=None, reason="", now=None):
    """Retire the instance of a reported item: its statement is broken.

    Every item of that instance in the campaign (each system's, and control items made from it)
    stops taking ratings: live leases on them are released (a late submit is refused as not
    needed) and the items are marked full and retired. Their ratings stay in the database but
    leave every system's mean, and the instance leaves the sample size N; Table 6 names it under
    the table. The reports on those items are resolved as retired. Retiring twice changes nothing.
    """
    now = now or timezone.now()
    reason = (reason or "").strip()[:NOTE_MAX_CHARS]
    item = _campaign_item(campaign, item_id)
    return retry_on_contention(partial(_retire, campaign, item, by, reason, now))


def _retire(campaign, item, by, reason, now):
    with transaction.atomic():
        sampled = (
            CampaignInstance.objects.select_for_update().filter(campaign=campaign, instance_id=item.instance_id).first()
        )
        if sampled is not None and sampled.retired:
            return Decision(item.pk, item.instance.external_id, 0, already=True)
        items = Item.objects.filter(campaign=campaign, instance_id=item.instance_id)
        # Lock order: assignments, then items (core.engine).
        leased = Assignment.objects.select_for_update(no_key=True).filter(
            item__in=items, status=Assignment.Status.LEASED
        )
        released = Assignment.objects.filter(pk__in=list(leased.values_list("pk", flat=True))).update(
            status=Assignment.Status.EXPIRED
        )
        retired = items.update(retired=True, active_count=F("needed"))
        # A lease taken between the read above and the items' update (their row locks) is released too;
        # from here on no lease can take a slot of these items (they are full).
        released += Assignment.objects.filter(item__in=items, status=Assignment.Status.LEASED).update(
            status=Assignment.Status.EXPIRED
        )
        if sampled is not None:
            sampled.retired_at, sampled.retired_by, sampled.retired_reason = now, by, reason
            sampled.save(update_fields=["retired_at", "retired_by", "retired_reason"])
        resolved = ItemFlag.objects.filter(item__in=items, status=ItemFlag.Status.OPEN).update(
            status=ItemFlag.Status.RETIRED, resolved_by=by, resolved_at=now
        )
        return Decision(item.pk, item.instance.external_id, resolved, retired, released)
