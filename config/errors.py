"""The site's own error pages (400, 403, 404, 500): the site's layout and navigation, one sentence on why,
and where to go next. ``config/urls.py`` names them as Django's ``handler400`` ... ``handler500``.

They answer with DEBUG off (with DEBUG on Django shows its own debugging pages instead). The
500 page must render when the database is down, so it renders without the request's context
processors (which read the user's roles from the database): it keeps the header and the way home.
"""

from django.http import HttpResponseServerError
from django.shortcuts import render
from django.template import loader

PAGES = {
    400: ("Bad request", "The request could not be understood: a parameter or a header is malformed."),
    403: ("Access denied", "Your account does not have the role this page needs."),
    404: ("Page not found", "There is nothing at this address."),
}


def _message(exception, fallback):
    """The exception's own sentence when it has one (``PermissionDenied("...")``, ``Http404("...")``)."""
    message = str(exception or "").strip()
    return message if message and not message.startswith(("<", "{")) else fallback


def _page(request, status, exception):
    title, fallback = PAGES[status]
    return render(
        request,
        "errors/error.html",
        {"status": status, "title": title, "reason": _message(exception, fallback)},
        status=status,
    )


def bad_request(request, exception=None):
    """400: a malformed request. Security: reveals nothing beyond the error's own message."""
    return _page(request, 400, None)


def permission_denied(request, exception=None):
    """403: the PermissionDenied message (e.g. the role a page needs), the way home, and logging in as another user."""
    return _page(request, 403, exception)


def page_not_found(request, exception=None):
    """404: the Http404 message when a view wrote one for people, else a plain sentence."""
    return _page(request, 404, exception)


def server_error(request):
    """500: rendered without the database (no context processors, no session read)."""
    template = loader.get_template("errors/500.html")
    return HttpResponseServerError(template.render({"status": 500}))
