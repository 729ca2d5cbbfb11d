"""Serializers of the API: what goes in and out of each endpoint, and nothing more.

Write serializers only validate the shape of a request; the work is done by the services
(``evalapp/services``, ``annotators/engine.py``), exactly as for the commands and the web.
"""

from rest_framework import serializers

from core.api.serializers import ProblemSerializer
from core.crowd import MTURK, PROLIFIC
from core.defaults import (
    COMPLETION_URL_MAX_CHARS,
    DEFAULT_CONTROL_RATE,
    DEFAULT_LEASE_SECONDS,
    DEFAULT_RATERS_PER_ITEM,
    DEFAULT_TIE_MARGIN,
    INSTANCE_ID_MAX_CHARS,
    MAX_TIE_MARGIN,
    NAME_MAX_CHARS,
    NOTE_MAX_CHARS,
    REASON_MAX_CHARS,
    REFERENCE_POSITIONS,
)
from core.models import Campaign, CrowdSession, Dataset, System
from evalapp.models import MetricRun
from evalapp.options.interfaces import source_of_upload
from evalapp.services.crowd import SETTINGS as CROWD_SETTINGS
from evalapp.services.crowd import entry_url, lab_rater_choices, settings_problems
from evalapp.services.metric_study.runs import seconds_left, status_line, time_left_line


class UploadField(serializers.FileField):
    """A multipart file, refused above ``COMVE_MAX_UPLOAD_BYTES``; yields a :class:`SourceFile`."""

    def to_internal_value(self, data):
        try:
            return source_of_upload(super().to_internal_value(data))
        except ValueError as error:
            raise serializers.ValidationError(str(error)) from None


# Data ------------------------------------------------------------------------------------------


class DatasetSerializer(serializers.ModelSerializer):
    instances = serializers.IntegerField(source="instance_count", read_only=True)
    systems = serializers.IntegerField(source="system_count", read_only=True)

    class Meta:
        model = Dataset
        fields = ["id", "name", "split", "instances", "systems", "created_at"]


class ImportReportSerializer(serializers.Serializer):
    """What a dataset import wrote (``import_comve``)."""

    id = serializers.IntegerField()
    dataset = serializers.CharField()
    split = serializers.CharField()
    instances = serializers.IntegerField()
    references = serializers.IntegerField()
    true_sentences = serializers.IntegerField()
    warnings = ProblemSerializer(many=True)


class SubmissionReportSerializer(serializers.Serializer):
    """The validation report of an accepted submission (``import_submission --json``)."""

    system = serializers.CharField()
    system_id = serializers.IntegerField()
    rows = serializers.IntegerField()
    official_bleu = serializers.FloatField(allow_null=True, help_text="0-100; null when partial.")
    warnings = ProblemSerializer(many=True)
    dataset = serializers.CharField()
    marker = serializers.CharField(allow_blank=True)
    # A field named like Serializer.partial: DRF moves declared fields off the class, so they never clash.
    partial = serializers.BooleanField()  # type: ignore[assignment]
    missing = serializers.IntegerField()
    submission_id = serializers.IntegerField()
    sha256 = serializers.CharField()
    bleu_signature = serializers.CharField()


class SystemSerializer(serializers.ModelSerializer):
    """A system with the figures of its latest accepted submission."""

    outputs = serializers.IntegerField(source="output_count", read_only=True)
    official_bleu = serializers.FloatField(
        source="latest_bleu",
        read_only=True,
        allow_null=True,
        help_text="Official Subtask C BLEU (0-100); null when partial.",
    )
    partial = serializers.BooleanField(source="latest_partial", read_only=True, allow_null=True)  # type: ignore[assignment]

    class Meta:
        model = System
        fields = [
            "id",
            "name",
            "marker",
            "is_human",
            "human_reference",
            "outputs",
            "official_bleu",
            "partial",
            "created_at",
        ]


# Campaigns -------------------------------------------------------------------------------------


