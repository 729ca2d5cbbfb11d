"""The domain every part of ComVE-Eval shares: datasets and systems, campaigns and their items,
raters, their assignments and ratings.

The invariants that must survive concurrent writers are database constraints here, not
Python checks (S7): one assignment and one rating per (item, rater), one rating per
assignment, scores in 0-3, and an item's ``active_count``/``done_count`` within ``needed``,
which the engine (:mod:`core.engine`) only moves with conditional updates.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from django.conf import settings
from django.db import models
from django.db.models import Count, F, Q

from core.defaults import (
    CROWD_KEY_BYTES,
    DEFAULT_LEASE_SECONDS,
    DEFAULT_RATERS_PER_ITEM,
    DEFAULT_TIE_MARGIN,
    MAX_TIE_MARGIN,
    SCORE_MAX,
    SCORE_MIN,
    TEAM_MARKERS,
)

# Table 1 of the task paper: the default rubric of every campaign.
DEFAULT_RUBRIC = [
    {
        "score": 0,
        "label": "Not a reason",
        "description": "The reason is not grammatically correct, or not comprehensible at all, "
        "or not related to the statement at all.",
    },
    {
        "score": 1,
        "label": "Negation or paraphrase",
        "description": "The reason is just the negation of the statement or a simple paraphrase. "
        "Obviously, a better explanation can be made.",
    },
    {
        "score": 2,
        "label": "Relevant",
        "description": "The reason is relevant and appropriate, though it may contain a few "
        "grammatical errors or unnecessary parts. Or like case 1, but it's hard to "
        "write a proper reason.",
    },
    {
        "score": 3,
        "label": "Solid explanation",
        "description": "The reason is appropriate and is a solid explanation of why the statement does not make sense.",
    },
]


def new_crowd_key() -> str:
    """A fresh secret for a campaign's crowd entry addresses (URL-safe, 256 bits)."""
    return secrets.token_urlsafe(CROWD_KEY_BYTES)


def default_rubric() -> list[dict[str, Any]]:
    return [dict(entry) for entry in DEFAULT_RUBRIC]


class DatasetQuerySet(models.QuerySet["Dataset"]):
    """Domain queries over datasets."""

    def with_counts(self) -> DatasetQuerySet:
        """Each dataset with ``instance_count`` and ``system_count``, by name: what every list of datasets
        shows (the data page, the campaign form, the API)."""
        return self.annotate(
            instance_count=Count("instances", distinct=True), system_count=Count("systems", distinct=True)
        ).order_by("name")


