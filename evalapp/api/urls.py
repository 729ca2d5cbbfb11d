"""The organizer's and researcher's API endpoints (mounted under ``/api/`` by ``config/urls.py``).

Resources are addressed by their numeric id (the ``id`` converter of ``core/api/urls.py``).
"""

from django.urls import path

from evalapp.api import campaigns, datasets, finishing, metrics, results

campaign = "campaigns/<id:campaign_id>/"

urlpatterns = [
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
    path(campaign + "flags/", finishing.FlaggedItemsView.as_view(), name="flags"),
    path(campaign + "flags/<id:item_id>/dismissal/", finishing.DismissalView.as_view(), name="flag-dismissal"),
    path(campaign + "flags/<id:item_id>/retirement/", finishing.RetirementView.as_view(), name="flag-retirement"),
    path(campaign + "lab-raters/", finishing.LabRatersView.as_view(), name="lab-raters"),
    path(
        campaign + "lab-raters/<id:rater_id>/sign-in/", finishing.LabRaterSignInView.as_view(), name="lab-rater-sign-in"
    ),
    path(
        campaign + "lab-raters/<id:rater_id>/deactivation/",
        finishing.LabRaterDeactivationView.as_view(),
        name="lab-rater-deactivation",
    ),
    path(campaign + "crowd-sessions/", campaigns.CrowdSessionsView.as_view(), name="crowd-sessions"),
    path(campaign + "crowd/", campaigns.CrowdSettingsView.as_view(), name="crowd"),
    path(campaign + "crowd/key/", campaigns.CrowdKeyView.as_view(), name="crowd-key"),
    path(campaign + "crowd-submissions/", campaigns.CrowdSubmissionsView.as_view(), name="crowd-submissions"),
    # Results.
    path(campaign + "table6/", results.Table6View.as_view(), name="table6"),
    path(campaign + "ratings/", results.RatingsExportView.as_view(), name="ratings"),
    path(campaign + "ratings/import/", results.RatingsImportView.as_view(), name="ratings-import"),
    path(campaign + "agreement/", results.AgreementView.as_view(), name="agreement"),
    path(campaign + "plan/", results.StudyPlanView.as_view(), name="plan"),
    path(campaign + "stability/", results.RankingStabilityView.as_view(), name="stability"),
    path(campaign + "sequential/", results.SequentialStatusView.as_view(), name="sequential"),
    path(campaign + "sequential/racing/", results.RacingView.as_view(), name="racing"),
    # Metric study.
    path(campaign + "metric-runs/", metrics.MetricRunListView.as_view(), name="metric-runs"),
    path("metric-runs/<id:run_id>/", metrics.MetricRunDetailView.as_view(), name="metric-run"),
    path("metric-runs/<id:run_id>/cancel/", metrics.MetricRunCancelView.as_view(), name="metric-run-cancel"),
    path(campaign + "metric-report/", metrics.MetricReportView.as_view(), name="metric-report"),
    path(campaign + "metric-scores/", metrics.MetricScoresImportView.as_view(), name="metric-scores"),
]
