"""Template filters of the evaluation pages."""

from django import template

from core.defaults import FORMAT_LABELS
from core.models import System

register = template.Library()


@register.filter
def marker_legend(teams):
    """What the team markers (``*``, ``+``) among ``teams`` mean: anything with a ``marker``
    (a System, a progress row, a Table 6 row). Empty when none is marked."""
    return System.marker_legend(getattr(team, "marker", "") for team in teams)


@register.filter
def format_label(fmt):
    """A download format as every link names it: "CSV", "JSON", "Markdown", "LaTeX", "HTML"."""
    return FORMAT_LABELS.get(fmt, fmt)