class Dataset(models.Model):
    """A set of ComVE instances (e.g. the official test set)."""

    class Split(models.TextChoices):
        TEST = "test", "test"
        DEV = "dev", "dev"
        TRAIN = "train", "train"
        OTHER = "other", "other"

    name = models.CharField(max_length=100, unique=True)
    split = models.CharField(max_length=10, choices=Split.choices, default=Split.TEST)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = DatasetQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Instance(models.Model):
    """One nonsensical statement, identified by its id in the dataset's files."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="instances")
    external_id = models.CharField(max_length=64, help_text="The id used in the dataset's CSV files.")
    position = models.PositiveIntegerField(help_text="0-based order in the statements file.")
    false_sent = models.TextField(help_text="The statement against common sense.")
    true_sent = models.TextField(blank=True, default="", help_text="Its sensical twin, when known.")

    class Meta:
        ordering = ["dataset", "position"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "external_id"], name="instance_unique_id"),
            models.UniqueConstraint(fields=["dataset", "position"], name="instance_unique_position"),
            models.CheckConstraint(condition=~Q(external_id=""), name="instance_id_not_empty"),
            models.CheckConstraint(condition=~Q(false_sent=""), name="instance_statement_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.dataset.name}:{self.external_id}"


class Reference(models.Model):
    """A human-written reason (position 1-3) for an instance."""

    instance = models.ForeignKey(Instance, on_delete=models.CASCADE, related_name="references")
    position = models.PositiveSmallIntegerField()
    text = models.TextField()

    class Meta:
        ordering = ["instance", "position"]
        constraints = [
            models.UniqueConstraint(fields=["instance", "position"], name="reference_unique_position"),
            models.CheckConstraint(condition=Q(position__gte=1) & Q(position__lte=3), name="reference_position_1_3"),
            models.CheckConstraint(condition=~Q(text=""), name="reference_not_empty"),
        ]


class System(models.Model):
    """A team's system on a dataset, or the Human pseudo-system built from reference k."""

    class Marker(models.TextChoices):
        NONE = "", "none"
        NO_PAPER = "*", TEAM_MARKERS["*"]
        NOT_SUBTASK_C = "+", TEAM_MARKERS["+"]

    HUMAN_NAME = "Human"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=100)
    marker = models.CharField(max_length=1, choices=Marker.choices, blank=True, default="")
    is_human = models.BooleanField(default=False)
    human_reference = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="For the Human pseudo-system: which reference (1-3) it is."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "name"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "name"], condition=Q(is_human=False), name="system_unique_name"),
            models.UniqueConstraint(
                fields=["dataset", "human_reference"], condition=Q(is_human=True), name="system_unique_human"
            ),
            models.CheckConstraint(
                condition=(Q(is_human=True) & Q(human_reference__gte=1) & Q(human_reference__lte=3))
                | (Q(is_human=False) & Q(human_reference__isnull=True)),
                name="system_human_has_reference",
            ),
            models.CheckConstraint(condition=~Q(name=""), name="system_name_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.name}{self.marker}"

    @property
    def display_name(self) -> str:
        return f"{self.name}{self.marker}"

    @staticmethod
    def marker_legend(markers: Iterable[str]) -> list[str]:
        """What the markers among ``markers`` mean, in the paper's order: the footnote under a list of teams."""
        used = set(markers)
        return [note for marker, note in TEAM_MARKERS.items() if marker in used]


class SystemOutput(models.Model):
    """A system's reason for one instance."""

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="outputs")
    instance = models.ForeignKey(Instance, on_delete=models.CASCADE, related_name="outputs")
    text = models.TextField(blank=True)

    class Meta:
        ordering = ["system", "instance__position"]
        constraints = [
            models.UniqueConstraint(fields=["system", "instance"], name="output_unique_system_instance"),
        ]


class CampaignQuerySet(models.QuerySet["Campaign"]):
    """Domain queries over campaigns."""

    def listed(self) -> CampaignQuerySet:
        """Newest first, with their datasets: every list of campaigns (the campaign, results and metric
        pages)."""
        return self.select_related("dataset").order_by("-created_at", "name")

    def named(self, name: str) -> Campaign:
        """The campaign called ``name`` (names are unique), as the commands find one; otherwise
        ``Campaign.DoesNotExist`` whose message lists the campaigns that exist."""
        campaign = self.filter(name=name).first()
        if campaign is None:
            known = ", ".join(self.order_by("name").values_list("name", flat=True)) or "none yet"
            raise Campaign.DoesNotExist(f"no campaign named {name!r} (campaigns: {known})")
        return campaign


