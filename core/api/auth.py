"""Getting a token, and asking who one is."""
from django.urls import reverse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle

from core import roles
from core.api.base import ApiView
from core.api.serializers import ErrorSerializer

LOGIN_RATE = "30/minute"
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
    credentials give 400 without saying which of the two was wrong. No session is read,
    so no CSRF token is needed.
    """

    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [LoginRateThrottle]

    @extend_schema(
        request=AuthTokenSerializer,
        responses={200: inline_serializer("Token", {"token": serializers.CharField()}), 400: ErrorSerializer},
        tags=["auth"],
    )
    def post(self, request):
        serializer = AuthTokenSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        token, _ = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response({"token": token.key})


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
        responses=inline_serializer("Me", {
            "username": serializers.CharField(),
            "roles": serializers.ListField(child=serializers.CharField()),
            "rater_id": serializers.IntegerField(allow_null=True),
        }),
        tags=["auth"],
    )
    def get(self, request):
        user = request.user
        rater = roles.rater_of(user)
        return Response({"username": user.get_username(),
                         "roles": [name for name, check in ROLE_CHECKS if check(user)],
                         "rater_id": rater.pk if rater else None})


class ApiIndexView(ApiView):
    """GET /api/: what the API has and where, so that a client (or a person) can find their way.

    Security: open to anyone; it lists addresses only, never data.
    """

    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(responses=inline_serializer("ApiIndex", {
        "docs": serializers.CharField(), "schema": serializers.CharField(),
        "authentication": serializers.DictField(child=serializers.CharField()),
        "parts": serializers.DictField(child=serializers.CharField()),
    }), tags=["auth"])
    def get(self, request):
        def url(name, **kwargs):
            return request.build_absolute_uri(reverse(f"api:{name}", kwargs=kwargs or None))

        return Response({
            "docs": url("docs"),
            "schema": url("schema"),
            "authentication": {"token": url("token"), "me": url("me"),
                               "how": "POST username and password to the token address, then send "
                                      "'Authorization: Token <token>' (or use the site's session)"},
            "parts": {"datasets (organizers; researchers read)": url("datasets"),
                      "campaigns, progress, quality and crowd (organizers; researchers read)": url("campaigns"),
                      "results and metric studies (organizers and researchers)":
                          url("campaigns") + "{campaign_id}/table6/",
                      "rating (raters)": url("rate-campaigns")},
        })
