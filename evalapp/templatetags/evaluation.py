"""Template filters of the evaluation pages."""
from django import template

from core.models import System

register = template.Library()


@register.filter
def marker_legend(teams):
    """What the team markers (``*``, ``+``) among ``teams`` mean: anything with a ``marker``
    (a System, a progress row, a Table 6 row). Empty when none is marked."""
    return System.marker_legend(getattr(team, "marker", "") for team in teams)
