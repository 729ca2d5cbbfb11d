"""Raters, assignments and ratings now belong to the core app (``core/migrations/0001_initial.py``): state only."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("annotators", "0002_crowd_session"),
        ("core", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="rating",
                    name="assignment",
                ),
                migrations.RemoveField(
                    model_name="crowdsession",
                    name="campaign",
                ),
                migrations.RemoveField(
                    model_name="crowdsession",
                    name="rater",
                ),
                migrations.RemoveField(
                    model_name="itemflag",
                    name="item",
                ),
                migrations.RemoveField(
                    model_name="itemflag",
                    name="rater",
                ),
                migrations.RemoveField(
                    model_name="rater",
                    name="user",
                ),
                migrations.RemoveField(
                    model_name="raterexclusion",
                    name="rater",
                ),
                migrations.RemoveField(
                    model_name="rating",
                    name="rater",
                ),
                migrations.RemoveField(
                    model_name="raterexclusion",
                    name="campaign",
                ),
                migrations.RemoveField(
                    model_name="raterexclusion",
                    name="excluded_by",
                ),
                migrations.RemoveField(
                    model_name="rating",
                    name="campaign",
                ),
                migrations.RemoveField(
                    model_name="rating",
                    name="item",
                ),
                migrations.DeleteModel(
                    name="Assignment",
                ),
                migrations.DeleteModel(
                    name="CrowdSession",
                ),
                migrations.DeleteModel(
                    name="ItemFlag",
                ),
                migrations.DeleteModel(
                    name="Rater",
                ),
                migrations.DeleteModel(
                    name="RaterExclusion",
                ),
                migrations.DeleteModel(
                    name="Rating",
                ),
            ]
        ),
    ]
