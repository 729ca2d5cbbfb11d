"""Admin pages: browse and correct datasets, systems, campaigns, raters, assignments and ratings."""

from django.contrib import admin

from core import models


class ReferenceInline(admin.TabularInline):
    model = models.Reference
    extra = 0


@admin.register(models.Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ["name", "split", "instance_count", "created_at"]
    search_fields = ["name"]

    @admin.display(description="instances")
    def instance_count(self, obj):
        return obj.instances.count()


@admin.register(models.Instance)
class InstanceAdmin(admin.ModelAdmin):
    list_display = ["external_id", "dataset", "false_sent"]
    list_filter = ["dataset"]
    search_fields = ["external_id", "false_sent"]
    inlines = [ReferenceInline]


@admin.register(models.System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ["name", "marker", "dataset", "is_human", "human_reference"]
    list_filter = ["dataset", "is_human", "marker"]
    search_fields = ["name"]


@admin.register(models.SystemOutput)
class SystemOutputAdmin(admin.ModelAdmin):
    list_display = ["system", "instance", "text"]
    list_filter = ["system"]
    search_fields = ["text", "instance__external_id"]


@admin.register(models.Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "dataset", "status", "raters_per_item", "sample_size", "seed", "created_at"]
    list_filter = ["status", "dataset"]
    filter_horizontal = ["systems"]


@admin.register(models.Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["id", "campaign", "instance", "kind", "control_kind", "needed", "active_count", "done_count"]
    list_filter = ["campaign", "kind"]


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
