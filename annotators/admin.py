"""Admin pages for raters, assignments, ratings and flags."""
from django.contrib import admin

from annotators import models


@admin.register(models.Rater)
class RaterAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "platform", "external_id", "created_at"]
    list_filter = ["platform"]
    search_fields = ["external_id", "user__username"]


@admin.register(models.Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "campaign", "item", "rater", "status", "lease_expires_at"]
    list_filter = ["campaign", "status"]


@admin.register(models.Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["id", "campaign", "item", "rater", "score", "seconds", "source", "excluded"]
    list_filter = ["campaign", "source", "excluded"]


@admin.register(models.ItemFlag)
class ItemFlagAdmin(admin.ModelAdmin):
    list_display = ["item", "rater", "note", "created_at"]


@admin.register(models.RaterExclusion)
class RaterExclusionAdmin(admin.ModelAdmin):
    list_display = ["campaign", "rater", "reason", "created_at"]


@admin.register(models.CrowdSession)
class CrowdSessionAdmin(admin.ModelAdmin):
    list_display = ["campaign", "platform", "rater", "session_id", "task_id", "started_at"]
    list_filter = ["campaign", "platform"]
    search_fields = ["session_id", "task_id", "rater__external_id"]
