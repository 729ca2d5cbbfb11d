"""The roles and the checks every view and API endpoint uses.

- organizer: member of the ``organizer`` group, or a superuser (admin);
- researcher: member of the ``researcher`` group;
- rater: a user with a ``Rater`` profile: only their own assignments, never system names.

What each may do is said once, in :data:`ROLE_DESCRIPTIONS`: the demo's login banner prints
it and the manual quotes it (a test holds both to it).
"""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied

ORGANIZER = "organizer"
RESEARCHER = "researcher"
RATER = "rater"
ROLE_DESCRIPTIONS = {
    ORGANIZER: "loads data, runs campaigns, watches and excludes raters, and publishes results",
    RESEARCHER: (
        "reads results, starts metric runs and imports their own metric scores, "
        "but never changes campaigns, ratings or raters"
    ),
    RATER: "rates the explanations of their own assignments, and sees no system names",
}


def in_group(user, name):
    """Whether the user is in group ``name``: one query for all of the user's groups, per request."""
    if not user.is_authenticated:
        return False
    cache = getattr(user, "_comve_groups", None)
    if cache is None:
        cache = set(user.groups.values_list("name", flat=True))
        user._comve_groups = cache
    return name in cache


def is_organizer(user):
    return user.is_authenticated and (user.is_superuser or in_group(user, ORGANIZER))


def is_researcher(user):
    return in_group(user, RESEARCHER)


def can_view_results(user):
    """Organizers and researchers see results; raters never do."""
    return is_organizer(user) or is_researcher(user)


def rater_of(user):
    """The user's Rater profile, or None."""
    if not user.is_authenticated:
        return None
    try:
        return user.rater
    except Exception:  # RelatedObjectDoesNotExist
        return None


def is_rater(user):
    return rater_of(user) is not None


def role_required(check):
    """Decorator: login required, then 403 unless ``check(user)`` holds."""

    def decorator(view):
        @wraps(view)
        @login_required
        def wrapped(request, *args, **kwargs):
            if not check(request.user):
                raise PermissionDenied("Your account does not have the role this page needs.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


organizer_required = role_required(is_organizer)
results_viewer_required = role_required(can_view_results)
rater_required = role_required(is_rater)


def context_processor(request):
    """The user's roles for every template; anonymous when the request never reached the
    authentication middleware (a refused host is answered before it)."""
    user = getattr(request, "user", None) or AnonymousUser()
    return {
        "is_organizer": is_organizer(user),
        "is_researcher": is_researcher(user),
        "can_view_results": can_view_results(user),
        "is_rater": is_rater(user),
    }
