"""The shared models now belong to the core app (``core/migrations/0001_initial.py``): state only."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotators", "0003_models_moved_to_core"),
        ("core", "0001_initial"),
        ("evalapp", "0004_perf_item_pick_index"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="metricscore",
                    name="campaign",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="metric_scores", to="core.campaign"
                    ),
                ),
                migrations.RemoveField(
                    model_name="itemoutput",
                    name="campaign",
                ),
                migrations.AlterField(
                    model_name="metricrun",
                    name="campaign",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="metric_runs", to="core.campaign"
                    ),
                ),
                migrations.RemoveField(
                    model_name="item",
                    name="campaign",
                ),
                migrations.RemoveField(
                    model_name="campaigninstance",
                    name="campaign",
                ),
                migrations.RemoveField(
                    model_name="campaigninstance",
                    name="instance",
                ),
                migrations.RemoveField(
                    model_name="system",
                    name="dataset",
                ),
                migrations.RemoveField(
                    model_name="instance",
                    name="dataset",
                ),
                migrations.RemoveField(
                    model_name="systemoutput",
                    name="instance",
                ),
                migrations.AlterField(
                    model_name="metricscore",
                    name="instance",
                    field=models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, to="core.instance"
                    ),
                ),
                migrations.RemoveField(
                    model_name="item",
                    name="instance",
                ),
                migrations.RemoveField(
                    model_name="reference",
                    name="instance",
                ),
                migrations.RemoveField(
                    model_name="item",
                    name="outputs",
                ),
                migrations.RemoveField(
                    model_name="itemoutput",
                    name="item",
                ),
                migrations.RemoveField(
                    model_name="itemoutput",
                    name="output",
                ),
                migrations.RemoveField(
                    model_name="systemoutput",
                    name="system",
                ),
                migrations.AlterField(
                    model_name="metricscore",
                    name="system",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="metric_scores", to="core.system"
                    ),
                ),
                migrations.AlterField(
                    model_name="submission",
                    name="system",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="submissions", to="core.system"
                    ),
                ),
                migrations.DeleteModel(
                    name="Campaign",
                ),
                migrations.DeleteModel(
                    name="CampaignInstance",
                ),
                migrations.DeleteModel(
                    name="Dataset",
                ),
                migrations.DeleteModel(
                    name="Instance",
                ),
                migrations.DeleteModel(
                    name="Reference",
                ),
                migrations.DeleteModel(
                    name="Item",
                ),
                migrations.DeleteModel(
                    name="ItemOutput",
                ),
                migrations.DeleteModel(
                    name="SystemOutput",
                ),
                migrations.DeleteModel(
                    name="System",
                ),
            ]
        ),
    ]