class Campaign(models.Model):
    """A rating campaign: sampled instances x systems, each item rated by M distinct raters."""

    class Status(models.TextChoices):
        OPEN = "open", "open"
        CLOSED = "closed", "closed"

    class LabAccess(models.TextChoices):
        ALL = "all", "every lab rater account"
        LISTED = "listed", "only the lab raters the campaign lists"
        NONE = "none", "no lab raters (crowd platforms only)"

    name = models.CharField(max_length=100, unique=True)
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="campaigns")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    table6_exported_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When Table 6 was last exported (web, API or command): the checklist's last step.",
    )
    seed = models.BigIntegerField(null=True, blank=True, help_text="Seed of the instance sample (S2).")
    sample_size = models.PositiveIntegerField(null=True, blank=True)
    raters_per_item = models.PositiveSmallIntegerField(default=DEFAULT_RATERS_PER_ITEM)
    rubric = models.JSONField(default=default_rubric)
    instructions = models.TextField(blank=True, default="")
    lease_seconds = models.PositiveIntegerField(default=DEFAULT_LEASE_SECONDS)
    share_identical_outputs = models.BooleanField(
        default=False, help_text="Rate identical reasons of different systems for an instance once."
    )
    control_rate = models.FloatField(default=0.0, help_text="Control items per system item (0-1).")
    human_reference = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Reference k used as the Human pseudo-system."
    )
    # Quality-control thresholds (S8): raters below them are flagged for the organizer.
    min_control_pass_rate = models.FloatField(default=0.7)
    min_coagreement = models.FloatField(default=0.0, help_text="Minimum exact agreement with co-raters.")
    min_median_seconds = models.FloatField(default=3.0)
    # Crowd platforms (S11).
    completion_url = models.URLField(blank=True, default="")
    completion_code = models.CharField(max_length=100, blank=True, default="")
    screening_code = models.CharField(max_length=100, blank=True, default="")
    items_per_session = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Crowd platforms: at most this many ratings in one HIT or study session (empty: no cap).",
    )
    # Crowd entry is the organizer's choice (S12): off until a platform is enabled, and its entry
    # address carries the campaign's secret key, which the organizer can rotate.
    mturk_enabled = models.BooleanField(default=False, help_text="Workers may enter from a Mechanical Turk HIT.")
    prolific_enabled = models.BooleanField(default=False, help_text="Participants may enter from a Prolific study.")
    crowd_key = models.CharField(
        max_length=64, default=new_crowd_key, help_text="The secret part of the crowd entry addresses."
    )
    count_reconciled_only = models.BooleanField(
        default=True, help_text="Results count a crowd rating only once the platform's records confirm its session."
    )
    # The lab door (issue 18): which site accounts may rate here. Crowd accounts never enter through it.
    lab_access = models.CharField(
        max_length=10,
        choices=LabAccess.choices,
        default=LabAccess.ALL,
        help_text="Which lab (site) rater accounts may rate in this campaign: all of them, only those listed, or none.",
    )
    lab_raters: models.ManyToManyField[Rater, Any] = models.ManyToManyField(
        "Rater",
        related_name="listed_campaigns",
        blank=True,
        help_text="The lab raters this campaign lists (used when lab access is 'listed').",
    )
    # Stopping early (issue 23): the tie margin is fixed before rating starts, so that no look at
    # the ratings can move it; racing retires systems whose every comparison is decided.
    tie_margin = models.FloatField(
        default=DEFAULT_TIE_MARGIN,
        help_text="Two systems whose true difference is inside (-margin, margin) may be called a tie (0-3 scale).",
    )
    racing = models.BooleanField(
        default=False, help_text="A system whose comparisons are all decided stops receiving new items."
    )
    systems = models.ManyToManyField(System, related_name="campaigns", blank=True)
    instances = models.ManyToManyField(Instance, through="CampaignInstance", related_name="campaigns")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CampaignQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "name"]
        constraints = [
            models.CheckConstraint(condition=Q(raters_per_item__gte=1), name="campaign_raters_positive"),
            models.CheckConstraint(
                condition=Q(control_rate__gte=0) & Q(control_rate__lte=1), name="campaign_control_rate_0_1"
            ),
            models.CheckConstraint(condition=Q(lease_seconds__gte=1), name="campaign_lease_positive"),
            models.CheckConstraint(
                condition=Q(human_reference__isnull=True) | (Q(human_reference__gte=1) & Q(human_reference__lte=3)),
                name="campaign_human_reference_1_3",
            ),
            models.CheckConstraint(
                condition=Q(items_per_session__isnull=True) | Q(items_per_session__gte=1),
                name="campaign_items_per_session_positive",
            ),
            models.CheckConstraint(
                condition=Q(lab_access__in=["all", "listed", "none"]), name="campaign_lab_access_known"
            ),
            models.CheckConstraint(
                condition=Q(tie_margin__gt=0) & Q(tie_margin__lte=MAX_TIE_MARGIN), name="campaign_tie_margin_range"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class CampaignInstanceQuerySet(models.QuerySet["CampaignInstance"]):
    def in_use(self) -> CampaignInstanceQuerySet:
        """The sampled instances that count: every one the organizer has not retired."""
        return self.filter(retired_at__isnull=True)

    def retired(self) -> CampaignInstanceQuerySet:
        return self.filter(retired_at__isnull=False)


class CampaignInstance(models.Model):
    """An instance sampled into a campaign, in sample order, with its place in the rating order.

    ``rating_order`` is drawn from the campaign's seed when the campaign is made and never changes:
    the engine completes the instances in about that order, so every prefix of it is a simple random
    sample of the campaign's instances (what the anytime-valid decisions read).

    An organizer may retire it when the statement itself is broken (a rater's flag showed it):
    it then leaves every system's mean and the sample size N, its items take no more ratings,
    and Table 6 says so under the table. A team's output is never edited or retired alone: a
    broken output is rated as it stands.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sampled")
    instance = models.ForeignKey(Instance, on_delete=models.PROTECT)
    position = models.PositiveIntegerField()
    rating_order = models.PositiveIntegerField(
        null=True, blank=True, help_text="0-based place in the campaign's random rating order."
    )
    retired_at = models.DateTimeField(null=True, blank=True)
    retired_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    retired_reason = models.TextField(blank=True, default="")

    objects = CampaignInstanceQuerySet.as_manager()

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "instance"], name="campaign_instance_unique"),
            models.UniqueConstraint(fields=["campaign", "position"], name="campaign_instance_position_unique"),
            models.UniqueConstraint(fields=["campaign", "rating_order"], name="campaign_instance_rating_order_unique"),
        ]

    @property
    def retired(self) -> bool:
        return self.retired_at is not None


class SystemRetirement(models.Model):
    """A system a racing campaign stopped rating because every comparison it is part of was decided.

    ``instances`` is how many instances (a prefix of the rating order) it was complete on then: the
    count Table 6 footnotes, since its score is its mean over the instances it was rated on.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="retirements")
    system = models.ForeignKey(System, on_delete=models.PROTECT, related_name="retirements")
    instances = models.PositiveIntegerField()
    retired_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "retired_at", "system"]
        constraints = [models.UniqueConstraint(fields=["campaign", "system"], name="retirement_unique")]


