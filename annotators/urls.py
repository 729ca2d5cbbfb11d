"""The rater's pages: the rater screens and the crowd entry pages (mounted at ``/rate/``). The rater's
API routes are in ``annotators/api/urls.py``."""

from django.urls import path

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
