"""How far a campaign and a rater are: the one place progress is counted.

The organizer's dashboard, the campaign pages, the campaign list, the API and the rater's
screens (browser and API) all read progress here. Counts come from the items' counters
(``done_count``, ``needed``), which the engine moves in the same transaction as the ratings,
so they never disagree with the ratings that count: an excluded rater's ratings leave both.
An item shared by several systems' identical outputs counts once per system. A crowd worker's
progress is counted within their crowd session (:func:`rater_progress` with the session), with the
campaign's cap on items per session applied, the same on the screens, the crowd pages and the API.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, TypedDict

from django.db.models import Count, F, Q, QuerySet, Sum
from django.utils import timezone

from core import rating_sql
from core.models import (
    Assignment,
    Campaign,
    CampaignInstance,
    CrowdSession,
    Item,
    ItemFlag,
    ItemOutput,
    Rater,
    RaterExclusion,
    Rating,
)

#: What the rating path's SQL reads in one statement for a rater's progress (``rating_sql.progress_counts``):
#: done, held, had with room, excluded, with room, imported with room.
ProgressFigures = tuple[int, int, int, int, int, int]

# --- a rater -----------------------------------------------------------------------------------


class RaterProgress(NamedTuple):
    """``done`` ratings of the rater; ``total`` = done + held + items still open to them."""

    done: int
    total: int

    @property
    def finished(self) -> bool:
        """Nothing left to rate (also with nothing rated: 0 of 0), the rater's API's ``finished``."""
        return self.done >= self.total

    @property
    def completed(self) -> bool:
        """Finished with at least one rating: the work a crowd platform pays for is done, so the finished
        page shows the completion (or screening) code."""
        return 0 < self.total <= self.done

    def as_dict(self) -> RaterProgressDict:
        """The rater's API's form: ``{"done", "total", "finished"}``."""
        return {"done": self.done, "total": self.total, "finished": self.finished}


class RaterProgressDict(TypedDict):
    done: int
    total: int
    finished: bool


def rater_progress(campaign: Campaign, rater: Rater, crowd_session: CrowdSession | None = None) -> RaterProgress:
    """How far the rater is: (done, total available to this rater), e.g. "12 of 50"; within
    ``crowd_session`` when they rate in one (:func:`in_session`).

    The total shrinks as other raters fill items, since no item needs more than M ratings.
    """
    overall = from_figures(rating_sql.progress_counts(campaign.pk, rater.pk, campaign.raters_per_item))
    return overall if crowd_session is None else in_session(campaign, crowd_session, overall)


def in_session(campaign: Campaign, crowd_session: CrowdSession, overall: RaterProgress) -> RaterProgress:
    """The progress within a crowd session from the rater's ``overall`` progress in the campaign: the
    session's own ratings done, of those plus everything still open to the rater, at most the campaign's
    ``items_per_session``. (The rating screens pass the overall figures the engine read with the lease.)"""
    done = crowd_session.rating_count()
    total = done + overall.total - overall.done
    if campaign.items_per_session:
        total = min(total, campaign.items_per_session)
    return RaterProgress(done, max(total, done))


def session_full(campaign: Campaign, crowd_session: CrowdSession | None) -> bool:
    """Whether the crowd session has its ``items_per_session`` ratings (never outside a session or
    without a cap): the engine then leases it nothing more."""
    cap = campaign.items_per_session
    if crowd_session is None or not cap:
        return False
    return crowd_session.rating_count() >= cap


def from_figures(figures: ProgressFigures) -> RaterProgress:
    """A :class:`RaterProgress` from the figures the rating path's SQL reads in one statement."""
    done, held, had_with_room, excluded, with_room, imported_with_room = figures
    if excluded:
        return RaterProgress(done, done)
    # Items with room less those the rater had: counted from the rater's side, not per open item.
    still_open = with_room - had_with_room - imported_with_room
    return RaterProgress(done, done + held + still_open)


# --- a campaign --------------------------------------------------------------------------------


