"""Crowd entry per platform with a secret key, sessions that own their leases, and reconciliation.

Every existing campaign gets a key of its own; every existing crowd session takes the leases it
held under the old rule (the rater's assignments numbered after the session's start and up to
the next session's), before that rule's counter goes.
"""

import django.db.models.deletion
from django.db import migrations, models

import core.models


def give_each_campaign_a_key(apps, schema_editor):
    """A key of its own for every campaign. A campaign that already had crowd workers keeps counting
    their ratings as before (its organizer turns reconciliation on once the platform's records are in)."""
    Campaign = apps.get_model("core", "Campaign")
    for campaign in Campaign.objects.filter(crowd_key=""):
        campaign.crowd_key = core.models.new_crowd_key()
        campaign.count_reconciled_only = not campaign.crowd_sessions.exists()
        campaign.save(update_fields=["crowd_key", "count_reconciled_only"])


def give_each_session_its_leases(apps, schema_editor):
    CrowdSession, Assignment = apps.get_model("core", "CrowdSession"), apps.get_model("core", "Assignment")
    sessions = list(CrowdSession.objects.order_by("campaign_id", "rater_id", "assignments_before", "pk"))
    for session, following in zip(sessions, sessions[1:] + [None]):
        later = following is not None and (following.campaign_id, following.rater_id) == (
            session.campaign_id,
            session.rater_id,
        )
        assignments = Assignment.objects.filter(
            campaign_id=session.campaign_id, rater_id=session.rater_id, sequence__gt=session.assignments_before
        )
        if later:
            assignments = assignments.filter(sequence__lte=following.assignments_before)
        assignments.update(crowd_session_id=session.pk)


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0004_cache_table"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="count_reconciled_only",
            field=models.BooleanField(
                default=True,
                help_text="Results count a crowd rating only once the platform's records confirm its session.",
            ),
        ),
        migrations.AddField(
            model_name="assignment",
            name="crowd_session",
            field=models.ForeignKey(
                blank=True,
                help_text="The crowd session (MTurk assignment, Prolific session) that took it.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="assignments",
                to="core.crowdsession",
            ),
        ),
        migrations.AddField(
            model_name="campaign",
            name="crowd_key",
            field=models.CharField(
                default="", help_text="The secret part of the crowd entry addresses.", max_length=64
            ),
            preserve_default=False,
        ),
        migrations.RunPython(give_each_campaign_a_key, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="campaign",
            name="crowd_key",
            field=models.CharField(
                default=core.models.new_crowd_key,
                help_text="The secret part of the crowd entry addresses.",
                max_length=64,
            ),
        ),
        migrations.AddField(
            model_name="campaign",
            name="mturk_enabled",
            field=models.BooleanField(default=False, help_text="Workers may enter from a Mechanical Turk HIT."),
        ),
        migrations.AddField(
            model_name="campaign",
            name="prolific_enabled",
            field=models.BooleanField(default=False, help_text="Participants may enter from a Prolific study."),
        ),
        migrations.AddField(
            model_name="crowdsession",
            name="platform_status",
            field=models.CharField(
                blank=True,
                default="",
                help_text="The status the platform's records gave, as written there.",
                max_length=40,
            ),
        ),
        migrations.AddField(
            model_name="crowdsession",
            name="reconciled_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="crowdsession",
            name="status",
            field=models.CharField(
                choices=[
                    ("unverified", "not yet in the platform's records"),
                    ("verified", "submitted or approved on the platform"),
                    ("rejected", "rejected, returned or not this worker's on the platform"),
                ],
                default="unverified",
                max_length=10,
            ),
        ),
        migrations.RunPython(give_each_session_its_leases, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name="crowdsession",
            name="assignments_before",
        ),
    ]
