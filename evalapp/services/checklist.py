"""The home page's checklists: each role's way through the app, one step per page, with where it stands.

An organizer first loads the data, imports the submissions and creates a campaign (the set-up); then
every campaign has its own steps: recruit raters, review reported items, watch progress, export
Table 6, each in the state of that campaign (closing it makes Table 6 final). A researcher gets, for
every campaign that has ratings, a metric study and its report, in the state of that campaign's runs.
Each step links to its page and says its state in a few words, read in a handful of queries for all
the campaigns listed (at most ``HOME_MAX_CAMPAIGNS``, open ones first).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, cast

from django.db.models import Count, Max, Q, QuerySet
from django.urls import reverse

from core.defaults import HOME_MAX_CAMPAIGNS
from core.models import Assignment, Campaign, Dataset, ItemFlag, Rating, System
from core.progress import with_progress
from evalapp.models import MetricRun, MetricScore


class _Progress(TypedDict):
    ratings_done: int | None
    ratings_expected: int | None


if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    # A campaign as ``with_progress`` annotates it (its ratings done and expected; None without system items).
    ProgressCampaign = WithAnnotations[Campaign, _Progress]


@dataclass(frozen=True)
class Step:
    title: str
    url: str
    state: str
    done: bool


@dataclass(frozen=True)
class CampaignChecklist:
    """One campaign's own steps, under its name, status and how far it is rated."""

    name: str
    url: str
    status: str
    summary: str
    steps: tuple[Step, ...]

    @property
    def done(self) -> bool:
        return all(step.done for step in self.steps)


@dataclass(frozen=True)
class Home:
    """What the home page shows a role: the set-up steps (organizers), one checklist per campaign, and how
    many campaigns are left out (listed on the campaign pages)."""

    setup: tuple[Step, ...]
    campaigns: tuple[CampaignChecklist, ...]
    more: int = 0


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else (plural or word + 's')}"


def _percent(campaign: ProgressCampaign) -> int:
    expected = campaign.ratings_expected or 0
    return int(100 * (campaign.ratings_done or 0) / expected) if expected else 0


def _complete(campaign: ProgressCampaign) -> bool:
    expected = campaign.ratings_expected or 0
    return bool(expected) and (campaign.ratings_done or 0) >= expected


def _rated(campaign: ProgressCampaign) -> str:
    return f"{_percent(campaign)}% rated ({campaign.ratings_done or 0:,} of {campaign.ratings_expected or 0:,} ratings)"


def _listed(campaigns: QuerySet[Campaign]) -> tuple[list[ProgressCampaign], int]:
    """The campaigns to list, open ones first then the newest, and how many more there are."""
    ordered = with_progress(campaigns).order_by("-status", "-created_at", "-pk")  # "open" sorts after "closed"
    total = ordered.count()
    return cast("list[ProgressCampaign]", list(ordered[:HOME_MAX_CAMPAIGNS])), max(0, total - HOME_MAX_CAMPAIGNS)


def _counts(queryset: QuerySet[Any], field: str = "campaign_id") -> dict[int, int]:
    return dict(queryset.values(field).annotate(n=Count("pk")).values_list(field, "n"))


def _raters(ids: list[int]) -> dict[int, int]:
    """{campaign id: how many raters took part or are listed}: one query per source, merged per campaign."""
    people: dict[int, set[int]] = {}
    models: tuple[Any, ...] = (Assignment, Rating, Campaign.lab_raters.through)  # each has campaign and rater
    for model in models:
        for campaign_id, rater_id in (
            model.objects.filter(campaign_id__in=ids).values_list("campaign_id", "rater_id").distinct()
        ):
            people.setdefault(campaign_id, set()).add(rater_id)
    return {campaign_id: len(raters) for campaign_id, raters in people.items()}


def organizer_home() -> Home:
    """The set-up steps, then every campaign's own steps."""
    datasets = Dataset.objects.count()
    systems = System.objects.filter(is_human=False).aggregate(
        systems=Count("pk"), submitted=Count("pk", filter=Q(submissions__isnull=False), distinct=True)
    )
    campaigns, more = _listed(Campaign.objects.all())
    setup = (
        Step(
            "Load the data",
            reverse("data:index"),
            _plural(datasets, "dataset") if datasets else "no dataset yet: import the test set and its references",
            datasets > 0,
        ),
        Step(
            "Import the teams' submissions",
            reverse("data:index"),
            f"{_plural(systems['systems'], 'system')}, {systems['submitted']:,} with a submission"
            if systems["systems"]
            else "no system yet",
            systems["systems"] > 0,
        ),
        Step(
            "Create a campaign",
            reverse("campaigns:create"),
            _plural(len(campaigns) + more, "campaign") + " (each has its steps below)"
            if campaigns
            else "no campaign yet",
            bool(campaigns),
        ),
    )
    ids = [campaign.pk for campaign in campaigns]
    raters = _raters(ids)
    lab = _counts(Campaign.lab_raters.through.objects.filter(campaign_id__in=ids))
    reports = dict(
        ItemFlag.objects.filter(item__campaign_id__in=ids, status=ItemFlag.Status.OPEN)
        .values("item__campaign_id")
        .annotate(n=Count("item_id", distinct=True))
        .values_list("item__campaign_id", "n")
    )
    return Home(
        setup,
        tuple(_organizer_campaign(c, raters.get(c.pk, 0), lab.get(c.pk, 0), reports.get(c.pk, 0)) for c in campaigns),
        more,
    )


