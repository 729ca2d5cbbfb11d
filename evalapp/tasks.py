"""Background tasks (django-tasks). Workers: ``python manage.py db_worker`` (django_tasks_db).

The tasks call the services; the services queue them by name through
``evalapp/services/background.py`` (each task registers there with ``@background.job``), never by
importing this module, so imports run one way.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache
from django_tasks import task

from core.defaults import RACING_PENDING_SECONDS
from core.models import Campaign
from evalapp.services import background
from evalapp.services.metric_study.runs import execute_run
from evalapp.services.results import fit_rater_effects
from evalapp.services.sequential import retire_decided_systems


@background.job(background.METRIC_RUN)
@task()
def run_metric_study(run_id: int) -> str:
    """Compute a queued MetricRun's metrics and report; returns its final status."""
    return execute_run(run_id)


@background.job(background.RATER_EFFECTS_FIT)
@task()
def fit_rater_effects_task(campaign_id: int, names: list[str]) -> None:
    """Fit Table 6's mixed model (``human_adjusted``) of a campaign's current ratings into the cache."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is not None:
        fit_rater_effects(campaign, names)


def _racing_key(campaign_id: int) -> str:
    return f"comve:racing-due:{campaign_id}"


def race_after_rating(sender: object, campaign_id: int, racing: bool | None = None, **kwargs: Any) -> None:
    """Racing as ratings arrive (receiver of ``core.events.rating_recorded``): a racing campaign's
    decided systems stop receiving items without anyone pressing a button.

    The check runs in the background worker, never on the rater's request; one check per campaign is
    pending at a time (``cache.add`` is atomic), and it reads every rating committed when it starts.
    Campaigns without racing cost nothing here (the engine passes the setting it already has).
    """
    if racing is False:
        return
    if racing is None and not Campaign.objects.filter(pk=campaign_id, racing=True).exists():
        return
    if cache.add(_racing_key(campaign_id), True, RACING_PENDING_SECONDS):
        race_campaign.enqueue(campaign_id)


@task()
def race_campaign(campaign_id: int) -> list[str]:
    """Retire the racing campaign's systems whose every pair is decided; the names retired."""
    cache.delete(_racing_key(campaign_id))
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    return [] if campaign is None else retire_decided_systems(campaign).systems
