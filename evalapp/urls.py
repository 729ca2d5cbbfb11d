"""Root URLs. Each area keeps its own URL module next to its views."""
from django.contrib import admin
from django.urls import include, path

from evalapp.views.home import home

urlpatterns = [
    path("", home, name="home"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("data/", include("evalapp.views.data")),
    path("campaigns/", include("evalapp.views.campaigns")),
    path("results/", include("evalapp.views.results")),
    path("metrics/", include("evalapp.views.metrics")),
    path("rate/", include("annotators.urls")),
    path("api/", include("evalapp.api.urls")),
]
