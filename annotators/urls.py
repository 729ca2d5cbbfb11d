"""URLs of the rater screens and the crowd entry pages (mounted at ``/rate/``), and of the rater's API endpoints."""

from django.urls import path

from annotators import api
from annotators.views import crowd, rating

app_name = "annotators"
urlpatterns = [
    path("", rating.campaign_list, name="campaigns"),
    path("<id:campaign_id>/", rating.instructions, name="instructions"),
    path("<id:campaign_id>/next/", rating.next_item, name="next"),
    path("<id:campaign_id>/item/", rating.item, name="item"),
    path("<id:campaign_id>/flag/", rating.flag, name="flag"),
    path("<id:campaign_id>/correct/", rating.correct, name="correct"),
    path("<id:campaign_id>/done/", rating.done, name="done"),
    path("mturk/<id:campaign_id>/<str:key>/", crowd.mturk_entry, name="mturk"),
    path("prolific/<id:campaign_id>/<str:key>/", crowd.prolific_entry, name="prolific"),
]

# The rater's own work through the REST API (mounted under ``/api/`` by ``config/urls.py``).
api_urlpatterns = [
    path("rate/campaigns/", api.RaterCampaignListView.as_view(), name="rate-campaigns"),
    path("rate/campaigns/<id:campaign_id>/current/", api.CurrentItemView.as_view(), name="rate-current"),
    path("rate/campaigns/<id:campaign_id>/next/", api.NextItemView.as_view(), name="rate-next"),
    path("rate/assignments/<id:assignment_id>/rating/", api.SubmitRatingView.as_view(), name="rate-submit"),
    path("rate/assignments/<id:assignment_id>/flag/", api.FlagItemView.as_view(), name="rate-flag"),
    path("rate/assignments/<id:assignment_id>/correction/", api.CorrectRatingView.as_view(), name="rate-correct"),
]
