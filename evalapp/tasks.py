"""Background tasks (django-tasks). Workers: ``python manage.py db_worker`` (django_tasks_db)."""
from django_tasks import task

from evalapp.services.metric_runs import execute_run


@task()
def run_metric_study(run_id):
    """Compute a queued MetricRun's metrics and report; returns its final status."""
    return execute_run(run_id)


@task()
def fit_rater_effects_task(campaign_id, names):
    """Fit Table 6's mixed model (``human_adjusted``) of a campaign's current ratings into the cache."""
    from core.models import Campaign
    from evalapp.services.results import fit_rater_effects

    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is not None:
        fit_rater_effects(campaign, names)
