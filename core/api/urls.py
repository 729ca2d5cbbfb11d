"""The API's shared URL pieces: the ``id`` path converter, the schema and docs, the account
endpoints, and the catch-all that answers 404 in the API's error body."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core.api import auth
from core.defaults import MAX_ID_DIGITS


class IdConverter:
    """A database id: at most 18 digits, so that it always fits a 64-bit integer column
    (a longer one is a 404 here, not an overflow in the database driver)."""

    regex = f"[0-9]{{1,{MAX_ID_DIGITS}}}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


urlpatterns = [
    path("", auth.ApiIndexView.as_view(), name="index"),
    # Schema and documentation: public, they describe the API and hold no data. The docs page
    # is Swagger UI served from this site (drf-spectacular-sidecar): no outside network needed; its
    # start-up script is a file of its own (?script), as the Content-Security-Policy allows no inline script.
    # Its page is templates/api/docs.html: Swagger UI with the language set and colours of AA contrast.
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path(
        "docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema", template_name="api/docs.html"), name="docs"
    ),
    path("auth/token/", auth.TokenView.as_view(), name="token"),
    path("auth/tokens/", auth.TokenListView.as_view(), name="tokens"),
    path("auth/tokens/<str:token_id>/", auth.TokenRevokeView.as_view(), name="token-revoke"),
    path("me/", auth.MeView.as_view(), name="me"),
]
# Last: every other path under /api/ answers 404 with the API's error body, not an HTML page.
catch_all = [re_path(r"", auth.UnknownEndpointView.as_view(), name="unknown")]
