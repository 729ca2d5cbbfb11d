"""Issue 12, flaw 4: JSON nested or sized beyond a limit, and text no field accepts, give a 400.

Before: ``"[" * 50000`` as the body of /api/auth/token/ or of the rating endpoint raised a
RecursionError (500).
"""

import pytest
from rest_framework.test import APIClient

from core import engine
from core.defaults import MAX_JSON_BYTES, MAX_JSON_DEPTH
from core.models import Rating
from tests.screens.conftest import make_campaign

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

HOSTILE_BODIES = {
    "50,000 open brackets": "[" * 50000,
    "nested one level too deep": "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1),
    "nested objects": '{"a":' * 5000 + "1" + "}" * 5000,
    "larger than the limit": '{"note": "' + "x" * MAX_JSON_BYTES + '"}',
    "NaN": '{"score": NaN}',
    "lone surrogate": '{"score": 2, "note": "\\ud800"}',
    "NUL in a key": '{"sc\\u0000ore": 2}',
    "not UTF-8": b'{"score": "\xff\xfe"}',
    "truncated": '{"score": ',
}


@pytest.fixture
def endpoints(db, rater_user):
    campaign = make_campaign(name="Hostile JSON")
    assignment = engine.next_assignment(campaign, rater_user.rater)
    return {
        "token": "/api/auth/token/",
        "rating": f"/api/rate/assignments/{assignment.pk}/rating/",
        "flag": f"/api/rate/assignments/{assignment.pk}/flag/",
    }


@pytest.mark.parametrize("endpoint", ["token", "rating", "flag"])
@pytest.mark.parametrize("body", HOSTILE_BODIES)
def test_hostile_json_is_a_400_and_writes_nothing(endpoints, rater_user, endpoint, body):
    client = APIClient()
    if endpoint != "token":
        client.force_authenticate(rater_user)
    data = HOSTILE_BODIES[body]
    response = client.generic(
        "POST", endpoints[endpoint], data if isinstance(data, bytes) else data.encode(), content_type="application/json"
    )
    assert response.status_code == 400, response.content[:300]
    assert response.json()["detail"]
    assert not Rating.objects.exists()


def test_the_limits_leave_room_for_real_requests(endpoints, rater_user):
    client = APIClient()
    client.force_authenticate(rater_user)
    nested = {"score": 2, "seconds": 3.5}
    assert client.post(endpoints["rating"], nested, format="json").status_code == 201
