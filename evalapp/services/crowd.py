"""Crowd platforms from the organizer's side: the campaign's settings, its entry addresses, its sessions."""
from collections import defaultdict
from dataclasses import dataclass

from django.urls import reverse

from core import quality
from core.crowd import PROLIFIC, code_for
from core.models import Assignment, CrowdSession

PROLIFIC_URL_PARAMETERS = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"


def entry_url(base_url, campaign, platform):
    """The absolute address of the campaign's entry page for a platform, under ``base_url``."""
    path = reverse(f"annotators:{platform}", kwargs={"campaign_id": campaign.pk})
    address = base_url.rstrip("/") + path
    return f"{address}?{PROLIFIC_URL_PARAMETERS}" if platform == PROLIFIC else address


def save_settings(campaign, completion_url, completion_code, screening_code, items_per_session):
    """Save the campaign's crowd settings (already validated by the caller's form)."""
    campaign.completion_url = completion_url
    campaign.completion_code = completion_code
    campaign.screening_code = screening_code
    campaign.items_per_session = items_per_session
    campaign.save(update_fields=["completion_url", "completion_code", "screening_code", "items_per_session"])


@dataclass(frozen=True)
class SessionReview:
    """One crowd session as the organizer reviews it before approving the work on the platform."""

    platform: str
    worker_id: str
    session_id: str
    task_id: str
    started_at: object
    ratings: int
    screened_out: bool
    code: str

    COLUMNS = ("platform", "worker_id", "session_id", "task_id", "started_at", "ratings", "screened_out", "code")

    def row(self):
        return [getattr(self, column) for column in self.COLUMNS]


def session_reviews(campaign):
    """Every crowd session of the campaign with its ratings and the code its worker is owed.

    Sessions of one worker split the worker's assignments by their start (see
    :func:`session_ratings`); the screening figures are the quality page's.
    """
    sessions = list(CrowdSession.objects.filter(campaign=campaign).select_related("rater")
                    .order_by("rater_id", "assignments_before", "pk"))
    sequences = defaultdict(list)
    for rater_id, sequence in Assignment.objects.filter(
            campaign=campaign, status=Assignment.Status.DONE,
            rater_id__in={crowd_session.rater_id for crowd_session in sessions}).values_list("rater_id", "sequence"):
        sequences[rater_id].append(sequence)
    figures = {record.rater_id: record for record in quality.rater_quality(campaign)}
    reviews = []
    for index, crowd_session in enumerate(sessions):
        following = sessions[index + 1] if index + 1 < len(sessions) else None
        until = following.assignments_before if following and following.rater_id == crowd_session.rater_id else None
        ratings = sum(1 for sequence in sequences[crowd_session.rater_id]
                      if sequence > crowd_session.assignments_before and (until is None or sequence <= until))
        record = figures.get(crowd_session.rater_id)
        screened_out = record is not None and (record.excluded or quality.fails_controls(
            record.control_ratings, record.control_pass_rate, campaign.min_control_pass_rate))
        reviews.append(SessionReview(
            crowd_session.platform, crowd_session.rater.external_id, crowd_session.session_id,
            crowd_session.task_id, crowd_session.started_at, ratings, screened_out,
            code_for(campaign, screened_out) if crowd_session.platform == PROLIFIC else ""))
    reviews.sort(key=lambda review: (review.started_at, review.session_id))
    return reviews
