"""The metric study through the API: start a run, follow it, download its report, import a metric."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from evalapp.formats import metric_report
from evalapp.models import MetricRun, MetricScore

# Also run against PostgreSQL (second pass of scripts/test.sh): the API over the real engine.
pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

IMMEDIATE = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
REPORT_TYPES = {"json": "application/json", "csv": "text/csv", "latex": "application/x-latex", "html": "text/html"}


def test_start_queues_a_run_and_its_progress_is_visible(world):
    client = world.client("researcher")
    response = client.post(
        f"/api/campaigns/{world.campaign.pk}/metric-runs/",
        {"metrics": ["comve_bleu"], "bootstrap": 10, "seed": 3},
        format="json",
    )
    assert response.status_code == 202, response.content
    run = response.json()
    assert run["status"] == "queued" and run["metrics"] == ["comve_bleu"]
    assert run["options"]["bootstrap"] == 10 and run["options"]["seed"] == 3
    assert MetricRun.objects.get(pk=run["id"]).created_by == world.users["researcher"]
    detail = client.get(f"/api/metric-runs/{run['id']}/").json()
    assert detail == run
    listed = client.get(f"/api/campaigns/{world.campaign.pk}/metric-runs/").json()
    assert [entry["id"] for entry in listed["results"]] == [run["id"], world.metric_run.pk]


@override_settings(TASKS=IMMEDIATE)
def test_a_run_done_in_process_serves_its_report(world):
    client = world.client("organizer")
    run = client.post(
        f"/api/campaigns/{world.campaign.pk}/metric-runs/",
        {"metrics": ["comve_bleu"], "bootstrap": 0, "permutations": 1},
        format="json",
    ).json()
    detail = client.get(f"/api/metric-runs/{run['id']}/").json()
    assert (detail["status"], detail["progress"]) == ("done", 1.0)
    report = client.get(f"/api/campaigns/{world.campaign.pk}/metric-report/").json()
    assert report["campaign"] == "pilot"
    assert {system["system"] for system in report["systems"]} == {"Human", "SysAlphaQZ", "SysBetaQZ"}


@pytest.mark.parametrize("fmt", REPORT_TYPES)
def test_report_downloads_are_the_service_renderings(world, fmt):
    response = world.client("researcher").get(f"/api/campaigns/{world.campaign.pk}/metric-report/?format={fmt}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith(REPORT_TYPES[fmt])
    run = MetricRun.objects.get(pk=world.metric_run.pk)
    assert response.content.decode() == metric_report.render(run.study_report(), fmt)
    assert f"run{run.pk}.{metric_report.EXTENSIONS[fmt]}" in response["Content-Disposition"]


def test_report_of_a_named_run_and_404s(world):
    client = world.client("researcher")
    url = f"/api/campaigns/{world.campaign.pk}/metric-report/"
    named = client.get(url, {"run": world.metric_run.pk})
    assert json.loads(named.content)["campaign"] == "pilot"
    assert client.get(url, {"run": world.metric_run.pk + 1000}).status_code == 404
    MetricRun.objects.all().delete()
    missing = client.get(url)
    assert missing.status_code == 404 and "no finished metric study" in missing.json()["detail"]


def test_unknown_metric_is_refused_and_nothing_queued(world):
    response = world.client("organizer").post(
        f"/api/campaigns/{world.campaign.pk}/metric-runs/", {"metrics": ["nonesuch"]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["problems"][0]["field"] == "metrics"
    assert "nonesuch" in response.json()["problems"][0]["message"]
    assert MetricRun.objects.count() == 1


def test_resamples_are_capped(world):
    response = world.client("organizer").post(
        f"/api/campaigns/{world.campaign.pk}/metric-runs/", {"bootstrap": 10**9}, format="json"
    )
    assert response.status_code == 400 and response.json()["problems"][0]["field"] == "bootstrap"


def test_metric_scores_import_and_refusal(world):
    client = world.client("researcher")
    url = f"/api/campaigns/{world.campaign.pk}/metric-scores/"
    good = b"instance_id,system,score\n1,SysAlphaQZ,0.5\n2,SysAlphaQZ,0.25\n1,SysBetaQZ,0.1\n"
    response = client.post(
        url, {"metric": "mine", "level": "segment", "file": SimpleUploadedFile("mine.csv", good)}, format="multipart"
    )
    assert response.status_code == 201
    assert response.json() == {"metric": "mine", "level": "segment", "scores": 3, "systems": 2}
    assert MetricScore.objects.filter(metric="mine", imported=True).count() == 3
    bad = b"instance_id,system,score\n1,Nobody,0.5\n"
    refused = client.post(
        url, {"metric": "other", "level": "segment", "file": SimpleUploadedFile("bad.csv", bad)}, format="multipart"
    )
    assert refused.status_code == 400
    problem = refused.json()["problems"][0]
    assert (problem["file"], problem["line"], problem["column"]) == ("bad.csv", 2, 2)
    assert not MetricScore.objects.filter(metric="other").exists()
