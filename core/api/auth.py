"""Getting a token, listing and revoking one's tokens, and asking who one is.

Tokens are django-rest-knox's: only a hash is stored, each expires (``COMVE_TOKEN_DAYS``), an
owner lists and revokes their own, an admin anyone's (here or in the admin), and a password
change revokes every token of the account (``core/signals.py``).
"""

from django.urls import reverse
from drf_spectacular.utils import extend_schema, inline_serializer
from knox.models import AuthToken
from rest_framework import serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle

from core import roles
from core.api.base import ApiView
from core.api.errors import LockedOut
from core.api.serializers import ErrorSerializer
from core.defaults import LOGIN_RATE

UNKNOWN_ENDPOINT = "There is no such API endpoint; the list is at /api/docs/."
ADMIN = "admin"
ROLE_CHECKS = (
    (ADMIN, lambda user: user.is_superuser),
    (roles.ORGANIZER, roles.is_organizer),
    (roles.RESEARCHER, roles.is_researcher),
    (roles.RATER, roles.is_rater),
)


class LoginRateThrottle(AnonRateThrottle):
    """Slows password guessing: at most ``LOGIN_RATE`` token requests per client address."""

    scope = "login"
    rate = LOGIN_RATE


class TokenView(ApiView):
    """POST username and password, get the account's API token (created on first request).

    Security: open to anyone (it is the login), throttled per client address; wrong
    credentials give 400 without saying which of the two was wrong; after the failure limit
    (django-axes, shared with the web and admin logins) 429 for that account and address,
    whatever the password. No session is read, so no CSRF token is needed.
    """

    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [LoginRateThrottle]

    @extend_schema(
        request=AuthTokenSerializer,
        responses={
            200: inline_serializer(
                "Token",
                {
                    "token": serializers.CharField(),
                    "token_id": serializers.CharField(),
                    "expiry": serializers.DateTimeField(allow_null=True),
                },
            ),
            400: ErrorSerializer,
            429: ErrorSerializer,
        },
        tags=["auth"],
    )
    def post(self, request):
        serializer = AuthTokenSerializer(data=request.data, context={"request": request})
        try:
            serializer.is_valid(raise_exception=True)
        except ValidationError:
            # django-axes marks the request it refused or that reached the limit.
            if getattr(request, "axes_locked_out", False):
                raise LockedOut() from None
            raise
        instance, token = AuthToken.objects.create(user=serializer.validated_data["user"])
        return Response({"token": token, "token_id": instance.token_key, "expiry": instance.expiry})


class TokenRecordSerializer(serializers.Serializer):
    token_id = serializers.CharField(source="token_key", help_text="The token's first characters: its name here.")
    user = serializers.CharField(source="user.get_username")
    created = serializers.DateTimeField()
    expiry = serializers.DateTimeField(allow_null=True)


def _visible_tokens(user):
    tokens = AuthToken.objects.select_related("user").order_by("-created")
    return tokens if user.is_superuser else tokens.filter(user=user)


class TokenListView(ApiView):
    """GET: the caller's API tokens (an admin: everyone's), by their first characters; never the token itself.

    Security: any signed-in user, who sees only their own tokens; admins (superusers) see all.
    """

    permission_classes = [IsAuthenticated]
    pagination_class = None

    @extend_schema(responses=TokenRecordSerializer(many=True), tags=["auth"])
    def get(self, request):
        return Response(TokenRecordSerializer(_visible_tokens(request.user), many=True).data)


class TokenRevokeView(ApiView):
    """DELETE: revoke a token by its ``token_id`` (204); it stops working at once.

    Security: any signed-in user, for their own tokens (someone else's is a 404, as a missing
    one); admins (superusers) revoke anyone's. Unsafe method: CSRF with a session.
    """

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={204: None, 404: ErrorSerializer}, tags=["auth"])
    def delete(self, request, token_id):
        deleted, _ = _visible_tokens(request.user).filter(token_key=token_id).delete()
        if not deleted:
            raise NotFound("No such token of yours.")
        return Response(status=204)


class UnknownEndpointView(ApiView):
    """Any method on a path under /api/ that is no endpoint: 404 with the API's error body.

    Security: open to anyone; it reveals nothing but that the path does not exist.
    """

    permission_classes = [AllowAny]
    authentication_classes = []
    schema = None  # not an endpoint: left out of the OpenAPI schema

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        raise NotFound(UNKNOWN_ENDPOINT)


class MeView(ApiView):
    """The signed-in account and its roles, so that a client knows which endpoints it may call.

    Security: any signed-in user; shows only their own account.
    """

    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses=inline_serializer(
            "Me",
            {
                "username": serializers.CharField(),
                "roles": serializers.ListField(child=serializers.CharField()),
                "rater_id": serializers.IntegerField(allow_null=True),
            },
        ),
        tags=["auth"],
    )
    def get(self, request):
        user = request.user
        rater = roles.rater_of(user)
        return Response(
            {
                "username": user.get_username(),
                "roles": [name for name, check in ROLE_CHECKS if check(user)],
                "rater_id": rater.pk if rater else None,
            }
        )


class ApiIndexView(ApiView):
    """GET /api/: what the API has and where, so that a client (or a person) can find their way.

    Security: open to anyone; it lists addresses only, never data.
    """

    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(
        responses=inline_serializer(
            "ApiIndex",
            {
                "docs": serializers.CharField(),
                "schema": serializers.CharField(),
                "authentication": serializers.DictField(child=serializers.CharField()),
                "parts": serializers.DictField(child=serializers.CharField()),
            },
        ),
        tags=["auth"],
    )
    def get(self, request):
        def url(name, **kwargs):
            return request.build_absolute_uri(reverse(f"api:{name}", kwargs=kwargs or None))

        return Response(
            {
                "docs": url("docs"),
                "schema": url("schema"),
                "authentication": {
                    "token": url("token"),
                    "me": url("me"),
                    "how": "POST username and password to the token address, then send "
                    "'Authorization: Token <token>' (or use the site's session)",
                },
                "parts": {
                    "datasets (organizers; researchers read)": url("datasets"),
                    "campaigns, progress, quality and crowd (organizers; researchers read)": url("campaigns"),
                    "results and metric studies (organizers and researchers)": url("campaigns")
                    + "{campaign_id}/table6/",
                    "rating (raters)": url("rate-campaigns"),
                },
            }
        )