class Item(models.Model):
    """One thing a rater scores: a reason shown with its statement.

    A system item carries one output (or several identical ones when the campaign shares
    identical outputs); a control item carries none and has an expected score range (S8).
    ``active_count`` counts leased plus done assignments and ``done_count`` accepted ratings;
    the check constraints keep both within ``needed`` whatever the concurrency.
    """

    class Kind(models.TextChoices):
        SYSTEM = "system", "system output"
        CONTROL = "control", "control"

    class Control(models.TextChoices):
        OTHER_REASON = "other_reason", "a reason from another instance (expected 0)"
        STATEMENT = "statement", "the statement itself (expected at most 1)"
        REFERENCE = "reference", "a human reference (expected at least 2)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    instance = models.ForeignKey(Instance, on_delete=models.PROTECT, related_name="items")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.SYSTEM)
    control_kind = models.CharField(max_length=20, choices=Control.choices, blank=True, default="")
    expected_min = models.PositiveSmallIntegerField(null=True, blank=True)
    expected_max = models.PositiveSmallIntegerField(null=True, blank=True)
    text = models.TextField(blank=True, help_text="The reason shown to raters.")
    outputs = models.ManyToManyField(SystemOutput, through="ItemOutput", related_name="items", blank=True)
    needed = models.PositiveSmallIntegerField(help_text="Ratings this item needs (the campaign's M).")
    active_count = models.PositiveSmallIntegerField(default=0)
    done_count = models.PositiveSmallIntegerField(default=0)
    shuffle_key = models.BigIntegerField(default=0, help_text="Random key; per-rater order derives from it.")
    retired = models.BooleanField(
        default=False, help_text="Its instance was retired: it takes no more ratings and none of its ratings count."
    )

    class Meta:
        ordering = ["campaign", "id"]
        # The engine reads the open items fullest first, then in random key order (core.engine).
        indexes = [models.Index(fields=["campaign", "active_count", "shuffle_key"], name="item_pick_idx")]
        constraints = [
            # 0 only for an item a racing campaign closed before anyone took it (SystemRetirement).
            models.CheckConstraint(condition=Q(needed__gte=0), name="item_needed_not_negative"),
            models.CheckConstraint(condition=Q(active_count__lte=F("needed")), name="item_active_le_needed"),
            models.CheckConstraint(condition=Q(done_count__lte=F("active_count")), name="item_done_le_active"),
            models.CheckConstraint(
                condition=(Q(kind="system") & Q(control_kind="")) | (Q(kind="control") & ~Q(control_kind="")),
                name="item_control_kind_matches",
            ),
            # A retired item is full: the engine's pick (``active_count < needed``) never sees it again.
            models.CheckConstraint(
                condition=Q(retired=False) | Q(active_count=F("needed")), name="item_retired_is_full"
            ),
        ]

    def __str__(self) -> str:
        return f"item {self.pk} ({self.kind})"

    @property
    def is_control(self) -> bool:
        return self.kind == self.Kind.CONTROL


