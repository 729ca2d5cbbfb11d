"""URLs of the REST API, mounted at ``/api/``. Resources are addressed by their numeric id."""
from django.urls import path, re_path, register_converter
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from evalapp.api import auth, campaigns, datasets, metrics, rating, results
from evalapp.api.base import MAX_ID_DIGITS


class IdConverter:
    """A database id: at most 18 digits, so that it always fits a 64-bit integer column
    (a longer one is a 404 here, not an overflow in the database driver)."""

    regex = f"[0-9]{{1,{MAX_ID_DIGITS}}}"

    def to_python(self, value):
        return int(value)

    def to_url(self, value):
        return str(value)


register_converter(IdConverter, "id")

app_name = "api"

campaign = "campaigns/<id:campaign_id>/"

urlpatterns = [
    # Schema and documentation: public, they describe the API and hold no data. The docs page
    # is Swagger UI served from this site (drf-spectacular-sidecar): no outside network needed.
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    # Accounts.
    path("auth/token/", auth.TokenView.as_view(), name="token"),
    path("me/", auth.MeView.as_view(), name="me"),
    # Data.
    path("datasets/", datasets.DatasetListView.as_view(), name="datasets"),
    path("datasets/<id:dataset_id>/", datasets.DatasetDetailView.as_view(), name="dataset"),
    path("datasets/<id:dataset_id>/systems/", datasets.SystemListView.as_view(), name="systems"),
    path("datasets/<id:dataset_id>/submissions/", datasets.SubmissionUploadView.as_view(), name="submissions"),
    # Campaigns and quality.
    path("campaigns/", campaigns.CampaignListView.as_view(), name="campaigns"),
    path(campaign, campaigns.CampaignDetailView.as_view(), name="campaign"),
    path(campaign + "progress/", campaigns.CampaignProgressView.as_view(), name="progress"),
    path(campaign + "raters/", campaigns.RaterQualityView.as_view(), name="rater-quality"),
    path(campaign + "raters/<id:rater_id>/exclusion/", campaigns.RaterExclusionView.as_view(), name="exclusion"),
    path(campaign + "flags/", campaigns.FlaggedItemsView.as_view(), name="flags"),
    # Results.
    path(campaign + "table6/", results.Table6View.as_view(), name="table6"),
    path(campaign + "ratings/", results.RatingsExportView.as_view(), name="ratings"),
    path(campaign + "ratings/import/", results.RatingsImportView.as_view(), name="ratings-import"),
    path(campaign + "agreement/", results.AgreementView.as_view(), name="agreement"),
    # Metric study.
    path(campaign + "metric-runs/", metrics.MetricRunListView.as_view(), name="metric-runs"),
    path("metric-runs/<id:run_id>/", metrics.MetricRunDetailView.as_view(), name="metric-run"),
    path(campaign + "metric-report/", metrics.MetricReportView.as_view(), name="metric-report"),
    path(campaign + "metric-scores/", metrics.MetricScoresImportView.as_view(), name="metric-scores"),
    # The rater's own work.
    path("rate/campaigns/", rating.RaterCampaignListView.as_view(), name="rate-campaigns"),
    path("rate/campaigns/<id:campaign_id>/current/", rating.CurrentItemView.as_view(), name="rate-current"),
    path("rate/campaigns/<id:campaign_id>/next/", rating.NextItemView.as_view(), name="rate-next"),
    path("rate/assignments/<id:assignment_id>/rating/", rating.SubmitRatingView.as_view(), name="rate-submit"),
    path("rate/assignments/<id:assignment_id>/flag/", rating.FlagItemView.as_view(), name="rate-flag"),
    # Last: every other path under /api/ answers 404 with the API's error body, not an HTML page.
    re_path(r"", auth.UnknownEndpointView.as_view(), name="unknown"),
]
