"""Results of a campaign: Table 6, the ratings (export and import) and agreement.

The figures come from :mod:`evalapp.services.results` and the files from the same renderers
as ``manage.py export_table6`` / ``agreement``, so the API, the pages and the commands give
byte-identical downloads. Raters are pseudonymous (``rater-<id>``) in every export.
"""
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from evalapp.api.base import ApiView, download_headers
from evalapp.api.campaigns import campaign_or_404
from evalapp.api.permissions import ORGANIZER, RESULTS_VIEWER
from evalapp.api.renderers import CSVRenderer, JSONTextRenderer, LaTeXRenderer, MarkdownRenderer
from evalapp.api.serializers import (
    AgreementSerializer, RatingRecordSerializer, RatingsImportReportSerializer, RatingsImportSerializer,
)
from evalapp.compute.bootstrap import DEFAULT_RESAMPLES
from evalapp.compute.significance import DEFAULT_PERMUTATIONS
from evalapp.formats import table6 as table6_format
from evalapp.formats.csvfile import write_csv
from evalapp.services.ratings_import import import_ratings
from evalapp.services.results import (
    DEFAULT_BOOTSTRAP_SEED, RATINGS_LONG_HEADER, agreement_report, ratings_long_rows, table6,
)

# Bounds on request-driven computation: ten times the defaults is plenty for a paper.
MAX_RESAMPLES = 10 * DEFAULT_RESAMPLES
MAX_PERMUTATIONS = 10 * DEFAULT_PERMUTATIONS
SEED_BOUND = 2**32
TEXT = OpenApiTypes.STR


def format_parameter(formats):
    return OpenApiParameter("format", str, enum=list(formats), description="Download format (default: the first).")


class Table6Options(serializers.Serializer):
    halves = serializers.BooleanField(default=False, help_text="LaTeX only: two side-by-side halves, as in the paper.")
    bootstrap = serializers.IntegerField(default=0, min_value=0, max_value=MAX_RESAMPLES,
                                         help_text="Add 95% bootstrap intervals and significance clusters (N resamples).")
    seed = serializers.IntegerField(default=DEFAULT_BOOTSTRAP_SEED, min_value=0, max_value=SEED_BOUND - 1)
    permutations = serializers.IntegerField(default=DEFAULT_PERMUTATIONS, min_value=1, max_value=MAX_PERMUTATIONS)


class Table6View(ApiView):
    """GET: Table 6 (Team, BLEU, BLEU rank, Human, Human rank) as JSON, CSV, Markdown or LaTeX.

    Security: organizers and researchers (read-only); raters never see results.
    """

    permission_classes = RESULTS_VIEWER
    renderer_classes = [JSONTextRenderer, CSVRenderer, MarkdownRenderer, LaTeXRenderer]

    @extend_schema(
        parameters=[format_parameter(table6_format.FORMATS), Table6Options],
        responses={(200, "application/json"): OpenApiTypes.OBJECT, (200, "text/csv"): TEXT,
                   (200, "text/markdown"): TEXT, (200, "application/x-latex"): TEXT},
        tags=["results"],
    )
    def get(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        options = Table6Options(data=request.query_params)
        options.is_valid(raise_exception=True)
        chosen = options.validated_data
        fmt = request.accepted_renderer.format
        table = table6(campaign, bootstrap=chosen["bootstrap"], seed=chosen["seed"],
                       permutations=chosen["permutations"])
        text = table6_format.render(table, fmt, halves=chosen["halves"])
        extension = {"markdown": "md", "latex": "tex"}.get(fmt, fmt)
        return Response(text, headers=download_headers(f"{campaign.name}-table6", extension))


class RatingsExportView(ApiView):
    """GET: the counted ratings in long form (CSV, re-importable with format ``long``, or JSON).

    Security: organizers and researchers (read-only). Raters appear as ``rater-<id>``, never
    by username or worker id; CSV cells are neutralised against spreadsheet formulas.
    """

    permission_classes = RESULTS_VIEWER
    renderer_classes = [CSVRenderer, JSONRenderer]
    pagination_class = None  # a download: every counted rating at once

    @extend_schema(parameters=[format_parameter(["csv", "json"])],
                   responses={(200, "text/csv"): TEXT,
                              (200, "application/json"): RatingRecordSerializer(many=True)},
                   tags=["results"])
    def get(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        rows = ratings_long_rows(campaign)
        if request.accepted_renderer.format == "json":
            return Response([dict(zip(RATINGS_LONG_HEADER, row)) for row in rows])
        return Response(write_csv(rows, RATINGS_LONG_HEADER),
                        headers=download_headers(f"{campaign.name}-ratings", "csv"))


class RatingsImportView(ApiView):
    """POST: ratings made elsewhere (Mechanical Turk batch results or long form) into the campaign.

    Security: organizers only; multipart, CSRF with a session. A refused file (400, problems
    with file, line, column) writes nothing; rejected rows are listed in the report.
    """

    permission_classes = ORGANIZER
    parser_classes = [MultiPartParser]

    @extend_schema(request={"multipart/form-data": RatingsImportSerializer},
                   responses={201: RatingsImportReportSerializer}, tags=["results"])
    def post(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        form = RatingsImportSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        result = import_ratings(campaign, upload.data, upload.name, form.validated_data["format"],
                                system=form.validated_data.get("system"), columns=form.columns())
        return Response(result.as_json(), status=status.HTTP_201_CREATED)


class AgreementView(ApiView):
    """GET: inter-rater agreement (Krippendorff's alpha ordinal and interval, Fleiss' kappa,
    exact agreement, mean pairwise QWK) with per-rater figures under pseudonyms.

    Security: organizers and researchers (read-only).
    """

    permission_classes = RESULTS_VIEWER

    @extend_schema(responses=AgreementSerializer, tags=["results"])
    def get(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        return Response(agreement_report(campaign))
