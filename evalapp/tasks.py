"""Background tasks (django-tasks). Workers: ``python manage.py db_worker`` (django_tasks_db)."""
from django_tasks import task

from evalapp.services.metric_runs import execute_run


@task()
def run_metric_study(run_id):
    """Compute a queued MetricRun's metrics and report; returns its final status."""
    return execute_run(run_id)
