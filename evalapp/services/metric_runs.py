"""Metric studies as background jobs: a MetricRun is queued, a worker runs it, its progress is visible.

``start_run`` is what the web page, the API and scripts call; ``execute_run`` is what the task
(evalapp.tasks) runs in a worker process (``manage.py db_worker``), or in-process with the
immediate backend. Progress is written with conditional UPDATEs outside any transaction, so a
page polling the run sees it advance.
"""
import logging
import time

from django.db import transaction
from django.utils import timezone

from core.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED, METRIC_STUDY_PERMUTATIONS
from core.problems import FormatError
from evalapp.metrics.bertscore import BertScoreUnavailable
from evalapp.models import MetricRun
from evalapp.services import metric_study

logger = logging.getLogger(__name__)
PROGRESS_WRITE_SECONDS = 1.0  # at most one progress UPDATE per second
OPTION_DEFAULTS = {"seed": DEFAULT_SEED, "bootstrap": DEFAULT_RESAMPLES, "top_k": None,
                   "permutations": METRIC_STUDY_PERMUTATIONS,
                   "corpus_scope": metric_study.DEFAULT_CORPUS_SCOPE, "bertscore_model": None,
                   "bertscore_layer": None}
USER_ERRORS = (metric_study.StudyError, BertScoreUnavailable, FormatError)


def clean_options(options):
    """Known options with their defaults; an unknown option is refused."""
    unknown = set(options) - set(OPTION_DEFAULTS)
    if unknown:
        raise metric_study.StudyError(f"unknown option(s): {', '.join(sorted(unknown))}")
    return {**OPTION_DEFAULTS, **{k: v for k, v in options.items() if v is not None}}


def start_run(campaign, metrics=None, options=None, user=None):
    """Queue a metric study of ``campaign``; returns the MetricRun (its task id is stored)."""
    from evalapp.tasks import run_metric_study

    options = clean_options(options or {})
    builtin, imported = metric_study.choose_metrics(campaign, metrics)  # refuses unknown names now
    with transaction.atomic():
        run = MetricRun.objects.create(campaign=campaign, metrics=builtin + imported, options=options,
                                       created_by=user if user is not None and user.is_authenticated else None,
                                       message="")
        result = run_metric_study.enqueue(run.pk)
        MetricRun.objects.filter(pk=run.pk).update(task_id=str(result.id))
    run.refresh_from_db()
    return run


REUSE_LOOKBACK = 50  # finished runs of a campaign searched for one with the same settings


def identical_run(campaign, metrics, options, fingerprint):
    """A finished run with the same metrics and options whose report saw the same ratings and texts."""
    runs = MetricRun.objects.filter(campaign=campaign, status=MetricRun.Status.DONE).order_by("-created_at")
    for run in runs[:REUSE_LOOKBACK]:
        if run.metrics == metrics and run.options == options and (run.report or {}).get("fingerprint") == fingerprint:
            return run
    return None


def report_for(campaign, metrics=None, options=None, user=None, fresh=False, progress=None):
    """The report of a study, computed here or reused: (finished MetricRun, reused?).

    A finished run with the same metrics and options whose ratings, texts and imported scores
    are unchanged is reused as it is (another format renders its stored figures); otherwise
    the report is computed (metric scores come from the store when they are there) and kept
    as a finished run. ``fresh`` computes it again in any case.
    """
    options = clean_options(options or {})
    builtin, imported = metric_study.choose_metrics(campaign, metrics)
    names = builtin + imported
    if not fresh:
        run = identical_run(campaign, names, options, metric_study.study_fingerprint(campaign))
        if run is not None:
            return run, True
    report = metric_study.build_report(
        campaign, names, seed=options["seed"], bootstrap=options["bootstrap"], top_k=options["top_k"],
        permutations=options["permutations"], corpus_scope=options["corpus_scope"],
        bertscore_options={"model": options["bertscore_model"], "layer": options["bertscore_layer"]},
        progress=progress)
    run = MetricRun.objects.create(campaign=campaign, metrics=names, options=options, status=MetricRun.Status.DONE,
                                   progress=1.0, report=report, finished_at=timezone.now(),
                                   created_by=user if user is not None and user.is_authenticated else None)
    return run, False


def _set(run_id, **fields):
    MetricRun.objects.filter(pk=run_id).update(**fields)


def execute_run(run_id):
    """Run a queued MetricRun to the end, recording progress, the report or the failure."""
    run = MetricRun.objects.select_related("campaign", "campaign__dataset").get(pk=run_id)
    if run.status not in (MetricRun.Status.QUEUED, MetricRun.Status.RUNNING):
        return run.status
    _set(run_id, status=MetricRun.Status.RUNNING, progress=0.0, message="loading the texts and ratings")
    options = clean_options(run.options)
    last_write = [0.0]

    def progress(fraction, message):
        now = time.monotonic()
        if now - last_write[0] >= PROGRESS_WRITE_SECONDS or fraction >= 1.0:
            last_write[0] = now
            _set(run_id, progress=min(max(float(fraction), 0.0), 1.0), message=message[:200])

    bertscore = {"model": options["bertscore_model"], "layer": options["bertscore_layer"]}
    try:
        same = identical_run(run.campaign, run.metrics, options, metric_study.study_fingerprint(run.campaign))
        if same is not None:  # nothing changed since that run: its report is this one's
            _set(run_id, status=MetricRun.Status.DONE, progress=1.0, message="", report=same.report,
                 finished_at=timezone.now())
            return MetricRun.Status.DONE
        report = metric_study.build_report(
            run.campaign, run.metrics or None, seed=options["seed"], bootstrap=options["bootstrap"],
            top_k=options["top_k"], permutations=options["permutations"], corpus_scope=options["corpus_scope"],
            bertscore_options=bertscore, progress=progress)
    except USER_ERRORS as exc:
        _set(run_id, status=MetricRun.Status.FAILED, message=str(exc), finished_at=timezone.now())
        return MetricRun.Status.FAILED
    except Exception as exc:
        logger.exception("metric run %s failed", run_id)
        _set(run_id, status=MetricRun.Status.FAILED, message=f"internal error: {exc.__class__.__name__}: {exc}",
             finished_at=timezone.now())
        raise
    _set(run_id, status=MetricRun.Status.DONE, progress=1.0, message="", report=report,
         finished_at=timezone.now())
    return MetricRun.Status.DONE


QUEUED_LINE = "Queued: waiting for a worker to start it."


def status_line(run):
    """What the run is doing, each thing said once (the percentage is the progress bar's).

    ``"Running: BERTScore: 4,120 of 13,854 sentences"``, ``"Queued: waiting for a worker to
    start it."``, ``"Done."``, ``"Failed: <reason>"``.
    """
    message = (run.message or "").strip()
    if message.lower() in {"", run.status, "done", "queued"}:
        message = ""
    if run.status == MetricRun.Status.QUEUED:
        return QUEUED_LINE
    if run.status == MetricRun.Status.DONE:
        return "Done."
    label = run.get_status_display().capitalize()
    return f"{label}: {message}" if message else f"{label}."


def latest_report(campaign):
    """The newest finished run of the campaign (with its report), or None."""
    return MetricRun.objects.filter(campaign=campaign, status=MetricRun.Status.DONE).order_by("-created_at").first()