class CampaignSerializer(serializers.ModelSerializer):
    """A campaign's settings. The crowd-platform completion URL and codes are not shown: only a
    rater who finished gets them (and organizers on the crowd settings page)."""

    dataset: serializers.SlugRelatedField[Dataset] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    systems = serializers.ManyRelatedField(
        child_relation=serializers.SlugRelatedField(slug_field="name", read_only=True), read_only=True
    )

    class Meta:
        model = Campaign
        fields = [
            "id",
            "name",
            "dataset",
            "status",
            "seed",
            "sample_size",
            "raters_per_item",
            "systems",
            "human_reference",
            "rubric",
            "instructions",
            "lease_seconds",
            "share_identical_outputs",
            "control_rate",
            "min_control_pass_rate",
            "min_coagreement",
            "min_median_seconds",
            "tie_margin",
            "racing",
            "created_at",
        ]
        read_only_fields = fields


class CampaignCreateSerializer(serializers.Serializer):
    """``manage.py create_campaign`` as JSON; the service checks the values against the data."""

    dataset = serializers.PrimaryKeyRelatedField(queryset=Dataset.objects.all())
    name = serializers.CharField(max_length=NAME_MAX_CHARS)
    sample = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, help_text="Sample this many instances at random (paper: 100)."
    )
    seed = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        help_text="Seed of the sample, controls and order; drawn and stored when omitted.",
    )
    instance_ids = serializers.ListField(
        child=serializers.CharField(max_length=INSTANCE_ID_MAX_CHARS),
        required=False,
        allow_null=True,
        allow_empty=False,
        help_text="Exactly these instances (instead of a sample).",
    )
    raters_per_item = serializers.IntegerField(default=DEFAULT_RATERS_PER_ITEM, min_value=1)
    systems = serializers.ListField(
        child=serializers.CharField(max_length=NAME_MAX_CHARS),
        required=False,
        allow_null=True,
        help_text="System names; default: every system covering the sample.",
    )
    human_reference = serializers.ChoiceField(
        choices=REFERENCE_POSITIONS,
        required=False,
        allow_null=True,
        help_text="Also rate reference k as the pseudo-system Human.",
    )
    rubric = serializers.JSONField(
        required=False, allow_null=True, help_text="[{score, label, description}] for scores 0-3; default Table 1."
    )
    lease_seconds = serializers.IntegerField(default=DEFAULT_LEASE_SECONDS, min_value=1)
    share_identical_outputs = serializers.BooleanField(default=False)
    control_rate = serializers.FloatField(default=DEFAULT_CONTROL_RATE, min_value=0, max_value=1)
    instructions = serializers.CharField(required=False, allow_blank=True, default="")
    mturk_enabled = serializers.BooleanField(default=False, help_text="Let workers in from a Mechanical Turk HIT.")
    prolific_enabled = serializers.BooleanField(default=False, help_text="Let participants in from a Prolific study.")
    tie_margin = serializers.FloatField(
        default=DEFAULT_TIE_MARGIN,
        help_text=(
            "Two systems closer than this on the 0-3 scale may be decided a tie (above 0, at most "
            f"{MAX_TIE_MARGIN}); fixed before rating starts."
        ),
    )
    racing = serializers.BooleanField(
        default=False,
        help_text=("A system whose comparisons are all decided stops receiving new items (off: the paper's protocol)."),
    )


