"""The API twin of the rater's undo of the last submission (core/corrections.py; the web side is
tested in tests/screens/test_corrections.py)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from core.defaults import CORRECTION_WINDOW_SECONDS
from core.models import Rating, RatingCorrection

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def test_the_last_score_is_corrected_through_the_api_as_on_the_web(world):
    client = world.client("rater")
    assignment_id = world.assignment.pk
    assert client.post(f"/api/rate/assignments/{assignment_id}/rating/", {"score": 1}, format="json").status_code == 201
    response = client.post(f"/api/rate/assignments/{assignment_id}/correction/", {"score": 2}, format="json")
    assert response.status_code == 200
    assert response.json() == {"assignment_id": assignment_id, "old_score": 1, "score": 2, "changed": True}
    assert Rating.objects.get(assignment_id=assignment_id).score == 2
    bad = client.post(f"/api/rate/assignments/{assignment_id}/correction/", {"score": 7}, format="json")
    assert bad.status_code == 400 and "score" in bad.content.decode()
    other = world.client("rater2").post(
        f"/api/rate/assignments/{assignment_id}/correction/", {"score": 0}, format="json"
    )
    assert other.status_code == 404
    Rating.objects.filter(assignment_id=assignment_id).update(
        created_at=timezone.now() - timedelta(seconds=CORRECTION_WINDOW_SECONDS + 5)
    )
    late = client.post(f"/api/rate/assignments/{assignment_id}/correction/", {"score": 0}, format="json")
    assert late.status_code == 409 and "minutes after it was saved" in late.json()["detail"]
    assert Rating.objects.get(assignment_id=assignment_id).score == 2
    assert RatingCorrection.objects.count() == 1
