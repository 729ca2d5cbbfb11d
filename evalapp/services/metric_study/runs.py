"""Metric studies as background jobs: a MetricRun is queued, a worker runs it, its progress is visible.

``start_run`` is what the web page, the API and scripts call; ``execute_run`` is what the task
(evalapp.tasks) runs in a worker process (``manage.py db_worker``), or in-process with the
immediate backend. Progress is written with conditional UPDATEs outside any transaction, so a
page polling the run sees it advance.

Cancelling (``cancel_run``) is one conditional UPDATE of a queued or running run to cancelled.
Every later write of the worker is conditional on the run still running, so a cancelled run
never gets a report, a "done" or a "failed" afterwards: the worker notices at its next progress
write (at most METRIC_RUN_PROGRESS_WRITE_SECONDS later) and stops. What it leaves is only the metric store's
segment scores computed so far, each complete and keyed by its inputs (reused by the next run).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils import timezone

from core.defaults import (
    METRIC_RUN_ETA_MIN_PROGRESS,
    METRIC_RUN_ETA_MIN_SECONDS,
    METRIC_RUN_PROGRESS_WRITE_SECONDS,
)
from core.models import Campaign
from core.problems import FormatError
from evalapp.metrics.bertscore import BertScoreUnavailable
from evalapp.models import MetricRun
from evalapp.options.metric_study import MetricStudyOptions
from evalapp.services import background, results
from evalapp.services.metric_study import report as study_report
from evalapp.services.metric_study.score_cache import study_fingerprint
from evalapp.services.metric_study.statistics import Progress
from evalapp.services.metric_study.texts import StudyError

User = AbstractBaseUser | AnonymousUser

logger = logging.getLogger(__name__)
# Every setting a run stores, with its default: those of the one declaration of the study's options.
OPTION_DEFAULTS: dict[str, Any] = MetricStudyOptions().run_settings()
USER_ERRORS = (StudyError, BertScoreUnavailable, FormatError)


def clean_options(options: dict[str, Any]) -> dict[str, Any]:
    """Known options with their defaults; an unknown option is refused."""
    unknown = set(options) - set(OPTION_DEFAULTS)
    if unknown:
        raise StudyError(f"unknown option(s): {', '.join(sorted(unknown))}")
    return {**OPTION_DEFAULTS, **{k: v for k, v in options.items() if v is not None}}


def _creator(user: User | None) -> Any:
    return user if user is not None and user.is_authenticated else None


def start_run(
    campaign: Campaign,
    metrics: Sequence[str] | None = None,
    options: dict[str, Any] | None = None,
    user: User | None = None,
) -> MetricRun:
    """Queue a metric study of ``campaign``; returns the MetricRun (its task id is stored)."""
    options = clean_options(options or {})
    builtin, imported = study_report.choose_metrics(campaign, metrics)  # refuses unknown names now
    with transaction.atomic():
        run = MetricRun.objects.create(
            campaign=campaign,
            metrics=builtin + imported,
            options=options,
            created_by=_creator(user),
            message="",
        )
        result = background.enqueue(background.METRIC_RUN, run.pk)
        MetricRun.objects.filter(pk=run.pk).update(task_id=str(result.id))
    run.refresh_from_db()
    return run


def _reused_or_built(
    campaign: Campaign, names: list[str], options: dict[str, Any], progress: Progress | None, fresh: bool = False
) -> tuple[dict[str, Any], MetricRun | None]:
    """The report's JSON form and the finished run it was taken from (None when computed now).

    A finished run with the same metrics and options whose ratings, texts and imported scores are
    unchanged (``MetricRun.objects.reusable_run``) gives its report as it is; otherwise the report is
    computed (metric scores come from the store when they are there). ``fresh`` computes it in any case.
    """
    records = results.ratings_records(campaign)  # read once: for the fingerprint and for the report
    fingerprint = None
    if not fresh:
        fingerprint = study_fingerprint(campaign, records)  # the report's own: computed once
        same = MetricRun.objects.reusable_run(campaign, names, options, fingerprint)
        if same is not None:
            return same.report or {}, same
    report = study_report.build_report(
        campaign,
        names or None,
        seed=options["seed"],
        bootstrap=options["bootstrap"],
        top_k=options["top_k"],
        permutations=options["permutations"],
        corpus_scope=options["corpus_scope"],
        bertscore_options={"model": options["bertscore_model"], "layer": options["bertscore_layer"]},
        progress=progress,
        records=records,
        fingerprint=fingerprint,
    )
    return report.to_json(), None


def report_for(
    campaign: Campaign,
    metrics: Sequence[str] | None = None,
    options: dict[str, Any] | None = None,
    user: User | None = None,
    fresh: bool = False,
    progress: Progress | None = None,
) -> tuple[MetricRun, bool]:
    """The report of a study, computed here or reused: (finished MetricRun, reused?).

    A finished run with the same metrics and options whose ratings, texts and imported scores
    are unchanged is reused as it is (another format renders its stored figures); otherwise
    the report is computed (metric scores come from the store when they are there) and kept
    as a finished run. ``fresh`` computes it again in any case.
    """
    options = clean_options(options or {})
    builtin, imported = study_report.choose_metrics(campaign, metrics)
    names = builtin + imported
    report, same = _reused_or_built(campaign, names, options, progress, fresh)
    if same is not None:
        return same, True
    run = MetricRun.objects.create(
        campaign=campaign,
        metrics=names,
        options=options,
        status=MetricRun.Status.DONE,
        progress=1.0,
        report=report,
        finished_at=timezone.now(),
        created_by=_creator(user),
    )
    return run, False


class RunCancelled(Exception):
    """The run was cancelled while the worker computed it: stop, write nothing more."""


class NotCancellable(Exception):
    """The run has finished (done, failed or already cancelled): there is nothing to cancel."""


def _set(run_id: int, **fields: Any) -> int:
    """Write to the run while it is still running; the number of rows written, 0 once it no longer
    is (cancelled)."""
    return MetricRun.objects.filter(pk=run_id, status=MetricRun.Status.RUNNING).update(**fields)


def execute_run(run_id: int) -> str:
    """Run a queued MetricRun to the end, recording progress, the report or the failure; a run
    cancelled meanwhile stops at its next progress write and gets nothing more."""
    run = MetricRun.objects.select_related("campaign", "campaign__dataset").get(pk=run_id)
    started = MetricRun.objects.filter(
        pk=run_id, status__in=(MetricRun.Status.QUEUED, MetricRun.Status.RUNNING)
    ).update(
        status=MetricRun.Status.RUNNING,
        progress=0.0,
        message="loading the texts and ratings",
        started_at=timezone.now(),
    )
    if not started:
        return MetricRun.objects.values_list("status", flat=True).get(pk=run_id)
    options = clean_options(run.options)
    last_write = [0.0]

    def progress(fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - last_write[0] >= METRIC_RUN_PROGRESS_WRITE_SECONDS or fraction >= 1.0:
            last_write[0] = now
            if _set(run_id, progress=min(max(float(fraction), 0.0), 1.0), message=message[:200]) == 0:
                raise RunCancelled(run_id)

    try:
        # nothing changed since a finished run with these settings: its report is this one's
        report, _ = _reused_or_built(run.campaign, run.metrics, options, progress)
    except RunCancelled:
        return MetricRun.Status.CANCELLED
    except USER_ERRORS as exc:
        _set(run_id, status=MetricRun.Status.FAILED, message=str(exc), finished_at=timezone.now())
        return MetricRun.Status.FAILED
    except Exception as exc:
        logger.exception("metric run %s failed", run_id)
        _set(
            run_id,
            status=MetricRun.Status.FAILED,
            message=f"internal error: {exc.__class__.__name__}: {exc}",
            finished_at=timezone.now(),
        )
        raise
    if (
        _set(run_id, status=MetricRun.Status.DONE, progress=1.0, message="", report=report, finished_at=timezone.now())
        == 0
    ):
        return MetricRun.Status.CANCELLED  # cancelled after the last progress write: the report is dropped
    return MetricRun.Status.DONE


def cancel_run(run: MetricRun, user: User | None = None) -> MetricRun:
    """Cancel a queued or running run (the web's Cancel button, the API's cancel, scripts); returns it
    refreshed. Raises :class:`NotCancellable` when it has finished. The worker stops at its next
    progress write; nothing it computed is kept except the metric store's complete segment scores."""
    who = f" by {user.get_username()}" if user is not None and user.is_authenticated else ""
    cancelled = MetricRun.objects.filter(
        pk=run.pk, status__in=(MetricRun.Status.QUEUED, MetricRun.Status.RUNNING)
    ).update(status=MetricRun.Status.CANCELLED, message=f"cancelled{who}", finished_at=timezone.now())
    run.refresh_from_db()
    if not cancelled:
        raise NotCancellable(f"This run is already {run.get_status_display()}: there is nothing to cancel.")
    return run


