"""Admin pages of the evaluation side: submissions, metric scores and metric runs."""

from django.contrib import admin

from evalapp import models


@admin.register(models.Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["system", "filename", "rows", "partial", "official_bleu", "created_at"]
    list_filter = ["partial"]
    readonly_fields = ["sha256", "warnings"]


@admin.register(models.MetricScore)
class MetricScoreAdmin(admin.ModelAdmin):
    list_display = ["campaign", "metric", "level", "system", "instance", "value", "imported"]
    list_filter = ["campaign", "metric", "level"]


@admin.register(models.MetricRun)
class MetricRunAdmin(admin.ModelAdmin):
    list_display = ["campaign", "status", "progress", "created_at", "finished_at"]