class ItemOutput(models.Model):
    """Links an item to the system output(s) it stands for; each output has one item per campaign."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="item_outputs")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="item_outputs")
    output = models.ForeignKey(SystemOutput, on_delete=models.PROTECT, related_name="item_outputs")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "output"], name="item_output_unique_per_campaign"),
        ]


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

    def __str__(self) -> str:
        """The account: the username, or platform:worker id of a crowd worker (organizers' eyes only)."""
        if self.external_id:
            return f"{self.platform}:{self.external_id}"
        user = self.user if self.user_id else None
        return user.get_username() if user is not None else f"rater {self.pk}"

    @property
    def is_crowd_account(self) -> bool:
        """A crowd platform's worker: enters only through a campaign's crowd entry address (core.doors)."""
        return self.platform in CROWD_RATER_PLATFORMS

    @property
    def label(self) -> str:
        """The rater's display name everywhere (pages, exports, API): ``rater-<id>`` (:func:`rater_label`)."""
        return rater_label(self.pk)


def rater_label(rater_id: int) -> str:
    """The name a rater goes by on every page and in every export: a pseudonym, never a username or
    WorkerId, so that the dashboard, ratings.csv and the quality page all say the same "rater-7"."""
    return f"rater-{rater_id}"


CROWD_RATER_PLATFORMS = (Rater.Platform.MTURK, Rater.Platform.PROLIFIC)


class AssignmentQuerySet(models.QuerySet["Assignment"]):
    """Domain queries over assignments."""

    def of_rater(self, rater: Rater | None) -> AssignmentQuerySet:
        """The rater's own assignments: all a rater may ever see or act on (someone else's id is the
        same 404 as a missing one; no rater, none)."""
        return self.filter(rater=rater) if rater is not None else self.none()

    def unfinished(self) -> AssignmentQuerySet:
        """Not yet rated and not excluded: leased, or expired (a kept choice may still be submitted)."""
        return self.exclude(status__in=[Assignment.Status.DONE, Assignment.Status.EXCLUDED])

    def live(self, now: datetime) -> AssignmentQuerySet:
        """Leases held at ``now``: leased and not past their time (who is rating right now)."""
        return self.filter(status=Assignment.Status.LEASED, lease_expires_at__gt=now)


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
    crowd_session = models.ForeignKey(
        "CrowdSession",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="assignments",
        help_text="The crowd session (MTurk assignment, Prolific session) that took it.",
    )

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["campaign", "rater", "status"], name="assignment_rater_idx"),
            models.Index(fields=["status", "lease_expires_at"], name="assignment_lease_idx"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["item", "rater"], name="assignment_unique_item_rater"),
            # One live lease per rater per campaign, whatever the concurrency (issue 18): a partial
            # unique index, on SQLite and PostgreSQL alike. A lease past its time still counts as held
            # until it is expired; the engine expires the rater's own before leasing anew.
            models.UniqueConstraint(
                fields=["rater", "campaign"], condition=Q(status="leased"), name="assignment_one_lease_per_rater"
            ),
            models.CheckConstraint(
                condition=Q(status="done", completed_at__isnull=False) | ~Q(status="done"),
                name="assignment_done_has_time",
            ),
        ]


@dataclass(frozen=True)
class LeftOut:
    """What no figure of a campaign counts, for the exports' notes (:meth:`RatingQuerySet.left_out`): the raters
    the organizer excluded and how many of their system-item ratings, and the control items and their ratings."""

    excluded_raters: int
    excluded_ratings: int
    control_items: int
    control_ratings: int


