"""Root URLs. Each area keeps its own URL list next to its views; the ``/api/`` tree is assembled
here from the shared account endpoints and both apps' endpoints, with the catch-all last."""

from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path

from annotators import urls as rating_urls
from core.api import urls as api_urls
from evalapp.api import urls as evaluation_api_urls
from evalapp.views.home import home
from evalapp.views.raters import sign_in_link

api_urlpatterns = [
    *api_urls.urlpatterns,
    *evaluation_api_urls.urlpatterns,
    *rating_urls.api_urlpatterns,
    *api_urls.catch_all,
]


def favicon(request):
    """The site's icon, where browsers look for it first. Security: public; a redirect to a static file."""
    return redirect(static("favicon.ico"), permanent=True)


urlpatterns = [
    path("", home, name="home"),
    path("favicon.ico", favicon, name="favicon"),
    path("accounts/link/<str:uidb64>/<str:token>/", sign_in_link, name="sign_in_link"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("data/", include("evalapp.views.data")),
    path("campaigns/", include("evalapp.views.campaigns")),
    path("results/", include("evalapp.views.results")),
    path("metrics/", include("evalapp.views.metrics")),
    path("rate/", include("annotators.urls")),
    path("api/", include((api_urlpatterns, "api"))),
]

handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
