"""URLs of the rater screens (mounted at ``/rate/``), the crowd entry pages, and the organizer's pages."""
from django.urls import path

from annotators.views import crowd, crowd_manage, quality, rating

app_name = "annotators"
urlpatterns = [
    path("", rating.campaign_list, name="campaigns"),
    path("<int:campaign_id>/", rating.instructions, name="instructions"),
    path("<int:campaign_id>/next/", rating.next_item, name="next"),
    path("<int:campaign_id>/item/", rating.item, name="item"),
    path("<int:campaign_id>/flag/", rating.flag, name="flag"),
    path("<int:campaign_id>/done/", rating.done, name="done"),
    path("mturk/<int:campaign_id>/", crowd.mturk_entry, name="mturk"),
    path("prolific/<int:campaign_id>/", crowd.prolific_entry, name="prolific"),
    path("manage/<int:campaign_id>/crowd/", crowd_manage.crowd_settings, name="crowd"),
    path("manage/<int:campaign_id>/crowd-sessions.csv", crowd_manage.crowd_sessions_csv, name="crowd_sessions_csv"),
    path("manage/<int:campaign_id>/quality/", quality.quality_table, name="quality"),
    path("manage/<int:campaign_id>/quality.csv", quality.quality_csv, name="quality_csv"),
    path("manage/<int:campaign_id>/thresholds/", quality.thresholds, name="thresholds"),
    path("manage/<int:campaign_id>/exclude/<int:rater_id>/", quality.exclude, name="exclude"),
]