class CampaignSummarySerializer(serializers.Serializer):
    """A new campaign's settings and size (``create_campaign --json``)."""

    id = serializers.IntegerField()
    campaign = serializers.CharField()
    dataset = serializers.CharField()
    status = serializers.CharField()
    seed = serializers.IntegerField()
    sample_size = serializers.IntegerField()
    instances = serializers.ListField(child=serializers.CharField())
    systems = serializers.ListField(child=serializers.CharField())
    systems_not_included = serializers.ListField(child=serializers.CharField())
    human_reference = serializers.IntegerField(allow_null=True)
    raters_per_item = serializers.IntegerField()
    items = serializers.IntegerField()
    control_items = serializers.IntegerField()
    shared_identical_outputs = serializers.BooleanField()
    outputs_sharing_an_item = serializers.IntegerField()
    ratings_expected = serializers.IntegerField()
    control_rate = serializers.FloatField()
    lease_seconds = serializers.IntegerField()
    rubric = serializers.JSONField()
    mturk_enabled = serializers.BooleanField()
    prolific_enabled = serializers.BooleanField()
    tie_margin = serializers.FloatField()
    racing = serializers.BooleanField()


class SystemProgressSerializer(serializers.Serializer):
    system_id = serializers.IntegerField()
    name = serializers.CharField()
    marker = serializers.CharField(allow_blank=True)
    is_human = serializers.BooleanField()
    items = serializers.IntegerField()
    ratings = serializers.IntegerField()
    expected = serializers.IntegerField()
    complete = serializers.BooleanField()
    fraction = serializers.FloatField()


class CrowdCountSerializer(serializers.Serializer):
    sessions = serializers.IntegerField()
    ratings = serializers.IntegerField()


class StallSerializer(serializers.Serializer):
    """``core.progress.Stall``."""

    waiting = serializers.IntegerField(help_text="Items with room that none of the campaign's raters may take.")
    raters = serializers.IntegerField(help_text="The campaign's raters (not excluded).")
    reported = serializers.IntegerField(help_text="Of the waiting items, those with a report to review.")
    stuck = serializers.BooleanField(help_text="No rater can progress: no live lease, every item with room waits.")
    explanation = serializers.CharField()


class CampaignProgressSerializer(serializers.Serializer):
    """``core.progress.CampaignProgress``: system items and control items apart."""

    items = serializers.IntegerField()
    ratings = serializers.IntegerField()
    expected = serializers.IntegerField()
    control_items = serializers.IntegerField()
    control_ratings = serializers.IntegerField()
    control_expected = serializers.IntegerField()
    leased = serializers.IntegerField(help_text="Live leases right now.")
    active_raters = serializers.IntegerField()
    raters = serializers.IntegerField()
    flagged_items = serializers.IntegerField(help_text="Items with a report waiting for the organizer's review.")
    retired_instances = serializers.IntegerField(help_text="Instances retired by the organizer (count for no system).")
    stall = StallSerializer(
        allow_null=True, help_text="Why the campaign does not finish, when no rater can take some item; null otherwise."
    )
    complete = serializers.BooleanField()
    fraction = serializers.FloatField()
    systems = SystemProgressSerializer(many=True)
    crowd = serializers.DictField(
        child=CrowdCountSerializer(),
        help_text="Crowd sessions and their ratings by what the platforms' records say: verified, unverified, "
        "rejected.",
    )


class ReportSerializer(serializers.Serializer):
    rater_id = serializers.IntegerField()
    rater = serializers.CharField()
    note = serializers.CharField()
    created_at = serializers.DateTimeField()
    status = serializers.ChoiceField(choices=["open", "dismissed", "retired"])


class FlaggedItemSerializer(serializers.Serializer):
    """``core.flags.ReportedItem``: an item of the review queue."""

    item = serializers.IntegerField(source="item_id")
    instance_id = serializers.CharField()
    kind = serializers.CharField()
    statement = serializers.CharField()
    reason = serializers.CharField(help_text="The reason as raters saw it.")
    flags = serializers.SerializerMethodField(help_text="How many raters reported it.")
    notes = serializers.ListField(child=serializers.CharField())
    reports = ReportSerializer(many=True)
    open = serializers.BooleanField(help_text="A report waits for review.")
    retired = serializers.BooleanField()
    ratings = serializers.IntegerField()
    needed = serializers.IntegerField()
    systems = serializers.SerializerMethodField(
        help_text="The systems whose reason it is (``?systems=true``); null otherwise, so a review can stay blind."
    )

    def get_flags(self, entry) -> int:
        return len(entry.reports)

    def get_systems(self, entry) -> list[str] | None:
        return list(entry.systems) if self.context.get("systems") else None


