"""Renderers of the download formats, chosen with ``?format=`` or the Accept header.

The views produce the finished text with the services' own renderers (Table 6, metric
report, ratings CSV); these classes only label it with its media type. Anything else (an
error body, OPTIONS metadata) is never rendered by them: :class:`evalapp.api.base.ApiPolicy`
switches it to JSON.
"""
from rest_framework.renderers import BaseRenderer


class TextRenderer(BaseRenderer):
    """Passes through text the view has already rendered."""

    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data.encode(self.charset)


class CSVRenderer(TextRenderer):
    media_type = "text/csv"
    format = "csv"


class MarkdownRenderer(TextRenderer):
    media_type = "text/markdown"
    format = "markdown"


class LaTeXRenderer(TextRenderer):
    media_type = "application/x-latex"
    format = "latex"


class HTMLReportRenderer(TextRenderer):
    """A self-contained HTML page (the metric report), not the browsable API."""

    media_type = "text/html"
    format = "html"


class JSONTextRenderer(TextRenderer):
    """JSON a service has already serialised (e.g. Table 6's S5 contract), sent byte for byte."""

    media_type = "application/json"
    format = "json"
