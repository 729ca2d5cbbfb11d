"""Metric runs as background jobs, the metrics pages and the two commands."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse

from evalapp.models import MetricRun, MetricScore
from evalapp.services.metric_study import runs as metric_runs
from tests.metrics.builders import build_study_campaign

pytestmark = pytest.mark.django_db
IMMEDIATE = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
FAST = ["comve_bleu", "chrf"]
SMALL = {"bootstrap": 20, "permutations": 20}


@override_settings(TASKS=IMMEDIATE)
@pytest.mark.postgres
def test_a_run_executes_in_process_and_stores_its_report():
    campaign = build_study_campaign()
    run = metric_runs.start_run(campaign, FAST, SMALL)
    assert run.status == MetricRun.Status.DONE and run.progress == 1.0 and run.task_id
    assert run.report["system_level"]["chrf"]["pearson"]["r"] is not None
    assert run.report["bootstrap"]["resamples"] == 20 and run.finished_at
    assert MetricRun.objects.finished_run(campaign) == run


@pytest.mark.postgres
def test_progress_is_recorded_as_the_run_advances(monkeypatch):
    campaign = build_study_campaign()
    run = MetricRun.objects.create(campaign=campaign, metrics=FAST, options=SMALL)
    seen = []
    original = metric_runs._set

    def spy(run_id, **fields):
        original(run_id, **fields)
        if "progress" in fields:
            seen.append((MetricRun.objects.get(pk=run_id).status, fields["progress"]))

    monkeypatch.setattr(metric_runs, "_set", spy)
    monkeypatch.setattr(metric_runs, "METRIC_RUN_PROGRESS_WRITE_SECONDS", 0.0)
    assert metric_runs.execute_run(run.pk) == MetricRun.Status.DONE
    fractions = [fraction for _, fraction in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(set(fractions)) > 3
    assert all(status == MetricRun.Status.RUNNING for status, _ in seen[:-1])


def test_a_run_without_ratings_fails_with_its_reason():
    campaign = build_study_campaign()
    campaign.ratings.all().delete()
    run = MetricRun.objects.create(campaign=campaign, metrics=FAST, options=SMALL)
    assert metric_runs.execute_run(run.pk) == MetricRun.Status.FAILED
    run.refresh_from_db()
    assert "no counted ratings" in run.message and run.report is None


@pytest.mark.postgres
def test_the_task_is_queued_for_a_worker():
    """With the database backend (the default) the run waits for ``manage.py db_worker``."""
    from django_tasks_db.models import DBTaskResult

    campaign = build_study_campaign()
    run = metric_runs.start_run(campaign, FAST, SMALL)
    assert run.status == MetricRun.Status.QUEUED
    queued = DBTaskResult.objects.get(id=run.task_id)
    assert queued.task_path == "evalapp.tasks.run_metric_study" and queued.args_kwargs["args"] == [run.pk]
    # what the worker does with it (run here in-process: the worker closes the test database's connection)
    from evalapp.tasks import run_metric_study

    assert run_metric_study.call(*queued.args_kwargs["args"]) == MetricRun.Status.DONE


def test_unknown_options_and_metrics_are_refused():
    campaign = build_study_campaign()
    with pytest.raises(ValueError, match="unknown option"):
        metric_runs.start_run(campaign, FAST, {"bootstraps": 3})
    with pytest.raises(ValueError, match="unknown metric"):
        metric_runs.start_run(campaign, ["nope"], SMALL)
    assert not MetricRun.objects.exists()


# --- pages ---------------------------------------------------------------------------------


def test_roles(client, rater_user, researcher):
    campaign = build_study_campaign()
    page = reverse("metrics:campaign", args=[campaign.pk])
    assert client.get(page).status_code == 302  # anonymous: to login
    client.force_login(rater_user)
    for url in (page, reverse("metrics:index"), reverse("metrics:download", args=[campaign.pk, "json"])):
        assert client.get(url).status_code == 403
    assert client.post(reverse("metrics:start", args=[campaign.pk])).status_code == 403
    client.force_login(researcher)
    assert client.get(page).status_code == 200
    assert client.get(reverse("metrics:start", args=[campaign.pk])).status_code == 405  # no state change on GET
    assert not MetricRun.objects.exists()


@override_settings(TASKS=IMMEDIATE)
@pytest.mark.parametrize("role", ["organizer", "researcher"])
def test_start_run_page_report_and_downloads(client, role, organizer, researcher):
    campaign = build_study_campaign()
    client.force_login(organizer if role == "organizer" else researcher)
    response = client.post(
        reverse("metrics:start", args=[campaign.pk]),
        {"metrics": FAST, "bootstrap": "10", "seed": "4", "corpus_scope": "campaign"},
    )
    run = MetricRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("metrics:run", args=[run.pk])
    client.force_login(researcher)  # the pages are the same for both roles
    assert run.options["seed"] == 4 and run.options["corpus_scope"] == "campaign"
    page = client.get(reverse("metrics:run", args=[run.pk])).content.decode()
    assert "See the report" in page and 'http-equiv="refresh"' not in page
    report_page = client.get(reverse("metrics:campaign", args=[campaign.pk])).content.decode()
    assert (
        report_page.count('one point per system"><title>') == 2
        and "Kendall τc" in report_page
        and "Williams" in report_page
    )
    assert report_page.count("<details>") == 5 and "Summary" in report_page and " style=" not in report_page
    for fmt, marker in (("json", '"system_level"'), ("csv", "table,subset"), ("latex", r"\toprule"), ("html", "<svg")):
        response = client.get(reverse("metrics:download", args=[campaign.pk, fmt]))
        assert response.status_code == 200 and marker in response.content.decode()
        assert response["Content-Disposition"].startswith("attachment")
    assert client.get(reverse("metrics:download", args=[campaign.pk, "pdf"])).status_code == 404


def test_running_page_refreshes_itself(client, researcher):
    campaign = build_study_campaign()
    run = MetricRun.objects.create(
        campaign=campaign, metrics=FAST, status=MetricRun.Status.RUNNING, progress=0.42, message="bootstrap"
    )
    client.force_login(researcher)
    page = client.get(reverse("metrics:run", args=[run.pk])).content.decode()
    assert 'http-equiv="refresh"' in page and 'value="42"' in page and "bootstrap" in page


def test_bad_options_are_reported_not_queued(client, researcher):
    campaign = build_study_campaign()
    client.force_login(researcher)
    response = client.post(reverse("metrics:start", args=[campaign.pk]), {"bootstrap": "999999"}, follow=True)
    assert "was not started" in response.content.decode() and not MetricRun.objects.exists()


def test_import_page(client, researcher, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    campaign = build_study_campaign()
    client.force_login(researcher)
    upload = SimpleUploadedFile("mine.csv", b"sys0,1\nsys1,2\nsys2,3\n", content_type="text/csv")
    response = client.post(
        reverse("metrics:import", args=[campaign.pk]),
        {"metric": "mine", "level": "system", "file": upload},
        follow=True,
    )
    assert "Imported 3 system-level scores" in response.content.decode()
    bad = SimpleUploadedFile("bad.csv", b"sys0,1\nsys1,x\n", content_type="text/csv")
    response = client.post(
        reverse("metrics:import", args=[campaign.pk]), {"metric": "mine", "level": "system", "file": bad}, follow=True
    )
    assert "bad.csv, line 2, column 2" in response.content.decode()
    assert MetricScore.objects.filter(metric="mine").count() == 3


# --- commands ------------------------------------------------------------------------------


def test_metric_report_command_every_format(tmp_path, capsys):
    campaign = build_study_campaign()
    for fmt in ("json", "csv", "latex", "html"):
        out = tmp_path / f"report.{fmt}"
        call_command(
            "metric_report",
            campaign=campaign.name,
            metrics="comve_bleu,chrf",
            format=fmt,
            out=str(out),
            bootstrap=10,
            permutations=10,
            top_k=3,
            quiet=True,
        )
        assert out.stat().st_size > 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["top_k"]["k"] == 3
    with pytest.raises(CommandError, match="unknown metric"):
        call_command("metric_report", campaign=campaign.name, metrics="rouge", quiet=True)
    with pytest.raises(CommandError, match="no campaign named"):
        call_command("metric_report", campaign="nope")


def test_import_metric_scores_command(tmp_path, capsys):
    campaign = build_study_campaign()
    path = tmp_path / "seg.csv"
    path.write_text("instance_id,system,score\n100,sys0,0.5\n101,sys1,0.7\n")
    call_command(
        "import_metric_scores", campaign=campaign.name, metric="seg", level="segment", file=str(path), json=True
    )
    assert json.loads(capsys.readouterr().out) == {"metric": "seg", "level": "segment", "scores": 2, "systems": 2}
    path.write_text("100,sys0\n")
    with pytest.raises(CommandError, match="line 1: expected 3 columns"):
        call_command("import_metric_scores", campaign=campaign.name, metric="seg", level="segment", file=str(path))


def test_the_status_line_says_each_thing_once(client, researcher):
    campaign = build_study_campaign()
    run = MetricRun.objects.create(campaign=campaign, metrics=FAST)
    assert metric_runs.status_line(run) == "Queued: waiting for a worker to start it."
    run.status, run.message = MetricRun.Status.RUNNING, "BERTScore: 4,120 of 13,854 sentences"
    assert metric_runs.status_line(run) == "Running: BERTScore: 4,120 of 13,854 sentences"
    run.status, run.message = MetricRun.Status.RUNNING, "running"
    assert metric_runs.status_line(run) == "Running."
    run.status, run.message = MetricRun.Status.DONE, "done"
    assert metric_runs.status_line(run) == "Done."
    run.status, run.message = MetricRun.Status.FAILED, "no counted ratings"
    assert metric_runs.status_line(run) == "Failed: no counted ratings"
    run.save()
    client.force_login(researcher)
    body = client.get(reverse("api:metric-run", args=[run.pk])).json()
    assert body["status_line"] == "Failed: no counted ratings"


@override_settings(TASKS=IMMEDIATE)
def test_progress_messages_count_what_is_done(monkeypatch):
    campaign = build_study_campaign()
    run = MetricRun.objects.create(campaign=campaign, metrics=FAST, options={"bootstrap": 50, "permutations": 20})
    messages = []
    original = metric_runs._set

    def spy(run_id, **fields):
        original(run_id, **fields)
        if "message" in fields:
            messages.append(fields["message"])

    monkeypatch.setattr(metric_runs, "_set", spy)
    monkeypatch.setattr(metric_runs, "METRIC_RUN_PROGRESS_WRITE_SECONDS", 0.0)
    metric_runs.execute_run(run.pk)
    assert any(m.startswith("ComVE BLEU: ") and m.endswith(" outputs") and " of " in m for m in messages), messages
    assert any(m.startswith("chrF: ") for m in messages)
    # every resample of a metric output at once: the bootstrap counts the outputs done
    assert any(m.startswith("Bootstrap of 50 resamples: 1 of ") and m.endswith(" metric outputs") for m in messages)
