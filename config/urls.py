"""Root URLs: each app's pages from its ``urls.py``, and the ``/api/`` tree from each app's
``api/urls.py`` (the shared account endpoints first, the catch-all last)."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path

from annotators.api import urls as rating_api_urls
from core.api import urls as core_api_urls
from evalapp.api import urls as evaluation_api_urls

api_urlpatterns = [
    *core_api_urls.urlpatterns,
    *evaluation_api_urls.urlpatterns,
    *rating_api_urls.urlpatterns,
    *core_api_urls.catch_all,
]


def favicon(request: HttpRequest) -> HttpResponseBase:
    """The site's icon, where browsers look for it first. Security: public; a redirect to a static file."""
    return redirect(static("favicon.ico"), permanent=True)


urlpatterns = [
    path("", include("evalapp.urls")),
    path("favicon.ico", favicon, name="favicon"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("rate/", include("annotators.urls")),
    path("api/", include((api_urlpatterns, "api"))),
]

handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
