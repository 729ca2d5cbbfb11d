"""Finding a finished metric run and a reusable one: manager methods of MetricRun that every interface uses."""

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from core.defaults import METRIC_RUN_REUSE_LOOKBACK
from evalapp.models import MetricRun, MetricRunQuerySet
from tests.metrics.builders import build_study_campaign

pytestmark = pytest.mark.django_db
REPORT = json.loads((Path(__file__).parent / "golden" / "human.report.json").read_text(encoding="utf-8"))
OPTIONS = {"seed": 1}


def run_of(campaign, status=MetricRun.Status.DONE, metrics=("chrf",), options=OPTIONS, fingerprint="f"):
    report = {**REPORT, "fingerprint": fingerprint} if status == MetricRun.Status.DONE else None
    return MetricRun.objects.create(
        campaign=campaign, metrics=list(metrics), options=options, status=status, report=report
    )


@pytest.fixture
def campaigns():
    return build_study_campaign(n_instances=2, n_systems=2, raters=1, name="one"), build_study_campaign(
        n_instances=2, n_systems=2, raters=1, name="two"
    )


@pytest.mark.postgres
def test_the_finished_run_is_the_newest_done_one_of_the_campaign(campaigns):
    one, two = campaigns
    assert MetricRun.objects.finished_run(one) is None
    older = run_of(one)
    newer = run_of(one)
    failed = run_of(one, MetricRun.Status.FAILED)
    running = run_of(one, MetricRun.Status.RUNNING)
    other = run_of(two)
    assert MetricRun.objects.finished_run(one) == newer
    assert MetricRun.objects.finished_run(one, older.pk) == older
    for refused in (failed, running, other):
        assert MetricRun.objects.finished_run(one, refused.pk) is None
    assert MetricRun.objects.finished_run(two) == other


@pytest.mark.postgres
def test_a_reusable_run_has_the_same_metrics_options_and_fingerprint(campaigns):
    one, two = campaigns
    same = run_of(one)
    assert MetricRun.objects.reusable_run(one, ["chrf"], OPTIONS, "f") == same
    assert MetricRun.objects.reusable_run(one, ["chrf", "sentbleu"], OPTIONS, "f") is None
    assert MetricRun.objects.reusable_run(one, ["chrf"], {"seed": 2}, "f") is None
    assert MetricRun.objects.reusable_run(one, ["chrf"], OPTIONS, "changed ratings") is None
    assert MetricRun.objects.reusable_run(two, ["chrf"], OPTIONS, "f") is None
    run_of(one, MetricRun.Status.FAILED)
    for _ in range(METRIC_RUN_REUSE_LOOKBACK):
        run_of(one, fingerprint="other")
    assert MetricRun.objects.reusable_run(one, ["chrf"], OPTIONS, "f") is None, "only the newest runs are searched"


def test_every_interface_finds_the_run_through_the_manager(campaigns, researcher, client, monkeypatch, tmp_path):
    """The pages, the API, ``export`` and ``metric_report`` all ask ``MetricRun.objects.finished_run``: a
    failed run or another campaign's is refused everywhere, the newest done run is served everywhere."""
    one, two = campaigns
    done = run_of(one)
    failed = run_of(one, MetricRun.Status.FAILED)
    other = run_of(two)
    asked = []
    real = MetricRunQuerySet.finished_run

    def spy(self, campaign, run_id=None):
        asked.append((campaign.pk, run_id))
        return real(self, campaign, run_id)

    monkeypatch.setattr(MetricRunQuerySet, "finished_run", spy)
    client.force_login(researcher)
    api = APIClient()
    api.force_authenticate(researcher)
    web_url = reverse("metrics:download", args=(one.pk, "csv"))
    api_url = f"/api/campaigns/{one.pk}/metric-report/?format=csv"
    out = tmp_path / "r.csv"

    def command(name, run_id):
        extra = {"run": run_id} if run_id is not None else {}
        if name == "export":
            call_command("export", "metric-report", campaign=one.name, format="csv", out=str(out), **extra)
        else:
            call_command("metric_report", campaign=one.name, format="csv", out=str(out), quiet=True, **extra)
        return out.read_text(encoding="utf-8")

    served = client.get(web_url).content.decode()
    assert api.get(api_url).content.decode() == served == command("export", None)
    assert command("metric_report", done.pk) == served
    for refused in (failed.pk, other.pk):
        assert client.get(f"{web_url}?run={refused}").status_code == 404
        assert api.get(f"{api_url}&run={refused}").status_code == 404
        for name in ("export", "metric_report"):
            with pytest.raises(CommandError, match=f"no finished metric (study with id|run) {refused}"):
                command(name, refused)
    assert client.get(reverse("metrics:campaign", args=(one.pk,))).status_code == 200
    assert {run_id for _, run_id in asked} == {None, done.pk, failed.pk, other.pk}
    assert len(asked) == 3 + 1 + 2 * 4 + 1  # every lookup of every interface went through the manager
    assert all(campaign == one.pk for campaign, _ in asked)
