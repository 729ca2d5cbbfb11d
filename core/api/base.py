"""The policy every API view shares: authentication, error body, pagination, JSON errors.

Token authentication is tried first so that an anonymous request gets 401 with
``WWW-Authenticate: Token`` (DRF answers 403 when session authentication comes first);
a session still works from the browser, with DRF's CSRF check on unsafe methods.
"""

from collections.abc import Sequence
from typing import Any

from rest_framework import generics
from rest_framework.authentication import BaseAuthentication, SessionAuthentication
from rest_framework.pagination import BasePagination, PageNumberPagination
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.schemas.inspectors import ViewInspector
from rest_framework.views import APIView

from core.api.authentication import StrictTokenAuthentication
from core.api.errors import exception_handler
from core.api.renderers import TextRenderer
from core.api.schema import ApiSchema
from core.defaults import MAX_PAGE_SIZE, NO_STORE, PAGE_SIZE


class Pagination(PageNumberPagination):
    """``?page=N`` (1-based) and ``?page_size=N`` (at most 500)."""

    page_size = PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE


class ApiPolicy(APIView):
    """Mixed into every API view (before DRF's generic view it goes with); see the module docstring."""

    authentication_classes: Sequence[type[BaseAuthentication]] = [StrictTokenAuthentication, SessionAuthentication]
    pagination_class: type[BasePagination] | None = Pagination
    schema: ViewInspector | None = ApiSchema()

    def get_exception_handler(self) -> Any:
        return exception_handler

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        """Data that is not finished text (an error body, OPTIONS metadata) goes out as JSON."""
        response = super().finalize_response(request, response, *args, **kwargs)
        if isinstance(response.accepted_renderer, TextRenderer) and not isinstance(response.data, str):
            response.accepted_renderer = JSONRenderer()
            response.accepted_media_type = JSONRenderer.media_type
        return response


class ApiView(ApiPolicy, APIView):
    pass


class ListApiView(ApiPolicy, generics.ListAPIView):
    pass


def download_headers(filename):
    """Headers of a file download: saved as ``filename`` (already reduced to safe characters by
    ``core.defaults.download_filename``), never cached."""
    return {"Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": NO_STORE}
