"""Request-wide rules: hostile text refused before any view, idle sessions ended, signed-in pages never cached."""
import time

from django.conf import settings
from django.contrib.auth import logout
from django.http import HttpResponse, JsonResponse
from django.utils.cache import patch_cache_control

from core.defaults import NUL

BAD_REQUEST = 400
API_PREFIX = "/api/"
LAST_ACTIVITY_KEY = "comve_last_activity"
# A session's last-activity stamp is rewritten at most this often (a write per request would
# cost the rater loop a database write on every page).
ACTIVITY_RESOLUTION_SHARE = 10


def nul_field(query_dict):
    """The first field of a form or query whose name or value holds a NUL byte, or None."""
    for name, values in query_dict.lists():
        if NUL in name or any(NUL in value for value in values):
            return name.replace(NUL, "\\x00")
    return None


class RequestHygieneMiddleware:
    """Refuse a query or form field holding a NUL byte: 400 naming the field, before any view runs.

    No text field accepts one, and PostgreSQL cannot store one: refused here, it never reaches a
    database as a server error. Uploaded files are not fields: their readers report binary content
    with file, line and column. API requests get the API's error body.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        field = nul_field(request.GET) or (nul_field(request.POST) if request.method == "POST" else None)
        if field is None:
            return self.get_response(request)
        message = f"The field '{field}' contains a NUL byte (\\x00), which no text field accepts."
        if request.path.startswith(API_PREFIX):
            return JsonResponse({"detail": "The request is not valid; see problems.",
                                 "problems": [{"field": field, "message": message}]}, status=BAD_REQUEST)
        return HttpResponse(message, status=BAD_REQUEST, content_type="text/plain; charset=utf-8")


class IdleTimeoutMiddleware:
    """End a signed-in session after ``SESSION_IDLE_SECONDS`` without a request.

    The session's last-activity stamp is refreshed at most every tenth of that period, so a rater
    going from item to item does not pay a session write per page.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.user.is_authenticated:
            idle = settings.SESSION_IDLE_SECONDS
            now = int(time.time())
            last = request.session.get(LAST_ACTIVITY_KEY)
            if last is not None and now - last > idle:
                logout(request)
            elif last is None or now - last > idle // ACTIVITY_RESOLUTION_SHARE:
                request.session[LAST_ACTIVITY_KEY] = now
        return self.get_response(request)


class NoStoreForSignedInMiddleware:
    """``Cache-Control: no-store`` on every response to a signed-in user: no page of theirs lingers in a cache."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, no_store=True, private=True)
        return response

