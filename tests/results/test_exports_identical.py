"""Every download, through the web, the REST API and the command line with the same parameters:
the same bytes, the same file name and the same content type.

All three call :mod:`evalapp.services.exports`; this test holds them to it, for every export
and every format, Table 6's options included.
"""

import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from core.defaults import NO_STORE
from core.models import CrowdSession, Rater
from evalapp.models import MetricRun
from evalapp.services import exports
from evalapp.services.metric_study import report as metric_study
from tests.metrics.builders import build_study_campaign

pytestmark = pytest.mark.django_db

TABLE6_OPTIONS = [{}, {"bootstrap": 50, "seed": 7, "permutations": 200}, {"bootstrap": 50, "clusters": "wmt"}]


@pytest.fixture
def campaign():
    campaign = build_study_campaign(n_instances=6, n_systems=3, raters=3, human_reference=1, name="same-bytes")
    rater = Rater.objects.filter(ratings__campaign=campaign).first()
    CrowdSession.objects.create(
        campaign=campaign, rater=rater, platform=Rater.Platform.PROLIFIC, session_id="=SESSION1", task_id="STUDY1"
    )
    report = metric_study.build_report(campaign, ["comve_bleu", "chrf"], bootstrap=20, permutations=20, seed=3)
    report = report.to_json()
    MetricRun.objects.create(
        campaign=campaign, metrics=["comve_bleu", "chrf"], status=MetricRun.Status.DONE, progress=1.0, report=report
    )
    return campaign


@pytest.fixture
def clients(organizer):
    web, api = APIClient(), APIClient()
    web.force_login(organizer)
    api.force_authenticate(organizer)
    return web, api


def web_address(kind, campaign, fmt, options):
    run = MetricRun.objects.get(campaign=campaign)
    return {
        exports.TABLE6: reverse("results:table6", args=(campaign.pk, fmt)),
        exports.AGREEMENT: reverse("results:agreement", args=(campaign.pk, fmt)),
        exports.RATINGS: reverse("results:ratings", args=(campaign.pk, fmt)),
        exports.QUALITY: reverse("campaigns:quality_download", args=(campaign.pk, fmt)),
        exports.CROWD_SESSIONS: reverse("campaigns:crowd_sessions_download", args=(campaign.pk, fmt)),
        exports.METRIC_REPORT: reverse("metrics:download", args=(campaign.pk, fmt)) + f"?run={run.pk}",
    }[kind], options


def api_address(kind, campaign, fmt, options):
    run = MetricRun.objects.get(campaign=campaign)
    path = {
        exports.TABLE6: "table6/",
        exports.AGREEMENT: "agreement/",
        exports.RATINGS: "ratings/",
        exports.QUALITY: "raters/",
        exports.CROWD_SESSIONS: "crowd-sessions/",
        exports.METRIC_REPORT: "metric-report/",
    }[kind]
    query = {"format": fmt, **options}
    if kind == exports.METRIC_REPORT:
        query["run"] = run.pk
    return f"/api/campaigns/{campaign.pk}/{path}", query


def command_output(kind, campaign, fmt, options):
    out = io.StringIO()
    arguments = {f"--{name}": value for name, value in options.items()}
    call_command(
        "export",
        kind,
        "--campaign",
        campaign.name,
        "--format",
        fmt,
        *[str(part) for pair in arguments.items() for part in pair],
        stdout=out,
    )
    return out.getvalue().encode("utf-8")


def cases():
    for kind, formats in exports.FORMATS.items():
        for fmt in formats:
            for options in TABLE6_OPTIONS if kind == exports.TABLE6 else [{}]:
                yield pytest.param(kind, fmt, options, id=f"{kind}-{fmt}-{'-'.join(map(str, options.values()))}")
    yield pytest.param(exports.TABLE6, "latex", {"halves": "1"}, id="table6-latex-halves")


@pytest.mark.parametrize("kind, fmt, options", list(cases()))
def test_web_api_and_command_give_the_same_bytes(campaign, clients, kind, fmt, options):
    web, api = clients
    address, query = web_address(kind, campaign, fmt, options)
    from_web = web.get(address, query)
    from_api = api.get(
        *api_address(kind, campaign, fmt, {**options, **({"halves": "true"} if options.get("halves") else {})})
    )
    flags = {name: value for name, value in options.items() if name != "halves"}
    from_command = command_output(kind, campaign, fmt, flags) if not options.get("halves") else _halves(campaign)
    assert from_web.status_code == from_api.status_code == 200, (from_web.content[:300], from_api.content[:300])
    assert from_web.content == from_api.content == from_command
    assert from_web["Content-Disposition"] == from_api["Content-Disposition"]
    assert from_web["Content-Type"] == from_api["Content-Type"] == exports.content_type(fmt)
    assert from_web["Cache-Control"] == from_api["Cache-Control"] == NO_STORE


def _halves(campaign):
    out = io.StringIO()
    call_command("export_table6", "--campaign", campaign.name, "--format", "latex", "--halves", stdout=out)
    return out.getvalue().encode("utf-8")


def test_the_named_commands_give_the_export_too(campaign):
    table, agreement = io.StringIO(), io.StringIO()
    call_command(
        "export_table6",
        "--campaign",
        campaign.name,
        "--format",
        "csv",
        "--bootstrap",
        "50",
        "--seed",
        "7",
        "--permutations",
        "200",
        stdout=table,
    )
    call_command("agreement", "--campaign", campaign.name, "--json", stdout=agreement)
    assert table.getvalue() == exports.table6(campaign, "csv", bootstrap=50, seed=7, permutations=200).text
    assert agreement.getvalue() == exports.agreement(campaign).text


def test_latex_intervals_give_the_same_bytes_everywhere(campaign, clients):
    web, api = clients
    query = {"bootstrap": 50, "seed": 7, "permutations": 200}
    from_web = web.get(reverse("results:table6", args=(campaign.pk, "latex")), {**query, "latex_intervals": "1"})
    from_api = api.get(f"/api/campaigns/{campaign.pk}/table6/", {**query, "format": "latex", "latex_intervals": "true"})
    out = io.StringIO()
    call_command(
        "export_table6",
        "--campaign",
        campaign.name,
        "--format",
        "latex",
        "--latex-intervals",
        "--bootstrap",
        "50",
        "--seed",
        "7",
        "--permutations",
        "200",
        stdout=out,
    )
    generic = io.StringIO()
    call_command(
        "export",
        "table6",
        "--campaign",
        campaign.name,
        "--format",
        "latex",
        "--latex-intervals",
        "--bootstrap",
        "50",
        "--seed",
        "7",
        "--permutations",
        "200",
        stdout=generic,
    )
    assert from_web.status_code == from_api.status_code == 200
    assert from_web.content == from_api.content == out.getvalue().encode("utf-8") == generic.getvalue().encode("utf-8")
    assert b"{\\small [" in from_web.content
    assert from_web["Content-Disposition"] == from_api["Content-Disposition"]