class RatingQuerySet(models.QuerySet["Rating"]):
    """Domain queries over ratings: which ratings count, the one rule every interface and figure uses."""

    def counted(self, campaign: Campaign) -> RatingQuerySet:
        """The ratings that enter ``campaign``'s results: the one rule of what counts (issue 18).

        A rating counts when it is of a system item (never a control item) of an instance not retired
        (:func:`core.flags.retire_instance`), neither it nor its rater was excluded, and it came through a
        door the campaign opened (:mod:`core.doors`):

        - imported from a file by an organizer (an MTurk batch or long-form import): counts;
        - made in the app by a lab account (any account that is not a crowd platform's): counts while the
          campaign's lab access admits that account (all lab raters, or the ones it lists; none: never);
        - made in the app by a crowd account: counts only when made inside one of the campaign's crowd
          sessions, that session not rejected, and, with ``count_reconciled_only``, verified by the
          platform's records. A crowd account's rating outside any crowd session never counts.

        The doors are subqueries (the crowd raters, the leases of the campaign's counting crowd sessions), not
        joins: a million ratings are then read with one join (their item) instead of four, which is most of
        Table 6's time (issue 22).
        """
        excluded_raters = RaterExclusion.objects.filter(campaign=campaign).values("rater_id")
        ratings = self.filter(
            campaign=campaign, excluded=False, item__kind=Item.Kind.SYSTEM, item__retired=False
        ).exclude(rater_id__in=excluded_raters)
        return ratings.filter(_counting_doors(campaign))

    def counted_per_system(self, campaign: Campaign) -> RatingQuerySet:
        """:meth:`counted`, one row per rating and system it counts for: a rating of an item that stands for
        several systems' identical outputs counts for each of them (``item__item_outputs__output__system_id``)."""
        return self.counted(campaign).filter(item__item_outputs__campaign=campaign)

    def left_out(self, campaign: Campaign) -> LeftOut:
        """:class:`LeftOut` of ``campaign``: what :meth:`counted` leaves out and the exports name."""
        excluded = list(RaterExclusion.objects.filter(campaign=campaign).values_list("rater_id", flat=True))
        controls = Item.objects.filter(campaign=campaign, kind=Item.Kind.CONTROL).values("pk")
        control_items = controls.count()
        return LeftOut(
            excluded_raters=len(excluded),
            excluded_ratings=(
                self.filter(campaign=campaign, item__kind=Item.Kind.SYSTEM, rater_id__in=excluded).count()
                if excluded
                else 0
            ),
            control_items=control_items,
            control_ratings=self.filter(campaign=campaign, item_id__in=controls).count() if control_items else 0,
        )


def _counting_doors(campaign: Campaign) -> Q:
    """The doors of :meth:`RatingQuerySet.counted` as one condition (subqueries, see there)."""
    app = Q(source=Rating.Source.APP)
    crowd_raters = Rater.objects.filter(platform__in=CROWD_RATER_PLATFORMS).values("pk")
    imported = ~app
    lab = app & ~Q(rater_id__in=crowd_raters)
    if campaign.lab_access == Campaign.LabAccess.LISTED:
        lab &= Q(rater_id__in=campaign.lab_raters.values("pk"))
    elif campaign.lab_access == Campaign.LabAccess.NONE:
        lab = Q(pk__in=[])
    statuses = (
        [CrowdSession.Status.VERIFIED]
        if campaign.count_reconciled_only
        else [CrowdSession.Status.VERIFIED, CrowdSession.Status.UNVERIFIED]
    )
    session_leases = Assignment.objects.filter(
        crowd_session__campaign=campaign, crowd_session__status__in=statuses
    ).values("pk")
    crowd = app & Q(rater_id__in=crowd_raters, assignment_id__in=session_leases)
    return imported | lab | crowd


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

    objects = RatingQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["campaign", "excluded"], name="rating_campaign_idx")]
        constraints = [
            models.UniqueConstraint(fields=["item", "rater"], name="rating_unique_item_rater"),
            models.CheckConstraint(
                condition=Q(score__gte=SCORE_MIN) & Q(score__lte=SCORE_MAX), name="rating_score_0_3"
            ),
            models.CheckConstraint(condition=Q(seconds__isnull=True) | Q(seconds__gte=0), name="rating_seconds_nonneg"),
        ]


class RatingCorrection(models.Model):
    """A rater's change of their own last score soon after submitting it (:mod:`core.corrections`).

    The rating keeps its row (same item, same rater, same assignment: the distinct-raters
    invariant is untouched) and takes the new score; this row records what it was before.
    """

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="corrections")
    old_score = models.PositiveSmallIntegerField()
    new_score = models.PositiveSmallIntegerField()
    corrected_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(old_score__gte=SCORE_MIN)
                & Q(old_score__lte=SCORE_MAX)
                & Q(new_score__gte=SCORE_MIN)
                & Q(new_score__lte=SCORE_MAX),
                name="correction_scores_0_3",
            ),
            models.CheckConstraint(condition=~Q(old_score=F("new_score")), name="correction_changes_score"),
        ]


