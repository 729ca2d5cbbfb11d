"""What only the evaluation side keeps: teams' submissions, metric scores and metric runs."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery

from core.defaults import METRIC_RUN_REUSE_LOOKBACK
from core.models import Campaign, Instance, System
from evalapp.compute.metric_study_report import MetricReport, as_json_dict


class SubmissionQuerySet(models.QuerySet["Submission"]):
    """Domain queries over submissions."""

    def latest_on(self, systems: QuerySet[System]) -> QuerySet[System]:
        """``systems`` each with ``output_count``, ``submission_count`` and its latest submission's
        ``latest_bleu`` (the official BLEU) and ``latest_partial``: the data pages and the API list
        systems so."""
        latest = self.filter(system=OuterRef("pk")).order_by("-created_at", "-id")
        return systems.annotate(
            output_count=Count("outputs", distinct=True),
            submission_count=Count("submissions", distinct=True),
            latest_bleu=Subquery(latest.values("official_bleu")[:1]),
            latest_partial=Subquery(latest.values("partial")[:1]),
        )


class Submission(models.Model):
    """One accepted upload of a system's output file; the latest one defines the outputs."""

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="submissions")
    filename = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    rows = models.PositiveIntegerField()
    partial = models.BooleanField(default=False)
    official_bleu = models.FloatField(null=True, blank=True, help_text="0-100; null when partial.")
    warnings = models.JSONField(default=list, blank=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(official_bleu__isnull=True) | (Q(official_bleu__gte=0) & Q(official_bleu__lte=100)),
                name="submission_bleu_range",
            ),
            models.CheckConstraint(
                condition=Q(partial=False) | Q(official_bleu__isnull=True), name="submission_partial_has_no_bleu"
            ),
        ]


class MetricScore(models.Model):
    """A metric's score for a system (system level) or for one of its outputs (segment level).

    Built-in metrics and a researcher's imported metrics are stored alike, so they enter
    every report the same way (protocol.md#metrics).
    """

    class Level(models.TextChoices):
        SYSTEM = "system", "system"
        SEGMENT = "segment", "segment"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="metric_scores")
    metric = models.CharField(max_length=100)
    level = models.CharField(max_length=10, choices=Level.choices)
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="metric_scores")
    instance = models.ForeignKey(Instance, null=True, blank=True, on_delete=models.CASCADE)
    value = models.FloatField()
    imported = models.BooleanField(default=False)
    signature = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "metric", "system"], condition=Q(level="system"), name="metric_unique_system"
            ),
            models.UniqueConstraint(
                fields=["campaign", "metric", "system", "instance"],
                condition=Q(level="segment"),
                name="metric_unique_segment",
            ),
            models.CheckConstraint(
                condition=(Q(level="system") & Q(instance__isnull=True))
                | (Q(level="segment") & Q(instance__isnull=False)),
                name="metric_level_matches_instance",
            ),
        ]


class MetricRunQuerySet(models.QuerySet["MetricRun"]):
    """The lookups of metric runs every interface (pages, API, commands, the worker) shares."""

    def finished(self, campaign: Campaign) -> MetricRunQuerySet:
        """The campaign's runs that have a report (done), newest first."""
        return self.filter(campaign=campaign, status=MetricRun.Status.DONE).order_by("-created_at", "-id")

    def finished_run(self, campaign: Campaign, run_id: int | None = None) -> MetricRun | None:
        """The campaign's finished run ``run_id``, or its newest finished run without one; None when
        there is none (another campaign's run, or one not done, is never returned)."""
        runs = self.finished(campaign).select_related("campaign", "campaign__dataset")
        return runs.filter(pk=run_id).first() if run_id is not None else runs.first()

    def reusable_run(
        self, campaign: Campaign, metrics: list[str], options: dict[str, Any], fingerprint: str
    ) -> MetricRun | None:
        """A finished run with the same metrics and options whose report saw the same ratings and texts
        (the same fingerprint): its report is the one a new computation would give. Only the newest
        ``METRIC_RUN_REUSE_LOOKBACK`` finished runs are searched, by their settings and their report's
        fingerprint alone: only the run found is read whole (each report is a large JSON document)."""
        newest = self.finished(campaign)[:METRIC_RUN_REUSE_LOOKBACK].values_list(
            "pk", "metrics", "options", "report__fingerprint"
        )
        for pk, run_metrics, run_options, run_fingerprint in newest:
            if run_metrics == metrics and run_options == options and run_fingerprint == fingerprint:
                return self.get(pk=pk)
        return None


class MetricRun(models.Model):
    """A background computation of metrics and their report for a campaign, with progress."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"
        CANCELLED = "cancelled", "cancelled"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="metric_runs")
    metrics = models.JSONField(default=list)
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.FloatField(default=0.0)
    message = models.TextField(blank=True, default="")
    report = models.JSONField(null=True, blank=True)
    task_id = models.CharField(max_length=64, blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True, help_text="When a worker began it (for the time left).")
    finished_at = models.DateTimeField(null=True, blank=True)

    FINISHED = (Status.DONE, Status.FAILED, Status.CANCELLED)

    objects = MetricRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(progress__gte=0) & Q(progress__lte=1), name="metric_run_progress_0_1"),
        ]

    def study_report(self) -> MetricReport:
        """The stored report as typed data (any stored version); ReportFormatError when there is none."""
        return MetricReport.from_json(as_json_dict(self.report))


class MetricSegmentScore(models.Model):
    """One output's score under one metric, computed once and kept (issue 13).

    ``key`` is the SHA-256 of the metric's key, its full signature (model, layer, versions,
    options), the output text and the instance's reference set, so a report in another format,
    with another seed or after new ratings finds every score here, and a changed output (or a
    new model or package version) gets a new key and is computed again. ``stats`` holds the
    per-segment sufficient statistics of a corpus metric, ``values`` the segment score of each
    output name (BERTScore gives P, R and F1 at once; None when the metric has no segment score).
    """

    key = models.CharField(max_length=64, unique=True)
    metric = models.CharField(max_length=100)
    signature = models.TextField()
    values = models.JSONField(default=dict)
    stats = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["metric"], name="metric_segment_metric_idx")]
