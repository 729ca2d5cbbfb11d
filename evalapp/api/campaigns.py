"""Campaigns: list, create, settings, progress, rater quality, item flags and rater exclusion."""

from dataclasses import asdict

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.parsers import MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from core import engine
from core.api.base import ApiPolicy, ApiView, ListApiView
from core.api.errors import Unprocessable
from core.api.parsers import SafeJSONParser
from core.api.permissions import ORGANIZER, RESULTS_VIEWER
from core.api.renderers import CSVRenderer
from core.models import Campaign, Rater
from core.progress import campaign_progress, campaign_stall
from core.quality import rater_quality
from evalapp.api.downloads import export_response, format_parameter
from evalapp.api.serializers import (
    CampaignCreateSerializer,
    CampaignProgressSerializer,
    CampaignSerializer,
    CampaignSummarySerializer,
    CrowdSessionSerializer,
    CrowdSettingsSerializer,
    CrowdSubmissionsUploadSerializer,
    ExclusionResultSerializer,
    ExclusionSerializer,
    RaterQualitySerializer,
    ReconciliationSerializer,
)
from evalapp.services import crowd, exports
from evalapp.services.campaigns import CampaignError, campaign_summary, create_campaign
from evalapp.services.crowd import SessionReview, session_reviews

NOT_CREATED = "The campaign was not created (nothing was written); see problems."


def campaign_or_404(campaign_id):
    return get_object_or_404(Campaign.objects.select_related("dataset"), pk=campaign_id)


class CampaignListView(ListApiView):
    """GET: the campaigns, newest first. POST: create a campaign (``manage.py create_campaign``).

    Security: GET for organizers and researchers; POST (JSON, CSRF with a session) for
    organizers only. Nothing is written when any setting is refused (400, problem per field).
    """

    permission_classes = RESULTS_VIEWER
    serializer_class = CampaignSerializer
    queryset = Campaign.objects.select_related("dataset").prefetch_related("systems")
    parser_classes = [SafeJSONParser]

    @extend_schema(tags=["campaigns"])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(request=CampaignCreateSerializer, responses={201: CampaignSummarySerializer}, tags=["campaigns"])
    def post(self, request):
        form = CampaignCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        options = dict(form.validated_data)
        try:
            campaign = create_campaign(options.pop("dataset"), options.pop("name"), created_by=request.user, **options)
        except CampaignError as error:
            raise Unprocessable(
                NOT_CREATED,
                [{**problem.as_dict(), "field": field} for field, problem in zip(error.fields, error.problems)],
            ) from None
        return Response(campaign_summary(campaign), status=status.HTTP_201_CREATED)


