"""Datasets, systems and their imports (the organizer's data).

Uploads are multipart and go to :mod:`evalapp.services.imports`, the service behind
``manage.py import_comve`` / ``import_submission`` and the data pages; a refused file gives
400 with every problem (file, line, column) and nothing is written.
"""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from core.api.base import ApiPolicy, ApiView, ListApiView
from core.api.permissions import ORGANIZER, RESULTS_VIEWER
from core.models import Dataset, System
from evalapp.api.serializers import (
    DatasetImportSerializer,
    DatasetSerializer,
    ImportReportSerializer,
    SubmissionReportSerializer,
    SubmissionUploadSerializer,
    SystemSerializer,
)
from evalapp.models import Submission
from evalapp.services.imports import import_comve, import_submission


class DatasetListView(ListApiView):
    """GET: the datasets, with their numbers of instances and systems. POST: import a dataset.

    Security: GET for organizers and researchers; POST (multipart, CSRF with a session) for
    organizers only. Raters and anonymous users are refused (403/401).
    """

    permission_classes = RESULTS_VIEWER
    serializer_class = DatasetSerializer
    parser_classes = [MultiPartParser]

    def get_queryset(self):
        return Dataset.objects.with_counts()

    @extend_schema(tags=["data"])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": DatasetImportSerializer}, responses={201: ImportReportSerializer}, tags=["data"]
    )
    def post(self, request):
        form = DatasetImportSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        result = import_comve(
            data["name"],
            data["statements"],
            data["references"],
            pairs=data.get("pairs"),
            pair_answers=data.get("pair_answers"),
            split=data["split"],
        )
        return Response({**result.as_json(), "id": result.dataset.pk}, status=status.HTTP_201_CREATED)


class DatasetDetailView(ApiPolicy, generics.RetrieveAPIView):
    """GET: one dataset with its numbers of instances and systems.

    Security: organizers and researchers (read-only).
    """

    permission_classes = RESULTS_VIEWER
    serializer_class = DatasetSerializer
    lookup_url_kwarg = "dataset_id"

    def get_queryset(self):
        return Dataset.objects.with_counts()

    @extend_schema(tags=["data"])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class SystemListView(ListApiView):
    """GET: a dataset's systems with the official BLEU of their latest submission.

    Security: organizers, and researchers (read-only): system names are never shown to raters.
    """

    permission_classes = RESULTS_VIEWER
    serializer_class = SystemSerializer

    def get_queryset(self):
        dataset = get_object_or_404(Dataset, pk=self.kwargs["dataset_id"])
        return Submission.objects.latest_on(System.objects.filter(dataset=dataset)).order_by("-is_human", "name")

    @extend_schema(tags=["data"])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class SubmissionUploadView(ApiView):
    """POST: a team's submission file; answers with its validation report and official BLEU.

    Security: organizers only; multipart, CSRF with a session. Atomic: a refused file (400,
    every problem with file, line and column) writes nothing.
    """

    permission_classes = ORGANIZER
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": SubmissionUploadSerializer},
        responses={201: SubmissionReportSerializer},
        tags=["data"],
    )
    def post(self, request, dataset_id):
        dataset = get_object_or_404(Dataset, pk=dataset_id)
        form = SubmissionUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        result = import_submission(
            dataset,
            data["system"],
            data["file"],
            marker=data.get("marker"),
            allow_partial=data["allow_partial"],
            user=request.user,
        )
        return Response({**result.as_json(), "system_id": result.system.pk}, status=status.HTTP_201_CREATED)
