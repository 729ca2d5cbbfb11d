"""The moved tables take the core app's names, and the moved models' content types follow them.

A table rename keeps every row, index, constraint and foreign key (SQLite and PostgreSQL alike).
"""

from django.db import migrations

MOVED = {
    "evalapp": [
        "dataset",
        "instance",
        "reference",
        "system",
        "systemoutput",
        "campaign",
        "campaigninstance",
        "item",
        "itemoutput",
    ],
    "annotators": ["rater", "assignment", "rating", "itemflag", "raterexclusion", "crowdsession"],
}


def move_content_types(apps, schema_editor):
    """Point the old apps' content types (and with them permissions, admin log entries) at core."""
    content_types = apps.get_model("contenttypes", "ContentType")
    for app_label, models in MOVED.items():
        for model in models:
            if not content_types.objects.filter(app_label="core", model=model).exists():
                content_types.objects.filter(app_label=app_label, model=model).update(app_label="core")


def restore_content_types(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    for app_label, models in MOVED.items():
        content_types.objects.filter(app_label="core", model__in=models).update(app_label=app_label)


class Migration(migrations.Migration):
    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("core", "0001_initial"),
        ("annotators", "0003_models_moved_to_core"),
        ("evalapp", "0005_models_moved_to_core"),
    ]

    operations = [
        migrations.AlterModelTable(name="dataset", table=None),
        migrations.AlterModelTable(name="instance", table=None),
        migrations.AlterModelTable(name="reference", table=None),
        migrations.AlterModelTable(name="system", table=None),
        migrations.AlterModelTable(name="systemoutput", table=None),
        migrations.AlterModelTable(name="campaign", table=None),
        migrations.AlterModelTable(name="campaigninstance", table=None),
        migrations.AlterModelTable(name="item", table=None),
        migrations.AlterModelTable(name="itemoutput", table=None),
        migrations.AlterModelTable(name="rater", table=None),
        migrations.AlterModelTable(name="assignment", table=None),
        migrations.AlterModelTable(name="rating", table=None),
        migrations.AlterModelTable(name="itemflag", table=None),
        migrations.AlterModelTable(name="raterexclusion", table=None),
        migrations.AlterModelTable(name="crowdsession", table=None),
        migrations.RunPython(move_content_types, restore_content_types),
    ]