class CampaignDetailView(ApiPolicy, generics.RetrieveAPIView):
    """GET: one campaign's settings (sample seed, M, rubric, thresholds, systems).

    Security: organizers, and researchers (read-only).
    """

    permission_classes = RESULTS_VIEWER
    serializer_class = CampaignSerializer
    queryset = CampaignListView.queryset
    lookup_url_kwarg = "campaign_id"

    @extend_schema(tags=["campaigns"])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class CampaignProgressView(ApiView):
    """GET: ratings collected against ratings needed, overall and per system; live leases; why the campaign
    does not finish when no rater can take some item (``stall``).

    Security: organizers, and researchers (read-only). Counts only: no rater is named.
    """

    permission_classes = RESULTS_VIEWER

    @extend_schema(responses=CampaignProgressSerializer, tags=["campaigns"])
    def get(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        stall = campaign_stall(campaign)
        body = campaign_progress(campaign).as_dict()
        body["stall"] = (
            None if stall is None else {**asdict(stall), "stuck": stall.stuck, "explanation": stall.explanation}
        )
        return Response(body)


class ListWithCsvView(ListApiView):
    """A list of records as paginated JSON, or (``?format=csv``) the whole list as the export's CSV."""

    renderer_classes = [JSONRenderer, CSVRenderer]

    @staticmethod
    def export(campaign: Campaign, fmt: str) -> exports.Export:
        """The list's download: each subclass names a function of :mod:`evalapp.services.exports`."""
        raise NotImplementedError

    def list(self, request, *args, **kwargs):
        if request.accepted_renderer.format == "csv":
            return export_response(type(self).export(campaign_or_404(self.kwargs["campaign_id"]), "csv"))
        return super().list(request, *args, **kwargs)


class RaterQualityView(ListWithCsvView):
    """GET: every rater of the campaign with control pass rate, co-rater agreement, speed and flags
    (JSON, paginated; ``?format=csv``: the quality page's CSV download).

    Security: organizers only (it names raters and judges them); flagged raters come first.
    """

    permission_classes = ORGANIZER
    serializer_class = RaterQualitySerializer
    export = staticmethod(exports.rater_quality)

    def get_queryset(self):
        return [quality.as_dict() for quality in rater_quality(campaign_or_404(self.kwargs["campaign_id"]))]

    @extend_schema(parameters=[format_parameter(["json", "csv"])], tags=["quality"])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class CrowdSessionsView(ListWithCsvView):
    """GET: the campaign's crowd sessions (worker, assignment or session id, ratings, the code owed)
    as JSON, paginated, or ``?format=csv``: the crowd page's CSV download.

    Security: organizers only (it names crowd workers).
    """

    permission_classes = ORGANIZER
    serializer_class = CrowdSessionSerializer
    export = staticmethod(exports.crowd_sessions)

    def get_queryset(self):
        campaign = campaign_or_404(self.kwargs["campaign_id"])
        return [dict(zip(SessionReview.COLUMNS, review.row())) for review in session_reviews(campaign)]

    @extend_schema(parameters=[format_parameter(["json", "csv"])], tags=["crowd"])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class RaterExclusionView(ApiView):
    """POST: exclude a rater from the campaign: their ratings stop counting, their items reopen.

    Security: organizers only; POST with CSRF when a session is used. Excluding twice changes
    nothing the second time (200 instead of 201).
    """

    permission_classes = ORGANIZER
    parser_classes = [SafeJSONParser]

    @extend_schema(
        request=ExclusionSerializer,
        responses={201: ExclusionResultSerializer, 200: ExclusionResultSerializer},
        tags=["quality"],
    )
    def post(self, request, campaign_id, rater_id):
        campaign = campaign_or_404(campaign_id)
        rater = get_object_or_404(Rater, pk=rater_id)
        form = ExclusionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        result = engine.exclude_rater(campaign, rater, by=request.user, reason=form.validated_data["reason"])
        body = {
            "rater_id": rater.pk,
            "excluded": True,
            "created": result.created,
            "ratings_excluded": result.ratings_excluded,
            "items_reopened": result.items_reopened,
            "reason": result.exclusion.reason,
        }
        return Response(body, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)


class CrowdSettingsView(ApiView):
    """GET: the campaign's crowd settings and entry addresses. PATCH: change them (which platforms may
    enter, codes, cap on items per session, whether only reconciled crowd ratings count).

    Security: organizers only (the addresses carry the campaign's secret key); PATCH is JSON with CSRF
    when a session is used; a refused value changes nothing (400 naming the field).
    """

    permission_classes = ORGANIZER
    parser_classes = [SafeJSONParser]

    @extend_schema(responses=CrowdSettingsSerializer, tags=["crowd"])
    def get(self, request, campaign_id):
        return Response(CrowdSettingsSerializer(campaign_or_404(campaign_id), context={"request": request}).data)

    @extend_schema(request=CrowdSettingsSerializer, responses=CrowdSettingsSerializer, tags=["crowd"])
    def patch(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        form = CrowdSettingsSerializer(campaign, data=request.data, partial=True, context={"request": request})
        form.is_valid(raise_exception=True)
        crowd.save_settings(campaign, **form.validated_data)
        return Response(CrowdSettingsSerializer(campaign, context={"request": request}).data)


class CrowdKeyView(ApiView):
    """POST: a new crowd key: the entry addresses change and the old ones stop working at once.

    Security: organizers only; POST with CSRF when a session is used.
    """

    permission_classes = ORGANIZER

    @extend_schema(request=None, responses=CrowdSettingsSerializer, tags=["crowd"])
    def post(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        crowd.rotate_key(campaign)
        return Response(CrowdSettingsSerializer(campaign, context={"request": request}).data)


class CrowdSubmissionsView(ApiView):
    """POST: the platform's own records (MTurk batch results, Prolific submissions export) to reconcile the
    campaign's crowd sessions with: verified, unverified or rejected, rejected sessions' ratings withdrawn.
    Monotonic unless ``replace``; the answer is bounded (counts, and the first 50 unmatched records).

    Security: organizers only; multipart, CSRF with a session. A refused file (400, problems with
    file, line, column) changes nothing.
    """

    permission_classes = ORGANIZER
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": CrowdSubmissionsUploadSerializer},
        responses={200: ReconciliationSerializer},
        tags=["crowd"],
    )
    def post(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        form = CrowdSubmissionsUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        result = crowd.import_crowd_submissions(
            campaign,
            form.validated_data["platform"],
            form.validated_data["file"],
            replace=form.validated_data["replace"],
        )
        return Response(result.as_json())
