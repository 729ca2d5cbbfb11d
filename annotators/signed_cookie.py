"""The rater's signed cookies (the kept choice, the last saved score): written, read and dropped one way.

Each holds a small dataclass for one campaign. Signing (``django.core.signing``, with a salt per
cookie and a maximum age) makes a forged or stale value read as absent; the cookie carries the
session's SameSite and Secure settings, so it travels inside Mechanical Turk's frame exactly when
the session does.
"""

from dataclasses import asdict
from typing import Any, Literal, Protocol, TypeVar, cast

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse


class CampaignValue(Protocol):
    campaign_id: int


Value = TypeVar("Value", bound=CampaignValue)
SameSite = Literal["Lax", "Strict", "None", False] | None


def _same_site() -> SameSite:
    """The session cookie's SameSite (settings say "None" inside a crowd platform's frame)."""
    return cast(SameSite, settings.SESSION_COOKIE_SAMESITE)


def signed(value: Any, salt: str) -> str:
    """Signed, compressed, URL-safe ASCII: a cookie value that needs no quoting."""
    return signing.dumps(asdict(value), salt=salt, compress=True)


def store(response: HttpResponse, name: str, text: str, max_age: int) -> HttpResponse:
    response.set_cookie(
        name,
        text,
        max_age=max_age,
        httponly=True,
        samesite=_same_site(),
        secure=settings.SESSION_COOKIE_SECURE,
    )
    return response


def recall(
    request: HttpRequest, name: str, salt: str, max_age: int, kind: type[Value], campaign_id: int
) -> Value | None:
    """The cookie's value for ``campaign_id``, or None (absent, forged, too old, malformed, another campaign)."""
    try:
        value = kind(**signing.loads(request.COOKIES[name], salt=salt, max_age=max_age))
    except (KeyError, signing.BadSignature, ValueError, TypeError):
        return None
    return value if value.campaign_id == campaign_id else None


def forget(response: HttpResponse, name: str) -> HttpResponse:
    response.delete_cookie(name, samesite=_same_site())
    return response
