"""The rater's API routes (mounted under ``/api/`` by ``config/urls.py``): their own work, blind."""

from django.urls import path

from annotators.api import views

urlpatterns = [
    path("rate/campaigns/", views.RaterCampaignListView.as_view(), name="rate-campaigns"),
    path("rate/campaigns/<id:campaign_id>/current/", views.CurrentItemView.as_view(), name="rate-current"),
    path("rate/campaigns/<id:campaign_id>/next/", views.NextItemView.as_view(), name="rate-next"),
    path("rate/assignments/<id:assignment_id>/rating/", views.SubmitRatingView.as_view(), name="rate-submit"),
    path("rate/assignments/<id:assignment_id>/flag/", views.FlagItemView.as_view(), name="rate-flag"),
    path("rate/assignments/<id:assignment_id>/correction/", views.CorrectRatingView.as_view(), name="rate-correct"),
]
