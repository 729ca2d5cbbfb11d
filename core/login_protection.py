"""How django-axes names who is trying to log in: the client's address and the account name.

The client's address follows one rule for the login lockouts and the API throttles (DRF).

Behind ``TRUSTED_PROXIES`` proxies, each of which appends the address it saw to
X-Forwarded-For, the client is the entry that the outermost trusted proxy wrote; with none
(the default) it is REMOTE_ADDR and the header is ignored, since a client can write it.
This is DRF's rule for ``NUM_PROXIES`` (``BaseThrottle.get_ident``), so a throttle and a lockout
never disagree about who is asking.
"""

from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.contrib.auth import get_user_model

from core.defaults import USERNAME_MAX_CHARS

if TYPE_CHECKING:
    from django.db.models import Field


def client_address(request):
    remote = request.META.get("REMOTE_ADDR")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if not settings.TRUSTED_PROXIES or not forwarded:
        return remote
    addresses = forwarded.split(",")
    return addresses[-min(settings.TRUSTED_PROXIES, len(addresses))].strip() or remote


def username(request, credentials):
    """The name typed at the login, cut to what any account name can be: a 5,000-character name
    is a failed login like any other (it used to overflow Axes's column on PostgreSQL: a 500)."""
    field = get_user_model().USERNAME_FIELD
    value = (credentials or {}).get(field) or request.POST.get(field) or ""
    limit = cast("Field[Any, Any]", get_user_model()._meta.get_field(field)).max_length or USERNAME_MAX_CHARS
    return str(value)[: min(limit, USERNAME_MAX_CHARS)]
