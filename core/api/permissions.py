"""API permissions: the roles of ``evalapp/roles.py`` as DRF permission classes.

Every check delegates to ``core.roles`` so that the web views and the API can never
disagree about who may do what. An anonymous request fails ``IsAuthenticated`` first and
gets 401; an authenticated user without the role gets 403.
"""

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated

from core import roles

ROLE_MESSAGE = "Your account does not have the role this endpoint needs ({role})."


class RolePermission(BasePermission):
    """Grants a request when ``check(user)``, a predicate of ``core.roles``, holds."""

    @staticmethod
    def check(user: Any) -> bool:
        """The role's predicate: every subclass names one of ``core.roles``."""
        raise NotImplementedError

    def has_permission(self, request: Any, view: Any) -> bool:
        return self.check(request.user)


class IsOrganizer(RolePermission):
    """Organizers and admins (superusers)."""

    message = ROLE_MESSAGE.format(role="organizer")
    check = staticmethod(roles.is_organizer)


class IsResultsViewer(BasePermission):
    """Organizers read and write; researchers only read (GET, HEAD, OPTIONS)."""

    message = ROLE_MESSAGE.format(role="organizer, or researcher for reading")

    def has_permission(self, request, view):
        if roles.is_organizer(request.user):
            return True
        return request.method in SAFE_METHODS and roles.is_researcher(request.user)


class IsMetricResearcher(RolePermission):
    """Organizers and researchers, reading and writing: running a metric study and importing a
    metric's scores is the researcher's job (S10) and changes no rating or human score."""

    message = ROLE_MESSAGE.format(role="organizer or researcher")
    check = staticmethod(roles.can_view_results)


class IsRater(RolePermission):
    """Users with a Rater profile; the views restrict them further to their own assignments."""

    message = ROLE_MESSAGE.format(role="rater")
    check = staticmethod(roles.is_rater)


ORGANIZER = [IsAuthenticated, IsOrganizer]
RESULTS_VIEWER = [IsAuthenticated, IsResultsViewer]
METRIC_STUDY = [IsAuthenticated, IsMetricResearcher]
RATER = [IsAuthenticated, IsRater]