def seconds_left(run: MetricRun, now: datetime | None = None) -> float | None:
    """An estimate of the seconds a running run still needs (elapsed x (1 - progress) / progress), or
    None while it cannot be told: not running, or too early (METRIC_RUN_ETA_MIN_PROGRESS and _SECONDS)."""
    if run.status != MetricRun.Status.RUNNING or run.started_at is None:
        return None
    elapsed = ((now or timezone.now()) - run.started_at).total_seconds()
    if run.progress < METRIC_RUN_ETA_MIN_PROGRESS or elapsed < METRIC_RUN_ETA_MIN_SECONDS:
        return None
    return elapsed * (1.0 - run.progress) / run.progress


def time_left_line(seconds: float | None) -> str:
    """The estimate in words, rounded as such an estimate deserves: "About 40 seconds left",
    "About 3 minutes left"; "" when there is none."""
    if seconds is None:
        return ""
    if seconds < 55:
        return f"About {max(5, round(seconds / 5) * 5)} seconds left."
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"About {minutes} minute{'s' if minutes != 1 else ''} left."
    return f"About {seconds / 3600:.1f} hours left."


QUEUED_LINE = "Queued: waiting for a worker to start it."


def status_line(run: MetricRun) -> str:
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
    if run.status == MetricRun.Status.CANCELLED:  # message: "cancelled by <user>"
        return f"{message[0].upper()}{message[1:]}." if message else "Cancelled."
    label = run.get_status_display().capitalize()
    return f"{label}: {message}" if message else f"{label}."
