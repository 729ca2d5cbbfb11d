"""Raters, their assignments and ratings, item flags and exclusions.

The S7 invariants are constraints here: one assignment and one rating per (item, rater);
one rating per assignment; scores in 0-3. Capacity (at most M per item) is the check
constraint on ``Item.active_count``/``done_count`` that the engine updates conditionally.
"""
from django.conf import settings
from django.db import models
from django.db.models import Q

from evalapp.models import SCORE_MAX, SCORE_MIN, Campaign, Item


class Rater(models.Model):
    """A person who rates: a site account, or a worker on a crowd platform.

    Crowd workers get a site account too (unusable password) so that every screen works
    the same way; ratings imported from files may have a rater without an account.
    """

    class Platform(models.TextChoices):
        SITE = "site", "site account"
        MTURK = "mturk", "Mechanical Turk"
        PROLIFIC = "prolific", "Prolific"
        IMPORT = "import", "imported ratings"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="rater"
    )
    platform = models.CharField(max_length=10, choices=Platform.choices, default=Platform.SITE)
    external_id = models.CharField(max_length=255, blank=True, default="")
    order_seed = models.BigIntegerField(default=0, help_text="Randomises this rater's item order.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "external_id"], condition=~Q(external_id=""), name="rater_unique_external_id"
            ),
        ]

    def __str__(self):
        if self.external_id:
            return f"{self.platform}:{self.external_id}"
        return self.user.get_username() if self.user_id else f"rater {self.pk}"


class Assignment(models.Model):
    """An item handed to a rater. Leased until ``lease_expires_at``; then done, expired or excluded.

    The row stays after expiry so that the rater never gets the same item again.
    """

    class Status(models.TextChoices):
        LEASED = "leased", "leased"
        DONE = "done", "done"
        EXPIRED = "expired", "expired"
        EXCLUDED = "excluded", "excluded"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    rater = models.ForeignKey(Rater, on_delete=models.CASCADE, related_name="assignments")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LEASED)
    leased_at = models.DateTimeField()
    lease_expires_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)
    sequence = models.PositiveIntegerField(default=0, help_text="1-based position in the rater's queue.")

    class Meta:
        indexes = [
            models.Index(fields=["campaign", "rater", "status"], name="assignment_rater_idx"),
            models.Index(fields=["status", "lease_expires_at"], name="assignment_lease_idx"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["item", "rater"], name="assignment_unique_item_rater"),
            models.CheckConstraint(
                condition=Q(status="done", completed_at__isnull=False) | ~Q(status="done"),
                name="assignment_done_has_time",
            ),
        ]


class Rating(models.Model):
    """A score 0-3 for an item by a rater, made in the app or imported from a file."""

    class Source(models.TextChoices):
        APP = "app", "rated in the app"
        MTURK = "mturk", "Mechanical Turk import"
        LONG = "long", "long-form import"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="ratings")
    rater = models.ForeignKey(Rater, on_delete=models.CASCADE, related_name="ratings")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="ratings")
    assignment = models.OneToOneField(
        Assignment, null=True, blank=True, on_delete=models.CASCADE, related_name="rating"
    )
    score = models.PositiveSmallIntegerField()
    seconds = models.FloatField(null=True, blank=True, help_text="Time spent on the item.")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.APP)
    excluded = models.BooleanField(default=False, help_text="Set when the rater is excluded (S8).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["campaign", "excluded"], name="rating_campaign_idx")]
        constraints = [
            models.UniqueConstraint(fields=["item", "rater"], name="rating_unique_item_rater"),
            models.CheckConstraint(
                condition=Q(score__gte=SCORE_MIN) & Q(score__lte=SCORE_MAX), name="rating_score_0_3"
            ),
            models.CheckConstraint(condition=Q(seconds__isnull=True) | Q(seconds__gte=0), name="rating_seconds_nonneg"),
        ]


class ItemFlag(models.Model):
    """A rater's report that an item is broken (unreadable, wrong statement, ...)."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="flags")
    rater = models.ForeignKey(Rater, on_delete=models.CASCADE, related_name="flags")
    note = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "rater"], name="flag_unique_item_rater")]


class RaterExclusion(models.Model):
    """An organizer's decision to drop a rater from a campaign (S8)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="exclusions")
    rater = models.ForeignKey(Rater, on_delete=models.CASCADE, related_name="exclusions")
    reason = models.TextField(blank=True, default="")
    excluded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "rater"], name="exclusion_unique")]


class CrowdSession(models.Model):
    """One Mechanical Turk assignment or one Prolific study session of a crowd rater in a campaign.

    Kept so that a returning worker resumes the same session, the per-session cap counts only
    this session's ratings, and the organizer can review the work by assignment or session id.
    The session's ratings are the rater's assignments numbered after ``assignments_before``.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="crowd_sessions")
    rater = models.ForeignKey(Rater, on_delete=models.CASCADE, related_name="crowd_sessions")
    platform = models.CharField(max_length=10, choices=Rater.Platform.choices)
    session_id = models.CharField(max_length=255, help_text="MTurk assignmentId, or Prolific SESSION_ID.")
    task_id = models.CharField(max_length=255, help_text="MTurk hitId, or Prolific STUDY_ID.")
    submit_to = models.CharField(max_length=255, blank=True, default="",
                                 help_text="MTurk: the checked turkSubmitTo origin the HIT is submitted to.")
    assignments_before = models.PositiveIntegerField(
        default=0, help_text="How many assignments the rater had in the campaign when the session started.")
    started_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "started_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["platform", "session_id"], name="crowd_session_unique_id"),
            models.CheckConstraint(condition=Q(platform__in=["mturk", "prolific"]), name="crowd_session_platform"),
            models.CheckConstraint(condition=~Q(session_id="") & ~Q(task_id=""), name="crowd_session_ids_not_empty"),
        ]

    def __str__(self):
        return f"{self.platform}:{self.session_id}"