class ReviewDecisionSerializer(serializers.Serializer):
    """``core.flags.Decision``."""

    item_id = serializers.IntegerField()
    instance_id = serializers.CharField()
    reports_resolved = serializers.IntegerField()
    items_retired = serializers.IntegerField()
    leases_released = serializers.IntegerField()
    already = serializers.BooleanField(help_text="Nothing changed: no open report, or the instance was retired.")


class RetirementSerializer(serializers.Serializer):
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=NOTE_MAX_CHARS,
        help_text="Why the statement is broken (printed under Table 6).",
    )


class LabRaterEntrySerializer(serializers.Serializer):
    """One rater; a problem with it is reported with ``line`` = its position in the list (from 1)."""

    name = serializers.CharField(allow_blank=True)
    email = serializers.CharField(allow_blank=True)


def sign_in_field() -> serializers.ChoiceField:
    """How a new lab rater signs in, offered by the two serializers that create or re-issue a sign-in."""
    return serializers.ChoiceField(
        choices=["link", "password"],
        default="link",
        help_text="link: a one-time sign-in link; password: a printed password.",
    )


class LabRatersCreateSerializer(serializers.Serializer):
    """JSON: ``raters`` as a list; or multipart: ``file``, a CSV with the header name,email."""

    raters = LabRaterEntrySerializer(many=True, required=False)
    file = UploadField(required=False, help_text="A CSV: header name,email, one rater a line.")
    sign_in = sign_in_field()

    def validate(self, data):
        if bool(data.get("raters")) == bool(data.get("file")):
            raise serializers.ValidationError("Give either raters (a list) or file (a CSV), not both or neither.")
        return data


class SignInSerializer(serializers.Serializer):
    sign_in = sign_in_field()


class CredentialSerializer(serializers.Serializer):
    """How a new or renewed account signs in: shown once, never stored readable."""

    rater_id = serializers.IntegerField()
    username = serializers.CharField()
    name = serializers.CharField()
    password = serializers.CharField(allow_null=True)
    link = serializers.CharField(allow_null=True, help_text="An absolute one-time sign-in address.")


class LabRaterSerializer(serializers.Serializer):
    rater_id = serializers.IntegerField()
    username = serializers.CharField()
    name = serializers.CharField()
    active = serializers.BooleanField()
    ratings = serializers.IntegerField(help_text="Counted ratings in this campaign.")
    last_login = serializers.DateTimeField(allow_null=True)
    signed_in = serializers.BooleanField()


class ExclusionResultSerializer(serializers.Serializer):
    rater_id = serializers.IntegerField()
    excluded = serializers.BooleanField()
    created = serializers.BooleanField(help_text="False when the rater was already excluded.")
    ratings_excluded = serializers.IntegerField()
    items_reopened = serializers.IntegerField()
    reason = serializers.CharField(allow_blank=True)


class RaterQualitySerializer(serializers.Serializer):
    """One rater's quality figures in a campaign (``core.quality.RaterQuality``)."""

    rater_id = serializers.IntegerField()
    rater = serializers.CharField()
    platform = serializers.CharField()
    ratings = serializers.IntegerField()
    control_ratings = serializers.IntegerField()
    control_passed = serializers.IntegerField()
    control_pass_rate = serializers.FloatField(allow_null=True)
    compared_pairs = serializers.IntegerField()
    exact_agreement = serializers.FloatField(allow_null=True)
    mean_abs_difference = serializers.FloatField(allow_null=True)
    timed_ratings = serializers.IntegerField()
    median_seconds = serializers.FloatField(allow_null=True)
    flags_raised = serializers.IntegerField()
    excluded = serializers.BooleanField()
    flagged = serializers.BooleanField()
    problems = serializers.ListField(child=serializers.CharField(), help_text="Why the rater is flagged.")


