"""Results of a campaign: Table 6, the ratings (export and import) and agreement.

Every download is made by :mod:`evalapp.services.exports`, as the pages' and ``manage.py
export``'s are, so the API, the pages and the commands give byte-identical files. Raters are
pseudonymous (``rater-<id>``) in every export.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from core.api.base import ApiView
from core.api.permissions import ORGANIZER, RESULTS_VIEWER
from core.defaults import (
    CLUSTER_RULES,
    DEFAULT_CLUSTER_RULE,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SEED,
    DEFAULT_TABLE6_RESAMPLES,
    MAX_RATERS_PER_ITEM,
    MAX_REQUEST_PERMUTATIONS,
    MAX_REQUEST_RESAMPLES,
    PLANNER_ALPHA,
    PLANNER_MAX_ALPHA,
    PLANNER_MAX_POWER,
    PLANNER_MIN_ALPHA,
    PLANNER_MIN_POWER,
    PLANNER_POWER,
    REQUEST_SEED_BOUND,
)
from evalapp.api.campaigns import campaign_or_404
from evalapp.api.downloads import TEXT, export_response, format_parameter, renderers_for
from evalapp.api.serializers import (
    AgreementSerializer,
    RatingRecordSerializer,
    RatingsImportReportSerializer,
    RatingsImportSerializer,
)
from evalapp.services import exports, planning, sequential
from evalapp.services.ratings_import import import_ratings


class Table6Options(serializers.Serializer):
    halves = serializers.BooleanField(default=False, help_text="LaTeX only: two side-by-side halves, as in the paper.")
    latex_intervals = serializers.BooleanField(
        default=False, help_text="LaTeX only: each interval beside its score, 1.84 {\\small [1.71, 1.97]}."
    )
    bootstrap = serializers.IntegerField(
        default=DEFAULT_TABLE6_RESAMPLES,
        min_value=0,
        max_value=MAX_REQUEST_RESAMPLES,
        help_text="N > 0: add the rater-aware 95% intervals (analytic, two-way cluster-robust over raters and "
        "instances) and significance clusters.",
    )
    clusters = serializers.ChoiceField(
        choices=CLUSTER_RULES,
        default=DEFAULT_CLUSTER_RULE,
        help_text="Clustering rule: holm (Holm-corrected, every system above beats every system below) or wmt "
        "(mt-metrics-eval's AssignRanks on one-sided p, no correction).",
    )
    seed = serializers.IntegerField(default=DEFAULT_SEED, min_value=0, max_value=REQUEST_SEED_BOUND - 1)
    permutations = serializers.IntegerField(
        default=DEFAULT_PERMUTATIONS, min_value=1, max_value=MAX_REQUEST_PERMUTATIONS
    )


class Table6View(ApiView):
    """GET: Table 6 (Team, BLEU, BLEU rank, Human, Human rank, and the secondary rater-effect columns Human z and
    Human adjusted with its interval) as JSON, CSV, Markdown or LaTeX.

    Security: organizers and researchers (read-only); raters never see results.
    """

    permission_classes = RESULTS_VIEWER
    renderer_classes = renderers_for(exports.TABLE6)

    @extend_schema(
        parameters=[format_parameter(exports.FORMATS[exports.TABLE6]), Table6Options],
        responses={
            (200, "application/json"): OpenApiTypes.OBJECT,
            (200, "text/csv"): TEXT,
            (200, "text/markdown"): TEXT,
            (200, "application/x-latex"): TEXT,
        },
        tags=["results"],
    )
    def get(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        options = Table6Options(data=request.query_params)
        options.is_valid(raise_exception=True)
        try:
            export = exports.table6(campaign, request.accepted_renderer.format, **options.validated_data)
        except exports.BadOption as error:
            raise ValidationError({error.field: error.message}) from None
        return export_response(export)


class RatingsExportView(ApiView):
    """GET: the counted ratings in long form (CSV, re-importable with format ``long``, or JSON).

    Security: organizers and researchers (read-only). Raters appear as ``rater-<id>``, never
    by username or worker id; CSV cells are neutralised against spreadsheet formulas.
    """

    permission_classes = RESULTS_VIEWER
    renderer_classes = renderers_for(exports.RATINGS)
    pagination_class = None  # a download: every counted rating at once

    @extend_schema(
        parameters=[format_parameter(exports.FORMATS[exports.RATINGS])],
        responses={(200, "text/csv"): TEXT, (200, "application/json"): RatingRecordSerializer(many=True)},
        tags=["results"],
    )
    def get(self, request, campaign_id):
        return export_response(exports.ratings(campaign_or_404(campaign_id), request.accepted_renderer.format))


class RatingsImportView(ApiView):
    """POST: ratings made elsewhere (Mechanical Turk batch results or long form) into the campaign.

    Security: organizers only; multipart, CSRF with a session. A refused file (400, problems
    with file, line, column) writes nothing; rejected rows are listed in the report.
    """

    permission_classes = ORGANIZER
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": RatingsImportSerializer},
        responses={201: RatingsImportReportSerializer},
        tags=["results"],
    )
    def post(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        form = RatingsImportSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        result = import_ratings(
            campaign,
            upload.data,
            upload.name,
            form.validated_data["format"],
            system=form.validated_data.get("system"),
            columns=form.columns(),
        )
        return Response(result.as_json(), status=status.HTTP_201_CREATED)


class AgreementView(ApiView):
    """GET: inter-rater agreement (Krippendorff's alpha ordinal and interval, Fleiss' kappa,
    exact agreement, mean pairwise QWK) with per-rater figures under pseudonyms.

    Security: organizers and researchers (read-only).
    """

    permission_classes = RESULTS_VIEWER
    renderer_classes = renderers_for(exports.AGREEMENT)

    @extend_schema(responses=AgreementSerializer, tags=["results"])
    def get(self, request, campaign_id):
        return export_response(exports.agreement(campaign_or_404(campaign_id)))


class StudyPlanOptions(serializers.Serializer):
    alpha = serializers.FloatField(
        default=PLANNER_ALPHA,
        min_value=PLANNER_MIN_ALPHA,
        max_value=PLANNER_MAX_ALPHA,
        help_text="Significance level of the clustering rule (holm: the family's).",
    )
    power = serializers.FloatField(default=PLANNER_POWER, min_value=PLANNER_MIN_POWER, max_value=PLANNER_MAX_POWER)
    raters_per_item = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_RATERS_PER_ITEM,
        help_text="Raters per item to plan for (default: the campaign's).",
    )
    seed = serializers.IntegerField(default=DEFAULT_SEED, min_value=0, max_value=REQUEST_SEED_BOUND - 1)
    clusters = serializers.ChoiceField(
        choices=CLUSTER_RULES,
        default=DEFAULT_CLUSTER_RULE,
        help_text="The clustering rule to plan for (its correction and sidedness).",
    )


class StudyPlanView(ApiView):
    """GET: the study plan from this campaign as a pilot, as ``manage.py plan_study --json`` prints it:
    ``{"alpha", "power", "raters_per_item", "test", "pairs": [{"higher", "lower", "delta", "sd_diff",
    "instances_needed_normal", "instances_needed_simulated", "simulated_interval", "agrees"}], "mdd": [...],
    "variance_components"}``.

    Security: organizers and researchers (read-only); bounded options (400 names the bad one).
    """

    permission_classes = RESULTS_VIEWER

    @extend_schema(parameters=[StudyPlanOptions], responses={200: OpenApiTypes.OBJECT}, tags=["results"])
    def get(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        options = StudyPlanOptions(data=request.query_params)
        options.is_valid(raise_exception=True)
        data = options.validated_data
        try:
            plan = planning.plan_study(
                campaign, data["alpha"], data["power"], data.get("raters_per_item"), data["seed"], data["clusters"]
            )
        except planning.BadPlan as error:
            raise ValidationError({error.field: error.message}) from None
        return Response(plan)


class RankingStabilityView(ApiView):
    """GET: for each team, the bootstrap probability that its rank and its cluster are unchanged at the
    campaign's completion given the ratings so far, and whether the ranking is settled (every team at or
    above the threshold): ``{"settled", "threshold", "replicates", "systems": [{"system", "rank", "cluster",
    "rank_stability", "cluster_stability"}]}``.

    Security: organizers and researchers (read-only).
    """

    permission_classes = RESULTS_VIEWER

    @extend_schema(responses={200: OpenApiTypes.OBJECT}, tags=["results"])
    def get(self, request, campaign_id):
        return Response(planning.ranking_stability(campaign_or_404(campaign_id)).as_dict())


class SequentialStatusView(ApiView):
    """GET: the anytime-valid decisions per pair of systems, as ``manage.py sequential_status --json`` and
    the dashboard show them: ``{"alpha", "epsilon", "method", "instances_seen", "settled", "pairs":
    [{"better", "worse", "difference", "lower", "upper", "decision"}]}``.

    Security: organizers and researchers (read-only); a rater never sees a system's name here (403).
    """

    permission_classes = RESULTS_VIEWER

    @extend_schema(responses={200: OpenApiTypes.OBJECT}, tags=["results"])
    def get(self, request, campaign_id):
        return Response(sequential.sequential_status(campaign_or_404(campaign_id)).as_dict())


class RacingView(ApiView):
    """POST: racing: retire every system whose pairs are all decided, so that it receives no new items
    (a campaign with racing on, and open; otherwise nothing changes): ``{"retired": [names], "items_closed"}``.

    Security: organizers only; POST with CSRF when a session is used. The web twin is the dashboard's
    "Retire decided systems" button; the command's is ``sequential_status --retire``.
    """

    permission_classes = ORGANIZER

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT}, tags=["results"])
    def post(self, request, campaign_id):
        done = sequential.retire_decided_systems(campaign_or_404(campaign_id))
        return Response({"retired": done.systems, "items_closed": done.items_closed})
