"""The home page's checklist: each role's way through the app, one step per page, with where it stands.

An organizer loads the data, imports the submissions, creates a campaign, recruits raters,
watches and exports; a researcher picks a rated campaign, runs a metric study and reads its
report. Each step links to its page and says its state in a few words ("2 datasets", "campaign
'demo' 34% rated"), read in a handful of queries.
"""
from dataclasses import dataclass

from django.db.models import Count, Q
from django.urls import reverse

from core.models import Campaign, Dataset, Rater, System
from core.progress import with_progress
from evalapp.models import MetricRun, MetricScore


@dataclass(frozen=True)
class Step:
    title: str
    url: str
    state: str
    done: bool


def _plural(count, word, plural=None):
    return f"{count:,} {word if count == 1 else (plural or word + 's')}"


def _percent(campaign):
    expected = campaign.ratings_expected or 0
    return int(100 * (campaign.ratings_done or 0) / expected) if expected else 0


def _latest_campaign():
    """The newest campaign with its progress, or None."""
    return with_progress(Campaign.objects.order_by("-created_at", "-pk")).first()


def organizer_steps():
    """The organizer's six steps, from loading the data to exporting Table 6."""
    datasets = Dataset.objects.aggregate(datasets=Count("pk", distinct=True))["datasets"]
    systems = System.objects.filter(is_human=False).aggregate(
        systems=Count("pk"), submitted=Count("pk", filter=Q(submissions__isnull=False), distinct=True))
    campaigns = Campaign.objects.count()
    latest = _latest_campaign()
    steps = [
        Step("Load the data", reverse("data:index"),
             _plural(datasets, "dataset") if datasets else "no dataset yet: import the test set and its references",
             datasets > 0),
        Step("Import the teams' submissions", reverse("data:index"),
             f"{_plural(systems['systems'], 'system')}, {systems['submitted']:,} with a submission"
             if systems["systems"] else "no system yet", systems["systems"] > 0),
        Step("Create a campaign", reverse("campaigns:create"),
             f"{_plural(campaigns, 'campaign')}; the newest is '{latest.name}'" if latest else "no campaign yet",
             latest is not None),
    ]
    if latest is None:
        waiting = "create a campaign first"
        return steps + [Step("Recruit raters", reverse("campaigns:index"), waiting, False),
                        Step("Watch progress and rater quality", reverse("results:index"), waiting, False),
                        Step("Export Table 6", reverse("results:index"), waiting, False)]
    raters = Rater.objects.filter(assignments__campaign=latest).distinct().count()
    percent = _percent(latest)
    complete = bool(latest.ratings_expected) and latest.ratings_done >= latest.ratings_expected
    return steps + [
        Step("Recruit raters", reverse("campaigns:crowd", args=(latest.pk,)),
             f"{_plural(raters, 'rater')} in '{latest.name}' (lab accounts, Mechanical Turk or Prolific)", raters > 0),
        Step("Watch progress and rater quality", reverse("results:dashboard", args=(latest.pk,)),
             f"campaign '{latest.name}' {percent}% rated ({latest.ratings_done or 0:,} of "
             f"{latest.ratings_expected or 0:,} ratings)", complete),
        Step("Export Table 6", reverse("results:dashboard", args=(latest.pk,)) + "#downloads-title",
             "every rating is in: Table 6 is final" if complete else "a preview until every rating is in", complete),
    ]


def researcher_steps():
    """The researcher's three steps: a rated campaign, a metric study, its report (and their own metric)."""
    rated = with_progress(Campaign.objects.order_by("-created_at", "-pk")).filter(ratings_done__gt=0)
    campaign = rated.first()
    if campaign is None:
        waiting = "no campaign has ratings yet"
        return [Step("Pick a campaign with ratings", reverse("results:index"), waiting, False),
                Step("Run a metric study", reverse("metrics:index"), waiting, False),
                Step("Read the report, add your own metric", reverse("metrics:index"), waiting, False)]
    runs = MetricRun.objects.filter(campaign=campaign)
    finished = runs.filter(status=MetricRun.Status.DONE).count()
    imported = MetricScore.objects.filter(campaign=campaign, imported=True).values("metric").distinct().count()
    report = reverse("metrics:campaign", args=(campaign.pk,))
    return [
        Step("Pick a campaign with ratings", reverse("results:dashboard", args=(campaign.pk,)),
             f"{_plural(rated.count(), 'campaign')} with ratings; '{campaign.name}' is {_percent(campaign)}% rated",
             True),
        Step("Run a metric study", report,
             f"{_plural(runs.count(), 'run')} of '{campaign.name}', {finished:,} finished" if runs.exists()
             else f"no run of '{campaign.name}' yet", finished > 0),
        Step("Read the report, add your own metric", report,
             f"{_plural(imported, 'metric')} of your own imported" if finished else "start a run first",
             finished > 0),
    ]