class CrowdSettingsSerializer(serializers.ModelSerializer):
    """A campaign's crowd settings; the entry addresses (with the crowd key) come back with them."""

    completion_url = serializers.URLField(required=False, allow_blank=True, max_length=COMPLETION_URL_MAX_CHARS)
    lab_raters = serializers.PrimaryKeyRelatedField(
        many=True,
        required=False,
        queryset=lab_rater_choices(),
        help_text="Rater ids of the lab raters the campaign lists (used when lab_access is 'listed').",
    )
    mturk_url = serializers.SerializerMethodField(help_text="The HIT's ExternalURL (with the crowd key).")
    prolific_url = serializers.SerializerMethodField(help_text="The study URL (with the crowd key).")

    class Meta:
        model = Campaign
        fields = [*CROWD_SETTINGS, "mturk_url", "prolific_url"]

    def validate(self, attrs):
        problems = settings_problems({**{name: getattr(self.instance, name) for name in CROWD_SETTINGS}, **attrs})
        if problems:
            raise serializers.ValidationError(problems)
        return attrs

    def _url(self, campaign, platform):
        return entry_url(self.context["request"].build_absolute_uri("/"), campaign, platform)

    def get_mturk_url(self, campaign) -> str:
        return self._url(campaign, MTURK)

    def get_prolific_url(self, campaign) -> str:
        return self._url(campaign, PROLIFIC)


class ReconciliationSerializer(serializers.Serializer):
    platform = serializers.CharField()
    replace = serializers.BooleanField(help_text="Whether the file replaced the whole record.")
    records = serializers.IntegerField(help_text="Records read from the file.")
    verified = serializers.IntegerField()
    unverified = serializers.IntegerField()
    rejected = serializers.IntegerField()
    kept_unlisted = serializers.IntegerField(help_text="Verified sessions the file does not list: kept verified.")
    unverified_unlisted = serializers.IntegerField(
        help_text="With replace: verified sessions the file does not confirm, unverified again."
    )
    ratings_excluded = serializers.IntegerField(help_text="Ratings of newly rejected sessions, which no longer count.")
    items_reopened = serializers.IntegerField()
    not_in_campaign_count = serializers.IntegerField(help_text="Records of no session here.")
    not_in_campaign = serializers.ListField(
        child=serializers.DictField(), help_text="The first 50 records of no session here."
    )
    other_worker_count = serializers.IntegerField(help_text="Sessions the file lists under another worker.")
    other_worker = serializers.ListField(
        child=serializers.DictField(), help_text="The first 50 sessions the file lists under another worker (rejected)."
    )
    notes = serializers.ListField(child=serializers.CharField(), help_text="What to know beyond the counts, in words.")


class CrowdSessionSerializer(serializers.Serializer):
    """One crowd session as the organizer reviews it before approving the work on the platform."""

    platform = serializers.CharField()
    worker_id = serializers.CharField()
    session_id = serializers.CharField(help_text="MTurk assignmentId, or Prolific SESSION_ID.")
    task_id = serializers.CharField(help_text="MTurk hitId, or Prolific STUDY_ID.")
    started_at = serializers.DateTimeField()
    ratings = serializers.IntegerField()
    screened_out = serializers.BooleanField()
    code = serializers.CharField(allow_blank=True, help_text="Prolific: the code the worker was shown.")
    status = serializers.ChoiceField(
        choices=CrowdSession.Status.choices, help_text="What the platform's records say of the session."
    )
    platform_status = serializers.CharField(allow_blank=True, help_text="The status as the platform's file wrote it.")


class ExclusionSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=REASON_MAX_CHARS)


# Results ---------------------------------------------------------------------------------------


