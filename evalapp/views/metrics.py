"""URLs and views of the 'metrics' area: a campaign's metric study, its runs and downloads.

Who may do what: organizers and researchers (``results_viewer_required``) read every report
and may start a computation or import their own metric's scores: that is the researcher's
job (S10) and changes neither ratings nor results, only the metric scores of the campaign.
Raters get 403, anonymous users the login page. State changes are POST only (CSRF on);
every page is GET only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from core import roles
from core.defaults import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MAX_ID_DIGITS,
    MAX_MODEL_LAYER,
    MAX_REQUEST_RESAMPLES,
    MAX_STUDY_PERMUTATIONS,
    MAX_TOP_K,
    METRIC_RUN_POLL_MILLISECONDS,
    METRIC_RUN_REFRESH_SECONDS,
    RECENT_METRIC_RUNS,
    REQUEST_SEED_BOUND,
)
from core.models import Campaign
from core.problems import FormatError
from evalapp.compute.metric_study_report import MetricReport
from evalapp.formats import metric_report
from evalapp.formats.comve import SourceFile
from evalapp.formats.metric_scores import SEGMENT_LEVEL, SYSTEM_LEVEL
from evalapp.metrics.registry import METRICS
from evalapp.models import MetricRun
from evalapp.services import exports
from evalapp.services.metric_study import runs as metric_runs
from evalapp.services.metric_study.score_import import import_metric_scores, imported_metric_names
from evalapp.services.metric_study.texts import CORPUS_SCOPES, StudyError
from evalapp.views import common
from evalapp.views.common import NOT_FOUND, campaign_index, text_response


def _report_context(report: MetricReport) -> dict[str, Any]:
    """Tables and inline SVG charts of a stored report for the template."""
    top = report.top_k
    # the SVG is written by evalapp/formats/metric_report_svg.py, which escapes every text it writes
    return {
        "report": report,
        "summary_table": metric_report.summary_table(report),
        "systems_table": metric_report.system_table(report),
        "system_table": metric_report.correlation_table(report.figures, "system"),
        "top_k_table": metric_report.correlation_table(top.figures if top else None, "system"),
        "segment_table": metric_report.correlation_table(report.figures, "segment"),
        "comparison_table": metric_report.comparison_table(report),
        "pair_table": metric_report.pair_p_value_table(report),
        "ranking_table": metric_report.ranking_p_value_table(report),
        "scatter_plots": [(name, mark_safe(svg)) for name, svg in metric_report.scatter_plots(report)],
        "statistic_charts": [(title, mark_safe(svg)) for title, svg in metric_report.statistic_charts(report)],
        "histograms": [(name, mark_safe(svg)) for name, svg in metric_report.histogram_plots(report)],
        "summary_caption": "Per metric: value and #rank cluster (paired bootstrap, alpha "
        f"{metric_report.ranking_alpha(report)}), with the 95% bootstrap "
        "interval and the tie threshold ε below",
        "top_k": top,
    }


index = campaign_index("metrics/index.html")


@require_GET
@roles.results_viewer_required
def campaign_report(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The latest finished metric study of a campaign: tables, plots, downloads, runs, and the forms to
    start a new computation or import a metric.

    Security: organizers and researchers only (raters 403, anonymous users to login); GET only;
    the forms POST to views that check the role again.
    """
    campaign = get_object_or_404(Campaign.objects.select_related("dataset"), pk=campaign_id)
    run = MetricRun.objects.finished_run(campaign)
    context = {
        "campaign": campaign,
        "run": run,
        "runs": MetricRun.objects.filter(campaign=campaign).order_by("-created_at")[:RECENT_METRIC_RUNS],
        "formats": metric_report.FORMATS,
        "builtin_metrics": [(key, cls.description) for key, cls in METRICS.items()],
        "imported_metrics": imported_metric_names(campaign),
        "corpus_scopes": CORPUS_SCOPES,
        "default_bootstrap": DEFAULT_RESAMPLES,
        "max_bootstrap": MAX_REQUEST_RESAMPLES,
        "default_seed": DEFAULT_SEED,
        "levels": (SYSTEM_LEVEL, SEGMENT_LEVEL),
    }
    if run is not None:
        context.update(_report_context(run.study_report()))
    return render(request, "metrics/report.html", context)


def _int_option(request: HttpRequest, name: str, default: int | None, low: int, high: int) -> int | None:
    raw = request.POST.get(name, "").strip()
    if not raw:
        return default
    value = int(raw)  # ValueError is reported by the caller
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}")
    return value


