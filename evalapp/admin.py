"""Admin pages for organizers: browse and correct datasets, systems and campaigns."""
from django.contrib import admin

from evalapp import models


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


@admin.register(models.Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["system", "filename", "rows", "partial", "official_bleu", "created_at"]
    list_filter = ["partial"]
    readonly_fields = ["sha256", "warnings"]


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


@admin.register(models.MetricScore)
class MetricScoreAdmin(admin.ModelAdmin):
    list_display = ["campaign", "metric", "level", "system", "instance", "value", "imported"]
    list_filter = ["campaign", "metric", "level"]


@admin.register(models.MetricRun)
class MetricRunAdmin(admin.ModelAdmin):
    list_display = ["campaign", "status", "progress", "created_at", "finished_at"]