class RatingRecordSerializer(serializers.Serializer):
    """One row of the long-form ratings export, as in its CSV (``seconds`` "" when unknown)."""

    instance_id = serializers.CharField()
    system = serializers.CharField()
    rater = serializers.CharField(help_text="Pseudonym rater-<id>.")
    score = serializers.IntegerField()
    seconds = serializers.JSONField(help_text='Seconds spent, or "" when unknown.')
    # A field named like Field.source: DRF moves declared fields off the class, so they never clash.
    source = serializers.CharField()  # type: ignore[assignment]
    shared_item = serializers.CharField(help_text='"true" when the item stood for several identical outputs.')


class RatingsImportReportSerializer(serializers.Serializer):
    """What a ratings import did (``import_ratings --json``)."""

    file = serializers.CharField()
    format = serializers.CharField()
    accepted = serializers.IntegerField()
    rejected = serializers.ListField(
        child=serializers.DictField(), help_text="Rows not counted: {line, value, reason, column}."
    )
    skipped = serializers.IntegerField(help_text="Rows of rejected Mechanical Turk assignments.")
    skipped_rows = serializers.ListField(child=serializers.DictField())
    unknown = serializers.ListField(child=serializers.CharField(), help_text="What the file could not tell.")
    raters_created = serializers.IntegerField()


class RaterAgreementSerializer(serializers.Serializer):
    rater = serializers.CharField(help_text="Pseudonym rater-<id>.")
    ratings = serializers.IntegerField()
    mean_score = serializers.FloatField(allow_null=True)
    pairs = serializers.IntegerField()
    exact_agreement = serializers.FloatField(allow_null=True)
    mean_qwk = serializers.FloatField(allow_null=True)
    qwk_pairs = serializers.IntegerField()


class AgreementSerializer(serializers.Serializer):
    """``manage.py agreement --json``; a coefficient undefined on the data is null."""

    campaign = serializers.CharField()
    krippendorff_alpha_ordinal = serializers.FloatField(allow_null=True)
    krippendorff_alpha_interval = serializers.FloatField(allow_null=True)
    fleiss_kappa = serializers.FloatField(allow_null=True)
    exact_agreement = serializers.FloatField(allow_null=True)
    mean_pairwise_qwk = serializers.FloatField(allow_null=True)
    units = serializers.IntegerField()
    units_are = serializers.CharField()
    ratings = serializers.IntegerField()
    pairable_units = serializers.IntegerField()
    fleiss_units = serializers.IntegerField()
    raters_per_item = serializers.IntegerField()
    qwk_rater_pairs = serializers.IntegerField()
    qwk_min_shared_units = serializers.IntegerField()
    scale = serializers.ListField(child=serializers.IntegerField())
    raters = RaterAgreementSerializer(many=True)


# Metrics ---------------------------------------------------------------------------------------


class MetricImportReportSerializer(serializers.Serializer):
    metric = serializers.CharField()
    level = serializers.CharField()
    scores = serializers.IntegerField()
    systems = serializers.IntegerField()


class MetricRunSerializer(serializers.ModelSerializer):
    campaign: serializers.SlugRelatedField[Campaign] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    status_line = serializers.SerializerMethodField(
        help_text='What the run is doing, each thing once, e.g. "Running: BERTScore: 4,120 of 13,854 sentences".'
    )
    seconds_left = serializers.SerializerMethodField(
        help_text="Estimated seconds until a running run is done (elapsed x (1 - progress) / progress); "
        "null when not running or too early to tell."
    )
    time_left = serializers.SerializerMethodField(
        help_text='The estimate in words, e.g. "About 3 minutes left."; empty without one.'
    )

    class Meta:
        model = MetricRun
        fields = [
            "id",
            "campaign",
            "metrics",
            "options",
            "status",
            "progress",
            "message",
            "status_line",
            "seconds_left",
            "time_left",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_status_line(self, run) -> str:
        return status_line(run)

    def get_seconds_left(self, run) -> float | None:
        left = seconds_left(run)
        return None if left is None else round(left, 1)

    def get_time_left(self, run) -> str:
        return time_left_line(seconds_left(run))
