"""Renderers of the download formats, chosen with ``?format=`` or the Accept header.

The views produce the finished text with the services' own renderers (Table 6, metric
report, ratings CSV); these classes only label it with its media type. Anything else (an
error body, OPTIONS metadata) is never rendered by them: :class:`core.api.base.ApiPolicy`
switches it to JSON.
"""

from rest_framework.renderers import BaseRenderer

from core.defaults import DOWNLOAD_CHARSET, MEDIA_TYPES


class TextRenderer(BaseRenderer):
    """Passes through text the view has already rendered."""

    charset = DOWNLOAD_CHARSET

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data.encode(self.charset)


class CSVRenderer(TextRenderer):
    media_type = MEDIA_TYPES["csv"]
    format = "csv"


class MarkdownRenderer(TextRenderer):
    media_type = MEDIA_TYPES["markdown"]
    format = "markdown"


class LaTeXRenderer(TextRenderer):
    media_type = MEDIA_TYPES["latex"]
    format = "latex"


class HTMLReportRenderer(TextRenderer):
    """A self-contained HTML page (the metric report), not the browsable API."""

    media_type = MEDIA_TYPES["html"]
    format = "html"


class JSONTextRenderer(TextRenderer):
    """JSON a service has already serialised (e.g. Table 6's stable JSON, protocol.md#contracts), sent byte for byte."""

    media_type = MEDIA_TYPES["json"]
    format = "json"