class _RatingsAgainstExpected:
    """``ratings`` collected of ``expected``: complete when all are in, and the fraction done."""

    ratings: int
    expected: int

    @property
    def complete(self) -> bool:
        return self.ratings >= self.expected > 0

    @property
    def fraction(self) -> float:
        return self.ratings / self.expected if self.expected else 0.0

    @property
    def percent(self) -> int:
        return int(self.fraction * 100)


@dataclass
class SystemProgress(_RatingsAgainstExpected):
    system_id: int
    name: str
    marker: str
    is_human: bool
    items: int
    ratings: int
    expected: int


@dataclass
class CampaignProgress(_RatingsAgainstExpected):
    """Ratings collected against ratings needed, overall and per system (controls apart),
    who is rating right now, and how many items raters reported as broken."""

    items: int = 0
    ratings: int = 0
    expected: int = 0
    control_items: int = 0
    control_ratings: int = 0
    control_expected: int = 0
    leased: int = 0
    active_raters: int = 0
    raters: int = 0
    flagged_items: int = 0  # items with a report waiting for the organizer's review
    retired_instances: int = 0
    systems: list[SystemProgress] = field(default_factory=list)
    # Crowd sessions by what the platform's records say of them: {status: {"sessions", "ratings"}}.
    crowd: dict[str, dict[str, int]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["complete"], data["fraction"] = self.complete, self.fraction
        for row, system in zip(data["systems"], self.systems):
            row["complete"], row["fraction"] = system.complete, system.fraction
        return data


def campaign_progress(campaign: Campaign, now: datetime | None = None) -> CampaignProgress:
    """Totals of the campaign: items, ratings done/expected, live leases, raters, flagged items, per system."""
    now = now or timezone.now()
    progress = CampaignProgress()
    for kind, items, ratings, expected in (
        Item.objects.filter(campaign=campaign, retired=False)
        .values("kind")
        .annotate(item_count=Count("pk"), rating_sum=Sum("done_count"), expected=Sum("needed"))
        .values_list("kind", "item_count", "rating_sum", "expected")
    ):
        if kind == Item.Kind.SYSTEM:
            progress.items, progress.ratings, progress.expected = items, ratings, expected
        else:
            progress.control_items, progress.control_ratings, progress.control_expected = items, ratings, expected
    live = Assignment.objects.filter(campaign=campaign).live(now)
    progress.leased = live.count()
    progress.active_raters = live.values("rater").distinct().count()
    progress.raters = Rating.objects.filter(campaign=campaign, excluded=False).values("rater").distinct().count()
    progress.flagged_items = (
        ItemFlag.objects.filter(item__campaign=campaign, status=ItemFlag.Status.OPEN).values("item").distinct().count()
    )
    progress.retired_instances = CampaignInstance.objects.filter(campaign=campaign).retired().count()
    progress.crowd = crowd_session_counts(campaign)
    per_system: dict[int, tuple[int, int | None, int | None]] = {
        system_id: (items, ratings, expected)
        for system_id, items, ratings, expected in ItemOutput.objects.filter(campaign=campaign, item__retired=False)
        .values("output__system")
        .annotate(item_count=Count("pk"), rating_sum=Sum("item__done_count"), expected=Sum("item__needed"))
        .values_list("output__system", "item_count", "rating_sum", "expected")
    }
    for system in campaign.systems.order_by("-is_human", "name"):
        items, ratings, expected = per_system.get(system.pk, (0, 0, 0))
        progress.systems.append(
            SystemProgress(system.pk, system.name, system.marker, system.is_human, items, ratings or 0, expected or 0)
        )
    return progress


def crowd_session_counts(campaign: Campaign) -> dict[str, dict[str, int]]:
    """The campaign's crowd sessions and their ratings, per verification status (every status listed)."""
    counts = {status: {"sessions": 0, "ratings": 0} for status in CrowdSession.Status.values}
    for row in (
        CrowdSession.objects.filter(campaign=campaign)
        .values("status")
        .annotate(
            sessions=Count("pk", distinct=True),
            ratings=CrowdSession.ratings_expression(),
        )
    ):
        counts[row["status"]] = {"sessions": row["sessions"], "ratings": row["ratings"]}
    return counts


# --- why a campaign does not finish ---------------------------------------------------------------


@dataclass(frozen=True)
class Stall:
    """Why a campaign is below 100%: ``waiting`` items have room, but every one of the campaign's
    ``raters`` (not excluded) has rated, reported or held each of them, so none can take it;
    ``reported`` of them carry an open report. ``stuck`` when no rater can progress at all
    (no live lease, and every item with room is waiting)."""

    waiting: int
    raters: int
    reported: int
    with_room: int
    leased: int

    @property
    def stuck(self) -> bool:
        return self.leased == 0 and self.waiting == self.with_room

    @property
    def explanation(self) -> str:
        """The reason in words, e.g. "2 items need a rater who has not seen them: 3 of 3 raters have
        rated or reported them"."""
        items = "1 item needs" if self.waiting == 1 else f"{self.waiting:,} items need"
        if self.raters == 0:
            return f"{items} a rater, and no rater has taken part yet."
        them = "it" if self.waiting == 1 else "them"
        raters = "1 rater has" if self.raters == 1 else f"{self.raters} of {self.raters} raters have"
        text = f"{items} a rater who has not seen {them}: {raters} rated or reported {them}."
        if self.reported:
            which = (
                "It is" if self.waiting == 1 else f"{self.reported:,} of them {'is' if self.reported == 1 else 'are'}"
            )
            text += f" {which} reported as broken and waiting for your review."
        return text


def campaign_stall(campaign: Campaign, now: datetime | None = None) -> Stall | None:
    """A :class:`Stall` when some open item can be rated by none of the campaign's raters; None when every
    item with room has a rater who may still take it (or the campaign is complete or closed).

    The campaign's raters are those who hold or held an assignment in it and the lab accounts listed on
    it, less those excluded. A rater "has seen" an item when they hold or held an assignment of it
    (rated, reported, or let the lease expire) or have an imported rating of it: the engine never
    hands them that item again.
    """
    if campaign.status != campaign.Status.OPEN:
        return None
    now = now or timezone.now()
    room = Item.objects.filter(campaign=campaign, retired=False, active_count__lt=F("needed"))
    with_room = set(room.values_list("pk", flat=True))
    if not with_room:
        return None
    excluded = set(RaterExclusion.objects.filter(campaign=campaign).values_list("rater_id", flat=True))
    raters = (
        set(Assignment.objects.filter(campaign=campaign).values_list("rater_id", flat=True).distinct())
        | set(campaign.lab_raters.values_list("pk", flat=True))
        | set(Rating.objects.filter(campaign=campaign).values_list("rater_id", flat=True).distinct())
    )
    raters -= excluded
    seen: dict[int, set[int]] = {}
    had = list(Assignment.objects.filter(item__in=room, rater__in=raters).values_list("item_id", "rater_id")) + list(
        Rating.objects.filter(item__in=room, rater__in=raters, assignment__isnull=True).values_list(
            "item_id", "rater_id"
        )
    )
    for item_id, rater_id in had:
        seen.setdefault(item_id, set()).add(rater_id)
    waiting = {item_id for item_id in with_room if len(seen.get(item_id, ())) >= len(raters)}
    if not waiting:
        return None
    reported = (
        ItemFlag.objects.filter(item_id__in=waiting, status=ItemFlag.Status.OPEN).values("item_id").distinct().count()
    )
    leased = Assignment.objects.filter(campaign=campaign).live(now).count()
    return Stall(len(waiting), len(raters), reported, len(with_room), leased)


def with_progress(campaigns: QuerySet[Campaign]) -> QuerySet[Campaign]:
    """``campaigns`` (a queryset) annotated with ``ratings_done`` and ``ratings_expected`` of their system
    items: the progress of many campaigns in one query (the campaign list, the home page)."""
    system_items = Q(items__kind=Item.Kind.SYSTEM, items__retired=False)
    return campaigns.annotate(
        ratings_done=Sum("items__done_count", filter=system_items),
        ratings_expected=Sum("items__needed", filter=system_items),
    )
