"""Downloads through the API: the exports of :mod:`evalapp.services.exports`, labelled by renderers."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from core.api.base import download_headers
from core.api.renderers import CSVRenderer, HTMLReportRenderer, JSONTextRenderer, LaTeXRenderer, MarkdownRenderer
from evalapp.services import exports

TEXT = OpenApiTypes.STR
RENDERERS = {
    "csv": CSVRenderer,
    "json": JSONTextRenderer,
    "markdown": MarkdownRenderer,
    "latex": LaTeXRenderer,
    "html": HTMLReportRenderer,
}


def renderers_for(kind):
    """The renderers of an export's formats, its default format first (``?format=`` chooses)."""
    return [RENDERERS[fmt] for fmt in exports.FORMATS[kind]]


def format_parameter(formats):
    return OpenApiParameter("format", str, enum=list(formats), description="Download format (default: the first).")


def export_response(export):
    """The export's text as the response body, saved under the export's file name."""
    return Response(export.text, headers=download_headers(export.filename))
