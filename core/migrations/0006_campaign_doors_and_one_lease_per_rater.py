"""Issue 18: the campaign's lab door (all lab raters, listed ones, none) and one live lease per rater
per campaign as a partial unique index.

A database that already holds several leases of one rater in one campaign (the PostgreSQL race the
index closes) keeps the first of them (the one the rater screens resume) and expires the others,
giving their slots back, before the index is made.
"""

from django.conf import settings
from django.db import migrations, models
from django.db.models import F


def expire_extra_leases(apps, schema_editor):
    Assignment, Item = apps.get_model("core", "Assignment"), apps.get_model("core", "Item")
    seen = set()
    for pk, rater_id, campaign_id, item_id in (
        Assignment.objects.filter(status="leased")
        .order_by("rater_id", "campaign_id", "sequence", "pk")
        .values_list("pk", "rater_id", "campaign_id", "item_id")
    ):
        if (rater_id, campaign_id) in seen:
            Assignment.objects.filter(pk=pk).update(status="expired")
            Item.objects.filter(pk=item_id).update(active_count=F("active_count") - 1)
        seen.add((rater_id, campaign_id))


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0005_crowd_entry_and_reconciliation"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="lab_access",
            field=models.CharField(
                choices=[
                    ("all", "every lab rater account"),
                    ("listed", "only the lab raters the campaign lists"),
                    ("none", "no lab raters (crowd platforms only)"),
                ],
                default="all",
                help_text="Which lab (site) rater accounts may rate in this campaign: all of them, only those listed, or none.",
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="campaign",
            name="lab_raters",
            field=models.ManyToManyField(
                blank=True,
                help_text="The lab raters this campaign lists (used when lab access is 'listed').",
                related_name="listed_campaigns",
                to="core.rater",
            ),
        ),
        migrations.RunPython(expire_extra_leases, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="assignment",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status", "leased")),
                fields=("rater", "campaign"),
                name="assignment_one_lease_per_rater",
            ),
        ),
        migrations.AddConstraint(
            model_name="campaign",
            constraint=models.CheckConstraint(
                condition=models.Q(("lab_access__in", ["all", "listed", "none"])), name="campaign_lab_access_known"
            ),
        ),
    ]