@require_POST
@roles.results_viewer_required
def start(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Queue a metric study of the campaign as a background job; redirects to its progress page.

    Security: POST only with CSRF; organizers and researchers (raters 403). Resamples are
    capped as in the API (``core/defaults.py``) so one click cannot queue unbounded work.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    try:
        options = {
            "bootstrap": _int_option(request, "bootstrap", DEFAULT_RESAMPLES, 0, MAX_REQUEST_RESAMPLES),
            "permutations": _int_option(request, "permutations", None, 1, MAX_STUDY_PERMUTATIONS),
            "seed": _int_option(request, "seed", DEFAULT_SEED, 0, REQUEST_SEED_BOUND - 1),
            "top_k": _int_option(request, "top_k", None, 2, MAX_TOP_K),
            "corpus_scope": request.POST.get("corpus_scope") or None,
            "bertscore_model": request.POST.get("bertscore_model", "").strip() or None,
            "bertscore_layer": _int_option(request, "bertscore_layer", None, 0, MAX_MODEL_LAYER),
        }
        run = metric_runs.start_run(campaign, request.POST.getlist("metrics") or None, options, request.user)
    except (ValueError, StudyError) as error:
        messages.error(request, f"The computation was not started: {error}")
        return redirect("metrics:campaign", campaign_id=campaign.pk)
    return redirect("metrics:run", run_id=run.pk)


@require_POST
@roles.results_viewer_required
def import_scores(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Import a metric's scores from an uploaded CSV (``system,score`` or ``instance_id,system,score``).

    Security: POST only with CSRF; organizers and researchers (raters 403). The import is
    atomic: on any problem nothing is written and every problem is listed.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, "Choose a CSV file to import.")
        return redirect("metrics:campaign", campaign_id=campaign.pk)
    source = SourceFile(upload.name or "", upload.read())
    try:
        result = import_metric_scores(campaign, request.POST.get("metric", ""), request.POST.get("level", ""), source)
    except FormatError as error:
        for problem in error.problems:
            messages.error(request, str(problem))
        return redirect("metrics:campaign", campaign_id=campaign.pk)
    messages.success(
        request,
        f"Imported {result.scores} {result.level}-level scores of '{result.metric}'. "
        "Start a computation to see it in the report.",
    )
    return redirect("metrics:campaign", campaign_id=campaign.pk)


@require_GET
@roles.results_viewer_required
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    """Progress of one run: a bar and a status line that static/js/metric-run.js keeps up to date
    from the run's API resource, going on to the report when it is done (without JavaScript the
    page reloads itself every few seconds).

    Security: organizers and researchers only (raters 403); GET only.
    """
    run = get_object_or_404(MetricRun.objects.select_related("campaign"), pk=run_id)
    finished = run.status in MetricRun.FINISHED
    return render(
        request,
        "metrics/run.html",
        {
            "run": run,
            "finished": finished,
            "refresh_seconds": None if finished else METRIC_RUN_REFRESH_SECONDS,
            "poll_ms": METRIC_RUN_POLL_MILLISECONDS,
            "status_line": metric_runs.status_line(run),
            "time_left": metric_runs.time_left_line(metric_runs.seconds_left(run)),
            "percent": round(run.progress * 100),
        },
    )


@require_POST
@roles.results_viewer_required
def run_cancel(request: HttpRequest, run_id: int) -> HttpResponse:
    """Cancel a queued or running metric run (the API's twin: POST /api/metric-runs/<id>/cancel/).

    Security: organizers and researchers, as may start runs (raters 403); POST with CSRF only.
    Cancelling leaves nothing half-written (``metric_runs.cancel_run``): the run gets no report;
    a finished run is left as it is, with a message saying so.
    """
    run = get_object_or_404(MetricRun, pk=run_id)
    try:
        metric_runs.cancel_run(run, request.user)
    except metric_runs.NotCancellable as refusal:
        messages.warning(request, str(refusal))
    else:
        messages.success(
            request,
            "The computation was cancelled: it has no report, and nothing of it was kept "
            "but the metric scores already computed (the next run reuses them).",
        )
    return redirect("metrics:run", run_id=run.pk)


@require_GET
@roles.results_viewer_required
def download(request: HttpRequest, campaign_id: int, fmt: str) -> HttpResponse:
    """The latest finished report (or ``?run=ID``) as json, csv, latex or html, rendered again from
    the stored report by :func:`evalapp.services.exports.metric_report_of`.

    Security: organizers and researchers only (raters 403); GET only, read-only; CSV cells go
    through ``write_csv``; the HTML escapes every name.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    run_id = request.GET.get("run", "")
    if run_id and not (run_id.isdigit() and len(run_id) <= MAX_ID_DIGITS):
        return text_response("run must be the id of a finished run of this campaign", NOT_FOUND)
    run = MetricRun.objects.finished_run(campaign, int(run_id) if run_id else None)
    if run is None and run_id:
        raise Http404("no finished metric run with this id in this campaign")
    if run is None:
        return text_response("no finished metric study for this campaign yet", NOT_FOUND)
    try:
        return common.download(exports.metric_report_of(run, fmt))
    except exports.UnknownFormat as error:
        return text_response(str(error), NOT_FOUND)
