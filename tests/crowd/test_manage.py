"""The organizer's crowd page: roles, settings, the HIT and study addresses, the sessions CSV."""

import csv
import io

import pytest

from core.models import Campaign
from tests.crowd.conftest import COMPLETION_CODE, COMPLETION_URL, SCREENING_CODE, entry, mturk_params, screen
from tests.crowd.helpers import EVERY_CONTROL, rate_items

pytestmark = pytest.mark.django_db

VALID = {
    "completion_url": COMPLETION_URL,
    "completion_code": COMPLETION_CODE,
    "screening_code": SCREENING_CODE,
    "items_per_session": "10",
    "lab_access": "all",
}
CROWD_FIELDS = ("completion_url", "completion_code", "screening_code", "items_per_session")


def crowd_settings(campaign):
    campaign = Campaign.objects.get(pk=campaign.pk)
    return tuple(getattr(campaign, name) for name in CROWD_FIELDS)


def test_only_organizers(client, campaign, rater_user, researcher):
    address = screen("crowd", campaign)
    assert client.get(address)["Location"].startswith("/accounts/login/")
    for user in (rater_user, researcher):
        client.force_login(user)
        assert client.get(address).status_code == 403
        assert client.post(address, VALID).status_code == 403
        assert client.get(screen("crowd_sessions_download", campaign, fmt="csv")).status_code == 403
    assert crowd_settings(campaign) == ("", "", "", None)


def test_organizer_sees_the_addresses_and_saves_the_settings(client, campaign, organizer):
    client.force_login(organizer)
    page = client.get(screen("crowd", campaign)).content.decode()
    assert f"http://testserver/rate/mturk/{campaign.pk}/{campaign.crowd_key}/" in page
    assert "must be an absolute https:// address" in page, "plain http cannot be a HIT"
    assert (
        f"http://testserver/rate/prolific/{campaign.pk}/{campaign.crowd_key}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
        "&amp;STUDY_ID={{%STUDY_ID%}}&amp;SESSION_ID={{%SESSION_ID%}}"
    ) in page
    response = client.post(screen("crowd", campaign), VALID)
    assert response.status_code == 302
    assert crowd_settings(campaign) == (COMPLETION_URL, COMPLETION_CODE, SCREENING_CODE, 10)


def test_over_https_the_page_shows_the_external_question(client, campaign, organizer):
    client.force_login(organizer)
    page = client.get(screen("crowd", campaign), secure=True).content.decode()
    assert (
        f"&lt;ExternalURL&gt;https://testserver/rate/mturk/{campaign.pk}/{campaign.crowd_key}/&lt;/ExternalURL&gt;"
    ) in page


@pytest.mark.parametrize(
    "field, value",
    [
        ("screening_code", COMPLETION_CODE),
        ("completion_code", "has space"),
        ("screening_code", "=cmd"),
        ("items_per_session", "0"),
        ("completion_url", "not a url"),
    ],
)
def test_bad_settings_change_nothing(client, campaign, organizer, field, value):
    client.force_login(organizer)
    response = client.post(screen("crowd", campaign), {**VALID, field: value})
    assert response.status_code == 400
    assert f'id="id_{field}-error"' in response.content.decode()
    assert crowd_settings(campaign) == ("", "", "", None)


def test_sessions_csv_lists_each_session_with_its_ratings_and_code(client, campaign, organizer):
    from django.test import Client

    Campaign.objects.filter(pk=campaign.pk).update(
        completion_code=COMPLETION_CODE, screening_code=SCREENING_CODE, items_per_session=15
    )
    worker = Client()
    worker.post(entry("mturk", campaign), mturk_params())
    rate_items(worker, campaign, 15, failed_controls=EVERY_CONTROL)
    client.force_login(organizer)
    response = client.get(screen("crowd_sessions_download", campaign, fmt="csv"))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [
        (row["platform"], row["worker_id"], row["session_id"], row["task_id"], row["ratings"], row["screened_out"])
        for row in rows
    ] == [("mturk", "A1WORKERTEST", "3ASSIGNMENTTEST1", "3HITTEST1", "15", "True")]
    assert rows[0]["code"] == "", "MTurk has no codes; the organizer rejects or approves on MTurk"
    page = client.get(screen("crowd", campaign)).content.decode()
    assert "A1WORKERTEST" in page and "<strong>failed</strong>" in page
