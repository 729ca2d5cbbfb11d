"""The API's token authentication: knox's, with the header checked before knox reads it.

knox decodes the token as ASCII and raised UnicodeDecodeError (a 500, before any login) on
``Authorization: Token \\xe9\\xe9``. A token is URL-safe ASCII: any other header that names the
Token scheme is a 401 here, with the same message as a wrong token.
"""

import re

from django.utils.translation import gettext_lazy as _
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication
from rest_framework import exceptions
from rest_framework.authentication import get_authorization_header

INVALID = _("Invalid token.")
TOKEN_CHARACTERS = re.compile(rb"[A-Za-z0-9_\-]+")


class StrictTokenAuthentication(TokenAuthentication):
    """knox's TokenAuthentication that answers a non-ASCII or malformed ``Authorization`` header with 401."""

    def authenticate(self, request):
        header = get_authorization_header(request)
        prefix = self.authenticate_header(request).encode()
        words = header.split()
        if (
            words
            and words[0].lower() == prefix.lower()
            and len(words) == 2
            and not TOKEN_CHARACTERS.fullmatch(words[1])
        ):
            raise exceptions.AuthenticationFailed(INVALID)
        return super().authenticate(request)


class StrictTokenScheme(KnoxTokenScheme):
    """The OpenAPI description of the scheme: knox's own (drf-spectacular matches exact classes only)."""

    target_class = "core.api.authentication.StrictTokenAuthentication"
