"""The shared models move here from the evalapp and annotators apps: in the migration state only.

Their tables already exist (made by those apps' migrations) and keep their names here;
``0002_table_names`` then renames them."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import core.models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("evalapp", "0004_perf_item_pick_index"),
        ("annotators", "0002_crowd_session"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Dataset",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("name", models.CharField(max_length=100, unique=True)),
                        (
                            "split",
                            models.CharField(
                                choices=[("test", "test"), ("dev", "dev"), ("train", "train"), ("other", "other")],
                                default="test",
                                max_length=10,
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        "ordering": ["name"],
                    },
                ),
                migrations.CreateModel(
                    name="Campaign",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("name", models.CharField(max_length=100, unique=True)),
                        (
                            "status",
                            models.CharField(
                                choices=[("open", "open"), ("closed", "closed")], default="open", max_length=10
                            ),
                        ),
                        (
                            "seed",
                            models.BigIntegerField(blank=True, help_text="Seed of the instance sample.", null=True),
                        ),
                        ("sample_size", models.PositiveIntegerField(blank=True, null=True)),
                        ("raters_per_item", models.PositiveSmallIntegerField(default=3)),
                        ("rubric", models.JSONField(default=core.models.default_rubric)),
                        ("instructions", models.TextField(blank=True, default="")),
                        ("lease_seconds", models.PositiveIntegerField(default=1800)),
                        (
                            "share_identical_outputs",
                            models.BooleanField(
                                default=False,
                                help_text="Rate identical reasons of different systems for an instance once.",
                            ),
                        ),
                        (
                            "control_rate",
                            models.FloatField(default=0.0, help_text="Control items per system item (0-1)."),
                        ),
                        (
                            "human_reference",
                            models.PositiveSmallIntegerField(
                                blank=True, help_text="Reference k used as the Human pseudo-system.", null=True
                            ),
                        ),
                        ("min_control_pass_rate", models.FloatField(default=0.7)),
                        (
                            "min_coagreement",
                            models.FloatField(default=0.0, help_text="Minimum exact agreement with co-raters."),
                        ),
                        ("min_median_seconds", models.FloatField(default=3.0)),
                        ("completion_url", models.URLField(blank=True, default="")),
                        ("completion_code", models.CharField(blank=True, default="", max_length=100)),
                        ("screening_code", models.CharField(blank=True, default="", max_length=100)),
                        (
                            "items_per_session",
                            models.PositiveIntegerField(
                                blank=True,
                                help_text="Crowd platforms: at most this many ratings in one HIT or study session (empty: no cap).",
                                null=True,
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "created_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "dataset",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT, related_name="campaigns", to="core.dataset"
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["-created_at", "name"],
                    },
                ),
                migrations.CreateModel(
                    name="Instance",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "external_id",
                            models.CharField(help_text="The id used in the dataset's CSV files.", max_length=64),
                        ),
                        ("position", models.PositiveIntegerField(help_text="0-based order in the statements file.")),
                        ("false_sent", models.TextField(help_text="The statement against common sense.")),
                        (
                            "true_sent",
                            models.TextField(blank=True, default="", help_text="Its sensical twin, when known."),
                        ),
                        (
                            "dataset",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="instances", to="core.dataset"
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["dataset", "position"],
                    },
                ),
                migrations.CreateModel(
                    name="CampaignInstance",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("position", models.PositiveIntegerField()),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="sampled", to="core.campaign"
                            ),
                        ),
                        (
                            "instance",
                            models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, to="core.instance"),
                        ),
                    ],
                    options={
                        "ordering": ["campaign", "position"],
                    },
                ),
                migrations.AddField(
                    model_name="campaign",
                    name="instances",
                    field=models.ManyToManyField(
                        related_name="campaigns", through="core.CampaignInstance", to="core.instance"
                    ),
                ),
                migrations.CreateModel(
                    name="Item",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[("system", "system output"), ("control", "control")],
                                default="system",
                                max_length=10,
                            ),
                        ),
                        (
                            "control_kind",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("other_reason", "a reason from another instance (expected 0)"),
                                    ("statement", "the statement itself (expected at most 1)"),
                                    ("reference", "a human reference (expected at least 2)"),
                                ],
                                default="",
                                max_length=20,
                            ),
                        ),
                        ("expected_min", models.PositiveSmallIntegerField(blank=True, null=True)),
                        ("expected_max", models.PositiveSmallIntegerField(blank=True, null=True)),
                        ("text", models.TextField(blank=True, help_text="The reason shown to raters.")),
                        (
                            "needed",
                            models.PositiveSmallIntegerField(help_text="Ratings this item needs (the campaign's M)."),
                        ),
                        ("active_count", models.PositiveSmallIntegerField(default=0)),
                        ("done_count", models.PositiveSmallIntegerField(default=0)),
                        (
                            "shuffle_key",
                            models.BigIntegerField(default=0, help_text="Random key; per-rater order derives from it."),
                        ),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="items", to="core.campaign"
                            ),
                        ),
                        (
                            "instance",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT, related_name="items", to="core.instance"
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["campaign", "id"],
                    },
                ),
                migrations.CreateModel(
                    name="Rater",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "platform",
                            models.CharField(
                                choices=[
                                    ("site", "site account"),
                                    ("mturk", "Mechanical Turk"),
                                    ("prolific", "Prolific"),
                                    ("import", "imported ratings"),
                                ],
                                default="site",
                                max_length=10,
                            ),
                        ),
                        ("external_id", models.CharField(blank=True, default="", max_length=255)),
                        (
                            "order_seed",
                            models.BigIntegerField(default=0, help_text="Randomises this rater's item order."),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "user",
                            models.OneToOneField(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="rater",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                ),
                migrations.CreateModel(
                    name="ItemFlag",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("note", models.TextField(blank=True, default="")),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "item",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="flags", to="core.item"
                            ),
                        ),
                        (
                            "rater",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="flags", to="core.rater"
                            ),
                        ),
                    ],
                ),
                migrations.CreateModel(
                    name="CrowdSession",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "platform",
                            models.CharField(
                                choices=[
                                    ("site", "site account"),
                                    ("mturk", "Mechanical Turk"),
                                    ("prolific", "Prolific"),
                                    ("import", "imported ratings"),
                                ],
                                max_length=10,
                            ),
                        ),
                        (
                            "session_id",
                            models.CharField(help_text="MTurk assignmentId, or Prolific SESSION_ID.", max_length=255),
                        ),
                        ("task_id", models.CharField(help_text="MTurk hitId, or Prolific STUDY_ID.", max_length=255)),
                        (
                            "submit_to",
                            models.CharField(
                                blank=True,
                                default="",
                                help_text="MTurk: the checked turkSubmitTo origin the HIT is submitted to.",
                                max_length=255,
                            ),
                        ),
                        (
                            "assignments_before",
                            models.PositiveIntegerField(
                                default=0,
                                help_text="How many assignments the rater had in the campaign when the session started.",
                            ),
                        ),
                        ("started_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="crowd_sessions",
                                to="core.campaign",
                            ),
                        ),
                        (
                            "rater",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="crowd_sessions",
                                to="core.rater",
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["campaign", "started_at", "pk"],
                    },
                ),
                migrations.CreateModel(
                    name="Assignment",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("leased", "leased"),
                                    ("done", "done"),
                                    ("expired", "expired"),
                                    ("excluded", "excluded"),
                                ],
                                default="leased",
                                max_length=10,
                            ),
                        ),
                        ("leased_at", models.DateTimeField()),
                        ("lease_expires_at", models.DateTimeField()),
                        ("completed_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "sequence",
                            models.PositiveIntegerField(default=0, help_text="1-based position in the rater's queue."),
                        ),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="assignments",
                                to="core.campaign",
                            ),
                        ),
                        (
                            "item",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="assignments", to="core.item"
                            ),
                        ),
                        (
                            "rater",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="assignments", to="core.rater"
                            ),
                        ),
                    ],
                ),
                migrations.CreateModel(
                    name="RaterExclusion",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("reason", models.TextField(blank=True, default="")),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="exclusions",
                                to="core.campaign",
                            ),
                        ),
                        (
                            "excluded_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "rater",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="exclusions", to="core.rater"
                            ),
                        ),
                    ],
                ),
                migrations.CreateModel(
                    name="Rating",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("score", models.PositiveSmallIntegerField()),
                        ("seconds", models.FloatField(blank=True, help_text="Time spent on the item.", null=True)),
                        (
                            "source",
                            models.CharField(
                                choices=[
                                    ("app", "rated in the app"),
                                    ("mturk", "Mechanical Turk import"),
                                    ("long", "long-form import"),
                                ],
                                default="app",
                                max_length=10,
                            ),
                        ),
                        (
                            "excluded",
                            models.BooleanField(default=False, help_text="Set when the rater is excluded."),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "assignment",
                            models.OneToOneField(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="rating",
                                to="core.assignment",
                            ),
                        ),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="ratings", to="core.campaign"
                            ),
                        ),
                        (
                            "item",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="ratings", to="core.item"
                            ),
                        ),
                        (
                            "rater",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="ratings", to="core.rater"
                            ),
                        ),
                    ],
                ),
                migrations.CreateModel(
                    name="Reference",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("position", models.PositiveSmallIntegerField()),
                        ("text", models.TextField()),
                        (
                            "instance",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="references",
                                to="core.instance",
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["instance", "position"],
                    },
                ),
                migrations.CreateModel(
                    name="System",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("name", models.CharField(max_length=100)),
                        (
                            "marker",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("", "none"),
                                    ("*", "* no system description paper"),
                                    ("+", "+ paper does not describe Subtask C"),
                                ],
                                default="",
                                max_length=1,
                            ),
                        ),
                        ("is_human", models.BooleanField(default=False)),
                        (
                            "human_reference",
                            models.PositiveSmallIntegerField(
                                blank=True,
                                help_text="For the Human pseudo-system: which reference (1-3) it is.",
                                null=True,
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "dataset",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="systems", to="core.dataset"
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["dataset", "name"],
                    },
                ),
                migrations.AddField(
                    model_name="campaign",
                    name="systems",
                    field=models.ManyToManyField(blank=True, related_name="campaigns", to="core.system"),
                ),
                migrations.CreateModel(
                    name="SystemOutput",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("text", models.TextField(blank=True)),
                        (
                            "instance",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="outputs", to="core.instance"
                            ),
                        ),
                        (
                            "system",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="outputs", to="core.system"
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["system", "instance__position"],
                    },
                ),
                migrations.CreateModel(
                    name="ItemOutput",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="item_outputs",
                                to="core.campaign",
                            ),
                        ),
                        (
                            "item",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="item_outputs", to="core.item"
                            ),
                        ),
                        (
                            "output",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="item_outputs",
                                to="core.systemoutput",
                            ),
                        ),
                    ],
                ),
                migrations.AddField(
                    model_name="item",
                    name="outputs",
                    field=models.ManyToManyField(
                        blank=True, related_name="items", through="core.ItemOutput", to="core.systemoutput"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="instance",
                    constraint=models.UniqueConstraint(fields=("dataset", "external_id"), name="instance_unique_id"),
                ),
                migrations.AddConstraint(
                    model_name="instance",
                    constraint=models.UniqueConstraint(fields=("dataset", "position"), name="instance_unique_position"),
                ),
                migrations.AddConstraint(
                    model_name="instance",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("external_id", ""), _negated=True), name="instance_id_not_empty"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="instance",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("false_sent", ""), _negated=True), name="instance_statement_not_empty"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="campaigninstance",
                    constraint=models.UniqueConstraint(
                        fields=("campaign", "instance"), name="campaign_instance_unique"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="campaigninstance",
                    constraint=models.UniqueConstraint(
                        fields=("campaign", "position"), name="campaign_instance_position_unique"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="rater",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(("external_id", ""), _negated=True),
                        fields=("platform", "external_id"),
                        name="rater_unique_external_id",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="itemflag",
                    constraint=models.UniqueConstraint(fields=("item", "rater"), name="flag_unique_item_rater"),
                ),
                migrations.AddConstraint(
                    model_name="crowdsession",
                    constraint=models.UniqueConstraint(
                        fields=("platform", "session_id"), name="crowd_session_unique_id"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="crowdsession",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("platform__in", ["mturk", "prolific"])), name="crowd_session_platform"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="crowdsession",
                    constraint=models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("session_id", ""), _negated=True), models.Q(("task_id", ""), _negated=True)
                        ),
                        name="crowd_session_ids_not_empty",
                    ),
                ),
                migrations.AddIndex(
                    model_name="assignment",
                    index=models.Index(fields=["campaign", "rater", "status"], name="assignment_rater_idx"),
                ),
                migrations.AddIndex(
                    model_name="assignment",
                    index=models.Index(fields=["status", "lease_expires_at"], name="assignment_lease_idx"),
                ),
                migrations.AddConstraint(
                    model_name="assignment",
                    constraint=models.UniqueConstraint(fields=("item", "rater"), name="assignment_unique_item_rater"),
                ),
                migrations.AddConstraint(
                    model_name="assignment",
                    constraint=models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("completed_at__isnull", False), ("status", "done")),
                            models.Q(("status", "done"), _negated=True),
                            _connector="OR",
                        ),
                        name="assignment_done_has_time",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="raterexclusion",
                    constraint=models.UniqueConstraint(fields=("campaign", "rater"), name="exclusion_unique"),
                ),
                migrations.AddIndex(
                    model_name="rating",
                    index=models.Index(fields=["campaign", "excluded"], name="rating_campaign_idx"),
                ),
                migrations.AddConstraint(
                    model_name="rating",
                    constraint=models.UniqueConstraint(fields=("item", "rater"), name="rating_unique_item_rater"),
                ),
                migrations.AddConstraint(
                    model_name="rating",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("score__gte", 0), ("score__lte", 3)), name="rating_score_0_3"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="rating",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("seconds__isnull", True), ("seconds__gte", 0), _connector="OR"),
                        name="rating_seconds_nonneg",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="reference",
                    constraint=models.UniqueConstraint(
                        fields=("instance", "position"), name="reference_unique_position"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="reference",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("position__gte", 1), ("position__lte", 3)), name="reference_position_1_3"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="reference",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("text", ""), _negated=True), name="reference_not_empty"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="system",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(("is_human", False)), fields=("dataset", "name"), name="system_unique_name"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="system",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(("is_human", True)),
                        fields=("dataset", "human_reference"),
                        name="system_unique_human",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="system",
                    constraint=models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("is_human", True), ("human_reference__gte", 1), ("human_reference__lte", 3)),
                            models.Q(("is_human", False), ("human_reference__isnull", True)),
                            _connector="OR",
                        ),
                        name="system_human_has_reference",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="system",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("name", ""), _negated=True), name="system_name_not_empty"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="campaign",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("raters_per_item__gte", 1)), name="campaign_raters_positive"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="campaign",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("control_rate__gte", 0), ("control_rate__lte", 1)),
                        name="campaign_control_rate_0_1",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="campaign",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("lease_seconds__gte", 1)), name="campaign_lease_positive"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="campaign",
                    constraint=models.CheckConstraint(
                        condition=models.Q(
                            ("human_reference__isnull", True),
                            models.Q(("human_reference__gte", 1), ("human_reference__lte", 3)),
                            _connector="OR",
                        ),
                        name="campaign_human_reference_1_3",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="campaign",
                    constraint=models.CheckConstraint(
                        condition=models.Q(
                            ("items_per_session__isnull", True), ("items_per_session__gte", 1), _connector="OR"
                        ),
                        name="campaign_items_per_session_positive",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="systemoutput",
                    constraint=models.UniqueConstraint(
                        fields=("system", "instance"), name="output_unique_system_instance"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="itemoutput",
                    constraint=models.UniqueConstraint(
                        fields=("campaign", "output"), name="item_output_unique_per_campaign"
                    ),
                ),
                migrations.AddIndex(
                    model_name="item",
                    index=models.Index(fields=["campaign", "active_count", "shuffle_key"], name="item_pick_idx"),
                ),
                migrations.AddConstraint(
                    model_name="item",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("needed__gte", 1)), name="item_needed_positive"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="item",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("active_count__lte", models.F("needed"))), name="item_active_le_needed"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="item",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("done_count__lte", models.F("active_count"))), name="item_done_le_active"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="item",
                    constraint=models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("kind", "system"), ("control_kind", "")),
                            models.Q(("kind", "control"), models.Q(("control_kind", ""), _negated=True)),
                            _connector="OR",
                        ),
                        name="item_control_kind_matches",
                    ),
                ),
                migrations.AlterModelTable(name="dataset", table="evalapp_dataset"),
                migrations.AlterModelTable(name="instance", table="evalapp_instance"),
                migrations.AlterModelTable(name="reference", table="evalapp_reference"),
                migrations.AlterModelTable(name="system", table="evalapp_system"),
                migrations.AlterModelTable(name="systemoutput", table="evalapp_systemoutput"),
                migrations.AlterModelTable(name="campaign", table="evalapp_campaign"),
                migrations.AlterModelTable(name="campaigninstance", table="evalapp_campaigninstance"),
                migrations.AlterModelTable(name="item", table="evalapp_item"),
                migrations.AlterModelTable(name="itemoutput", table="evalapp_itemoutput"),
                migrations.AlterModelTable(name="rater", table="annotators_rater"),
                migrations.AlterModelTable(name="assignment", table="annotators_assignment"),
                migrations.AlterModelTable(name="rating", table="annotators_rating"),
                migrations.AlterModelTable(name="itemflag", table="annotators_itemflag"),
                migrations.AlterModelTable(name="raterexclusion", table="annotators_raterexclusion"),
                migrations.AlterModelTable(name="crowdsession", table="annotators_crowdsession"),
            ]
        ),
    ]