def _organizer_campaign(campaign: ProgressCampaign, raters: int, lab: int, reports: int) -> CampaignChecklist:
    complete, closed = _complete(campaign), campaign.status == Campaign.Status.CLOSED
    dashboard = reverse("results:dashboard", args=(campaign.pk,))
    if complete:
        table6 = "every rating is in: Table 6 is final"
    elif closed:
        table6 = f"closed at {_percent(campaign)}%: Table 6 is final, incomplete systems marked †"
    else:
        table6 = "a preview until every rating is in or you close the campaign"
    exported = campaign.table6_exported_at
    if complete or closed:
        table6 += f"; exported {exported:%Y-%m-%d %H:%M} UTC" if exported else "; not exported yet"
    steps = (
        Step(
            "Recruit raters",
            reverse("campaigns:raters", args=(campaign.pk,)),
            f"{_plural(raters, 'rater')} ({_plural(lab, 'lab account')}; or Mechanical Turk, Prolific)",
            raters > 0,
        ),
        Step(
            "Review reported items",
            reverse("campaigns:flags", args=(campaign.pk,)),
            f"{_plural(reports, 'item')} waiting for your review" if reports else "no report waiting",
            reports == 0,
        ),
        Step(
            "Watch progress and rater quality",
            dashboard,
            ("closed, " if closed else "") + _rated(campaign),
            complete or closed,
        ),
        Step("Export Table 6", dashboard + "#downloads-title", table6, (complete or closed) and exported is not None),
    )
    return CampaignChecklist(
        campaign.name, reverse("campaigns:detail", args=(campaign.pk,)), campaign.status, _rated(campaign), steps
    )


def researcher_home() -> Home:
    """Every campaign with ratings: its metric study and report, in the state of its own runs."""
    campaigns, more = _listed(Campaign.objects.all())
    campaigns = [campaign for campaign in campaigns if campaign.ratings_done]
    ids = [campaign.pk for campaign in campaigns]
    runs = {
        row["campaign_id"]: row
        for row in MetricRun.objects.filter(campaign_id__in=ids)
        .values("campaign_id")
        .annotate(
            runs=Count("pk"),
            finished=Count("pk", filter=Q(status=MetricRun.Status.DONE)),
            running=Count("pk", filter=Q(status__in=[MetricRun.Status.QUEUED, MetricRun.Status.RUNNING])),
            latest=Max("created_at"),
        )
    }
    imported = dict(
        MetricScore.objects.filter(campaign_id__in=ids, imported=True)
        .values("campaign_id")
        .annotate(n=Count("metric", distinct=True))
        .values_list("campaign_id", "n")
    )
    if not campaigns:
        waiting = "no campaign has ratings yet"
        setup = (Step("Pick a campaign with ratings", reverse("results:index"), waiting, False),)
        return Home(setup, (), 0)
    setup = (
        Step(
            "Pick a campaign with ratings",
            reverse("results:index"),
            f"{_plural(len(campaigns), 'campaign')} with ratings (each has its steps below)",
            True,
        ),
    )
    return Home(
        setup, tuple(_researcher_campaign(c, runs.get(c.pk, {}), imported.get(c.pk, 0)) for c in campaigns), more
    )


def _researcher_campaign(campaign: ProgressCampaign, runs: Mapping[str, Any], imported: int) -> CampaignChecklist:
    report = reverse("metrics:campaign", args=(campaign.pk,))
    count, finished, running = runs.get("runs", 0), runs.get("finished", 0), runs.get("running", 0)
    if not count:
        state = "no run yet"
    else:
        state = f"{_plural(count, 'run')}, {finished:,} finished" + (f", {running:,} running" if running else "")
    steps = (
        Step("Run a metric study", report, state, finished > 0),
        Step(
            "Read the report, add your own metric",
            report,
            f"{_plural(imported, 'metric')} of your own imported" if finished else "start a run first",
            finished > 0,
        ),
    )
    return CampaignChecklist(
        campaign.name, reverse("results:dashboard", args=(campaign.pk,)), campaign.status, _rated(campaign), steps
    )
