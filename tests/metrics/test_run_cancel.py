"""A metric run's time left and its cancel button (issue 20): cancelling, through the web or the API,
at any moment of the run, leaves no report and no "done"; the estimate is elapsed x (1 - p) / p."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from core.defaults import METRIC_RUN_ETA_MIN_PROGRESS
from evalapp.models import MetricRun, MetricSegmentScore
from evalapp.services.metric_study import report as metric_study
from evalapp.services.metric_study import runs as metric_runs
from tests.metrics.builders import build_study_campaign

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]
FAST = ["comve_bleu", "chrf"]
SMALL = {"bootstrap": 20, "permutations": 20}


def queued_run():
    return MetricRun.objects.create(campaign=build_study_campaign(), metrics=FAST, options=SMALL)


def test_a_queued_run_cancelled_is_never_computed():
    run = queued_run()
    metric_runs.cancel_run(run)
    assert run.status == MetricRun.Status.CANCELLED and run.finished_at
    assert metric_runs.execute_run(run.pk) == MetricRun.Status.CANCELLED
    run.refresh_from_db()
    assert run.status == MetricRun.Status.CANCELLED and run.report is None and run.started_at is None
    with pytest.raises(metric_runs.NotCancellable):
        metric_runs.cancel_run(run)


def test_a_run_cancelled_while_it_computes_stops_and_writes_no_report(monkeypatch):
    """The real computation, cancelled at its first progress report: the worker stops at its next write."""
    run = queued_run()
    real = metric_study.build_report

    def cancelled_midway(*args, progress=None, **kwargs):
        def report(fraction, message):
            if MetricRun.objects.get(pk=run.pk).status == MetricRun.Status.RUNNING:
                metric_runs.cancel_run(MetricRun.objects.get(pk=run.pk))
            progress(fraction, message)

        return real(*args, progress=report, **kwargs)

    monkeypatch.setattr(metric_study, "build_report", cancelled_midway)
    monkeypatch.setattr(metric_runs, "METRIC_RUN_PROGRESS_WRITE_SECONDS", 0.0)
    assert metric_runs.execute_run(run.pk) == MetricRun.Status.CANCELLED
    run.refresh_from_db()
    assert run.status == MetricRun.Status.CANCELLED and run.report is None and run.progress < 1.0
    assert MetricRun.objects.finished_run(run.campaign) is None
    assert metric_runs.status_line(run) == "Cancelled."


def test_a_run_cancelled_after_its_last_progress_write_drops_its_report(monkeypatch):
    run = queued_run()
    real = metric_study.build_report

    def cancelled_at_the_end(*args, **kwargs):
        report = real(*args, **kwargs)
        metric_runs.cancel_run(MetricRun.objects.get(pk=run.pk))
        return report

    monkeypatch.setattr(metric_study, "build_report", cancelled_at_the_end)
    assert metric_runs.execute_run(run.pk) == MetricRun.Status.CANCELLED
    run.refresh_from_db()
    assert run.status == MetricRun.Status.CANCELLED and run.report is None
    # What stays is only the metric store's segment scores, each complete: the next run reuses them.
    assert MetricSegmentScore.objects.exists()
    again = MetricRun.objects.create(campaign=run.campaign, metrics=FAST, options=SMALL)
    monkeypatch.setattr(metric_study, "build_report", real)
    assert metric_runs.execute_run(again.pk) == MetricRun.Status.DONE


def test_the_time_left_is_elapsed_times_the_share_still_to_do():
    run = queued_run()
    now = timezone.now()
    run.status, run.started_at = MetricRun.Status.RUNNING, now - timedelta(seconds=60)
    run.progress = 0.25
    assert metric_runs.seconds_left(run, now) == pytest.approx(180.0)
    assert metric_runs.time_left_line(180.0) == "About 3 minutes left."
    assert metric_runs.time_left_line(42.0) == "About 40 seconds left."
    assert metric_runs.time_left_line(1.0) == "About 5 seconds left."
    assert metric_runs.time_left_line(60.0) == "About 1 minute left."
    assert metric_runs.time_left_line(None) == ""
    run.progress = METRIC_RUN_ETA_MIN_PROGRESS / 2
    assert metric_runs.seconds_left(run, now) is None, "too early to tell"
    run.progress, run.started_at = 0.5, now - timedelta(seconds=1)
    assert metric_runs.seconds_left(run, now) is None, "too early to tell"
    run.status = MetricRun.Status.DONE
    assert metric_runs.seconds_left(run, now) is None


@pytest.fixture
def running_run(client, django_user_model):
    """A run half done after 2 minutes, and a researcher logged in to see it."""
    from django.contrib.auth.models import Group

    researcher = django_user_model.objects.create_user(username="res", password="pw-res-12345")
    researcher.groups.add(Group.objects.get_or_create(name="researcher")[0])
    run = queued_run()
    MetricRun.objects.filter(pk=run.pk).update(
        status=MetricRun.Status.RUNNING, progress=0.5, started_at=timezone.now() - timedelta(seconds=120)
    )
    client.force_login(researcher)
    return run


def test_the_run_page_shows_the_time_left_and_cancels_by_post(client, running_run):
    run = running_run
    page = client.get(reverse("metrics:run", args=[run.pk])).content.decode()
    assert "About 2 minutes left." in page and "Cancel this computation" in page
    assert client.get(reverse("metrics:run_cancel", args=[run.pk])).status_code == 405
    response = client.post(reverse("metrics:run_cancel", args=[run.pk]), follow=True)
    page = response.content.decode()
    assert "The computation was cancelled" in page and "Cancelled by res." in page
    assert "Cancel this computation" not in page
    again = client.post(reverse("metrics:run_cancel", args=[run.pk]), follow=True)
    assert "already cancelled" in again.content.decode()


def test_the_api_cancels_and_reports_the_time_left(client, running_run):
    run = running_run
    body = client.get(f"/api/metric-runs/{run.pk}/").json()
    assert body["seconds_left"] == pytest.approx(120, abs=2) and body["time_left"] == "About 2 minutes left."
    response = client.post(f"/api/metric-runs/{run.pk}/cancel/", content_type="application/json")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert response.json()["seconds_left"] is None
    assert client.post(f"/api/metric-runs/{run.pk}/cancel/", content_type="application/json").status_code == 409
    assert metric_runs.execute_run(run.pk) == MetricRun.Status.CANCELLED
