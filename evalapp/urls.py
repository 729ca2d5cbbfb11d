"""The organizer's and researcher's pages: every route of ``evalapp``'s web interface, in one module
(its API routes are in ``evalapp/api/urls.py``). Mounted at the site's root by ``config/urls.py``.

Each area keeps the namespace its pages, templates and the manual address (``data:``, ``campaigns:``,
``results:``, ``metrics:``); the home page and a lab rater's sign-in link have none.
"""

from django.urls import include, path

from evalapp.views import campaigns, crowd, data, flags, home, metrics, quality, raters, results

data_urls = [
    path("", data.index, name="index"),
    path("import/", data.import_dataset, name="import_dataset"),
    path("<id:pk>/", data.dataset_detail, name="dataset"),
    path("<id:pk>/upload/", data.upload_submission, name="upload_submission"),
]

campaign = "<id:campaign_id>/"
campaign_urls = [
    path("", campaigns.index, name="index"),
    path("new/", campaigns.create, name="create"),
    path(campaign, campaigns.detail, name="detail"),
    path(campaign + "status/", campaigns.status, name="status"),
    # Rater quality.
    path(campaign + "quality/", quality.quality_table, name="quality"),
    path(campaign + "quality.<str:fmt>", quality.quality_download, name="quality_download"),
    path(campaign + "thresholds/", quality.thresholds, name="thresholds"),
    path(campaign + "exclude/<id:rater_id>/", quality.exclude, name="exclude"),
    # The review queue of reported items.
    path(campaign + "flags/", flags.queue, name="flags"),
    path(campaign + "flags/<id:item_id>/dismiss/", flags.dismiss, name="flag_dismiss"),
    path(campaign + "flags/<id:item_id>/retire/", flags.retire, name="flag_retire"),
    # Lab rater accounts.
    path(campaign + "raters/", raters.raters, name="raters"),
    path(campaign + "raters/add/", raters.add, name="raters_add"),
    path(campaign + "raters/<id:rater_id>/reset/", raters.reset, name="rater_reset"),
    path(campaign + "raters/<id:rater_id>/deactivate/", raters.deactivate, name="rater_deactivate"),
    # Crowd platforms.
    path(campaign + "crowd/", crowd.crowd_settings, name="crowd"),
    path(campaign + "crowd/rotate-key/", crowd.rotate_key, name="rotate_crowd_key"),
    path(campaign + "crowd/submissions/", crowd.import_submissions, name="import_crowd_submissions"),
    path(campaign + "crowd-sessions.<str:fmt>", crowd.crowd_sessions_download, name="crowd_sessions_download"),
]

result_urls = [
    path("", results.index, name="index"),
    path(campaign, results.dashboard, name="dashboard"),
    path(campaign + "table6/", results.table6_page, name="table6_page"),
    path(campaign + "plan/", results.plan, name="plan"),
    path(campaign + "racing/", results.racing, name="racing"),
    path(campaign + "table6.<str:fmt>", results.table6_download, name="table6"),
    path(campaign + "agreement.<str:fmt>", results.agreement_download, name="agreement"),
    path(campaign + "ratings.<str:fmt>", results.ratings_download, name="ratings"),
]

metric_urls = [
    path("", metrics.index, name="index"),
    path("campaign/" + campaign, metrics.campaign_report, name="campaign"),
    path("campaign/" + campaign + "start/", metrics.start, name="start"),
    path("campaign/" + campaign + "import/", metrics.import_scores, name="import"),
    path("campaign/" + campaign + "download/<str:fmt>/", metrics.download, name="download"),
    path("run/<id:run_id>/", metrics.run_detail, name="run"),
    path("run/<id:run_id>/cancel/", metrics.run_cancel, name="run_cancel"),
]

urlpatterns = [
    path("", home.home, name="home"),
    path("accounts/link/<str:uidb64>/<str:token>/", raters.sign_in_link, name="sign_in_link"),
    path("data/", include((data_urls, "data"))),
    path("campaigns/", include((campaign_urls, "campaigns"))),
    path("results/", include((result_urls, "results"))),
    path("metrics/", include((metric_urls, "metrics"))),
]
