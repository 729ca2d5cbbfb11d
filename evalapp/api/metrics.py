"""The metric study: start a background run, follow its progress, download its report, import a metric.

As on the metric pages (``evalapp/views/metrics.py``), organizers and researchers may start
a run and import their own metric's scores: that is the researcher's job (S10), and it
changes neither ratings nor human scores. Runs go through :mod:`evalapp.services.metric_study.runs`
(queued as a django-tasks job, run by ``manage.py db_worker``), with the pages' caps on
resamples so one request cannot queue unbounded work.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.base import ApiView, ListApiView
from core.api.errors import Conflict, Unprocessable
from core.api.parsers import SafeJSONParser
from core.api.permissions import METRIC_STUDY, RESULTS_VIEWER
from core.api.serializers import ErrorSerializer
from core.defaults import MAX_ID
from evalapp.api.campaigns import campaign_or_404
from evalapp.api.downloads import TEXT, export_response, format_parameter, renderers_for
from evalapp.api.serializers import (
    MetricImportReportSerializer,
    MetricRunSerializer,
    MetricScoresImportSerializer,
    NewMetricRunSerializer,
)
from evalapp.models import MetricRun
from evalapp.services import exports
from evalapp.services.metric_study import runs as metric_runs
from evalapp.services.metric_study.score_import import import_metric_scores
from evalapp.services.metric_study.texts import StudyError

NOT_STARTED = "The metric study was not started; see problems."
NO_REPORT = "This campaign has no finished metric study yet; start one first."


class MetricRunListView(ListApiView):
    """GET: the campaign's metric runs, newest first. POST: start a new run (202, then poll it).

    Security: organizers and researchers, for reading and for starting a run (JSON; CSRF
    with a session). Raters and anonymous users are refused.
    """

    permission_classes = METRIC_STUDY
    serializer_class = MetricRunSerializer
    parser_classes = [SafeJSONParser]

    def get_queryset(self) -> QuerySet[MetricRun]:
        campaign = campaign_or_404(self.kwargs["campaign_id"])
        return MetricRun.objects.filter(campaign=campaign).select_related("campaign").order_by("-created_at", "-id")

    @extend_schema(tags=["metrics"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=NewMetricRunSerializer, responses={202: MetricRunSerializer}, tags=["metrics"])
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = campaign_or_404(campaign_id)
        form = NewMetricRunSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        options = dict(form.validated_data)
        metrics = options.pop("metrics", None) or None
        try:
            run = metric_runs.start_run(campaign, metrics, options, request.user)
        except StudyError as error:
            raise Unprocessable(NOT_STARTED, [{"field": "metrics", "message": str(error)}]) from None
        return Response(MetricRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class MetricRunDetailView(ApiView):
    """GET: one run's status and progress (0-1) with its last message.

    Security: organizers and researchers (read-only).
    """

    permission_classes = RESULTS_VIEWER

    @extend_schema(responses=MetricRunSerializer, tags=["metrics"])
    def get(self, request: Request, run_id: int) -> Response:
        run = get_object_or_404(MetricRun.objects.select_related("campaign"), pk=run_id)
        return Response(MetricRunSerializer(run).data)


class MetricRunCancelView(ApiView):
    """POST: cancel a queued or running metric run (the web's "Cancel this computation").

    Security: organizers and researchers, as may start runs (JSON; CSRF with a session). 200 with
    the cancelled run; 409 when it has already finished (done, failed or cancelled), nothing
    changed. The run gets no report; only the metric store's complete segment scores stay.
    """

    permission_classes = METRIC_STUDY

    @extend_schema(request=None, responses={200: MetricRunSerializer, 409: ErrorSerializer}, tags=["metrics"])
    def post(self, request: Request, run_id: int) -> Response:
        run = get_object_or_404(MetricRun.objects.select_related("campaign"), pk=run_id)
        try:
            run = metric_runs.cancel_run(run, request.user)
        except metric_runs.NotCancellable as refusal:
            raise Conflict(str(refusal), code="finished") from None
        return Response(MetricRunSerializer(run).data)


class RunQuery(serializers.Serializer[Any]):
    run = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)


class MetricReportView(ApiView):
    """GET: the latest finished report of the campaign (or ``?run=ID``) as JSON, CSV, LaTeX or HTML.

    Security: organizers and researchers (read-only). The same files as the metric pages'
    downloads: CSV cells neutralised, every name escaped in the HTML.
    """

    permission_classes = RESULTS_VIEWER
    renderer_classes = renderers_for(exports.METRIC_REPORT)

    @extend_schema(
        parameters=[
            format_parameter(exports.FORMATS[exports.METRIC_REPORT]),
            OpenApiParameter("run", int, description="A finished run of this campaign; default the latest."),
        ],
        responses={
            (200, "application/json"): OpenApiTypes.OBJECT,
            (200, "text/csv"): TEXT,
            (200, "application/x-latex"): TEXT,
            (200, "text/html"): TEXT,
        },
        tags=["metrics"],
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = campaign_or_404(campaign_id)
        query = RunQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        run = MetricRun.objects.finished_run(campaign, query.validated_data.get("run"))
        if run is None:
            raise NotFound(NO_REPORT)
        return export_response(exports.metric_report_of(run, request.accepted_renderer.format))


class MetricScoresImportView(ApiView):
    """POST: a researcher's own metric scores (system or segment level) for the campaign.

    Security: organizers and researchers; multipart, CSRF with a session. Atomic: a refused
    file (400, problems with file, line and column) writes nothing; re-importing replaces.
    """

    permission_classes = METRIC_STUDY
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": MetricScoresImportSerializer},
        responses={201: MetricImportReportSerializer},
        tags=["metrics"],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = campaign_or_404(campaign_id)
        form = MetricScoresImportSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        result = import_metric_scores(campaign, data["metric"], data["level"], data["file"])
        return Response(result.as_json(), status=status.HTTP_201_CREATED)
