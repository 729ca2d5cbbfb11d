"""The policy every API view shares: authentication, error body, pagination, JSON errors.

Token authentication is tried first so that an anonymous request gets 401 with
``WWW-Authenticate: Token`` (DRF answers 403 when session authentication comes first);
a session still works from the browser, with DRF's CSRF check on unsafe methods.
"""
import re

from rest_framework import generics
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.pagination import PageNumberPagination
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from evalapp.api.errors import exception_handler
from evalapp.api.renderers import TextRenderer
from evalapp.api.schema import ApiSchema

# Ids in URLs and queries stay below 10**18, inside a signed 64-bit integer column.
MAX_ID_DIGITS = 18
MAX_ID = 10**MAX_ID_DIGITS - 1
PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


class Pagination(PageNumberPagination):
    """``?page=N`` (1-based) and ``?page_size=N`` (at most 500)."""

    page_size = PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE


class ApiPolicy:
    """Mixed into every API view; see the module docstring."""

    authentication_classes = [TokenAuthentication, SessionAuthentication]
    pagination_class = Pagination
    schema = ApiSchema()

    def get_exception_handler(self):
        return exception_handler

    def finalize_response(self, request, response, *args, **kwargs):
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


UNSAFE_FILENAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def download_headers(stem, extension):
    """Headers that make a browser save a download as ``<stem>.<extension>``.

    The stem (often a campaign name) is reduced to safe characters so that it can never
    break out of the header's quoted string.
    """
    safe = UNSAFE_FILENAME_CHARS.sub("_", stem).strip("._") or "download"
    return {"Content-Disposition": f'attachment; filename="{safe}.{extension}"'}
