"""Request-wide rules: hostile text refused before any view, idle sessions ended, signed-in pages never cached."""

import codecs
import time
from email.message import Message

from django.conf import settings
from django.contrib.auth import logout
from django.http import HttpResponse, JsonResponse
from django.utils.cache import patch_cache_control

from core.defaults import ACTIVITY_RESOLUTION_SHARE, NUL, SAFE_REQUEST_CHARSETS

BAD_REQUEST = 400
NOT_FOUND = 404
UNSUPPORTED_MEDIA_TYPE = 415
API_PREFIX = "/api/"
LAST_ACTIVITY_KEY = "comve_last_activity"


def nul_field(query_dict):
    """The first field of a form or query whose name or value holds a NUL byte, or None."""
    for name, values in query_dict.lists():
        if NUL in name or any(NUL in value for value in values):
            return name.replace(NUL, "\\x00")
    return None


def unsafe_charset(content_type):
    """The charset a ``Content-Type`` names when it is not one bodies are read in
    (``SAFE_REQUEST_CHARSETS``), else None.

    Unknown names (``rot13`` as a charset) made the form and JSON parsers raise LookupError, text
    transforms (``unicode_escape``) and wide encodings (``utf-16``) slipped nested JSON past a check
    made on the raw bytes: both are refused before any parser runs.
    """
    if not content_type or "charset" not in content_type.lower():
        return None
    header = Message()
    header["content-type"] = content_type
    charset = header.get_param("charset")
    if not isinstance(charset, str):
        return str(charset)
    try:
        name = codecs.lookup(charset.strip()).name
    except (LookupError, ValueError):
        return charset
    return None if name in SAFE_REQUEST_CHARSETS else charset


class RequestHygieneMiddleware:
    """Refuse hostile requests before any view runs, with a 4xx instead of a server error:

    - a NUL byte in the path: 404 (no URL holds one; PostgreSQL cannot compare a key with one);
    - a body in a charset that is not UTF-8, ASCII or Latin-1: 415, before any parser reads it;
    - a query or form field holding a NUL byte: 400 naming the field. No text field accepts one,
      and PostgreSQL cannot store one. Uploaded files are not fields: their readers report binary
      content with file, line and column.

    API requests get the API's error body.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if NUL in request.path:
            return self.refuse(request, NOT_FOUND, "No page has a NUL byte (\\x00) in its address.")
        charset = unsafe_charset(request.META.get("CONTENT_TYPE", ""))
        if charset is not None:
            return self.refuse(
                request,
                UNSUPPORTED_MEDIA_TYPE,
                f"The request body's charset '{charset[:40]}' is not accepted; send UTF-8.",
                field="Content-Type",
            )
        field = nul_field(request.GET) or (nul_field(request.POST) if request.method == "POST" else None)
        if field is None:
            return self.get_response(request)
        return self.refuse(
            request,
            BAD_REQUEST,
            f"The field '{field}' contains a NUL byte (\\x00), which no text field accepts.",
            field,
        )

    @staticmethod
    def refuse(request, status, message, field=None):
        if request.path.startswith(API_PREFIX):
            body = (
                {"detail": message}
                if field is None
                else {
                    "detail": "The request is not valid; see problems.",
                    "problems": [{"field": field, "message": message}],
                }
            )
            return JsonResponse(body, status=status)
        return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


def start_idle_clock(session):
    """Stamp the session's last activity now: called at login, so that a session nobody uses after
    signing in still ends ``SESSION_IDLE_SECONDS`` later."""
    session[LAST_ACTIVITY_KEY] = int(time.time())


class IdleTimeoutMiddleware:
    """End a signed-in session after ``SESSION_IDLE_SECONDS`` without a request (counted from the login on,
    which stamps the session: :func:`start_idle_clock`).

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