class ItemFlag(models.Model):
    """A rater's report that an item is broken (unreadable, wrong statement, ...), and the organizer's
    decision on it: open until dismissed (the item is fine and keeps being rated) or until its
    instance is retired (the statement is broken)."""

    class Status(models.TextChoices):
        OPEN = "open", "waiting for review"
        DISMISSED = "dismissed", "dismissed: the item is rated as it stands"
        RETIRED = "retired", "its instance was retired"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="flags")
    rater = models.ForeignKey(Rater, on_delete=models.CASCADE, related_name="flags")
    note = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "rater"], name="flag_unique_item_rater"),
            models.CheckConstraint(
                condition=Q(status="open", resolved_at__isnull=True)
                | (~Q(status="open") & Q(resolved_at__isnull=False)),
                name="flag_resolved_has_time",
            ),
        ]


class RaterExclusion(models.Model):
    """An organizer's decision to drop a rater from a campaign (S8)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="exclusions")
    rater = models.ForeignKey(Rater, on_delete=models.CASCADE, related_name="exclusions")
    reason = models.TextField(blank=True, default="")
    excluded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "rater"], name="exclusion_unique")]


class SessionRatings(TypedDict):
    ratings: int


if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    CrowdSessionWithRatings = WithAnnotations["CrowdSession", SessionRatings]


class CrowdSessionQuerySet(models.QuerySet["CrowdSession", "CrowdSession"]):
    """Domain queries over crowd sessions."""

    def with_ratings(self) -> CrowdSessionQuerySet[CrowdSessionWithRatings, CrowdSession]:
        """Each session with ``ratings``: its own leases that ended in a rating (as
        :meth:`CrowdSession.rating_count` counts them), for the organizer's review of the sessions."""
        return self.annotate(ratings=CrowdSession.ratings_expression())


class CrowdSession(models.Model):
    """One Mechanical Turk assignment or one Prolific study session of a crowd rater in a campaign.

    Kept so that a returning worker resumes the same session, the per-session cap counts only
    this session's ratings, and the organizer can review the work by assignment or session id.
    Its leases are its own (``Assignment.crowd_session``): another browser presenting the same worker
    id with another session id gets neither its items nor its progress. The platform's own records
    of submitted work verify or reject it (``status``); with the campaign's ``count_reconciled_only``
    only a verified session's ratings count in results.
    """

    class Status(models.TextChoices):
        UNVERIFIED = "unverified", "not yet in the platform's records"
        VERIFIED = "verified", "submitted or approved on the platform"
        REJECTED = "rejected", "rejected, returned or not this worker's on the platform"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="crowd_sessions")
    rater = models.ForeignKey(Rater, on_delete=models.CASCADE, related_name="crowd_sessions")
    platform = models.CharField(max_length=10, choices=Rater.Platform.choices)
    session_id = models.CharField(max_length=255, help_text="MTurk assignmentId, or Prolific SESSION_ID.")
    task_id = models.CharField(max_length=255, help_text="MTurk hitId, or Prolific STUDY_ID.")
    submit_to = models.CharField(
        max_length=255,
        blank=True,
        default="",
        help_text="MTurk: the checked turkSubmitTo origin the HIT is submitted to.",
    )
    started_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.UNVERIFIED)
    platform_status = models.CharField(
        max_length=40, blank=True, default="", help_text="The status the platform's records gave, as written there."
    )
    reconciled_at = models.DateTimeField(null=True, blank=True)

    objects = CrowdSessionQuerySet.as_manager()

    class Meta:
        ordering = ["campaign", "started_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["platform", "session_id"], name="crowd_session_unique_id"),
            models.CheckConstraint(condition=Q(platform__in=["mturk", "prolific"]), name="crowd_session_platform"),
            models.CheckConstraint(condition=~Q(session_id="") & ~Q(task_id=""), name="crowd_session_ids_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.platform}:{self.session_id}"

    @staticmethod
    def ratings_expression() -> Count:
        """A session's ratings in a query (per session, or summed per group of sessions): its own leases
        that ended in a rating."""
        return Count("assignments", filter=Q(assignments__status=Assignment.Status.DONE))

    def rating_count(self) -> int:
        """Ratings the worker made in this session: its own leases that ended in a rating (which ratings
        belong to a session; the per-session cap and the session's progress count these)."""
        return self.assignments.filter(status=Assignment.Status.DONE).count()
