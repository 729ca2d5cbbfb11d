"""Prolific: identity and resume, and the completion or screening code at the end of the session."""

import re

import pytest
from django.test import Client

from core import engine, quality
from core.models import CrowdSession, Rater
from tests.crowd.conftest import (
    COMPLETION_CODE,
    COMPLETION_URL,
    SCREENING_CODE,
    crowd_state,
    entry,
    prolific_params,
    screen,
)
from tests.crowd.helpers import EVERY_CONTROL, rate_items, shown_assignment

pytestmark = pytest.mark.django_db

ALL_ITEMS = 15
CONTROL_ITEMS = 3


@pytest.fixture
def study(campaign):
    campaign.completion_url = COMPLETION_URL
    campaign.completion_code = COMPLETION_CODE
    campaign.screening_code = SCREENING_CODE
    campaign.save()
    return campaign


def completion_link(page):
    match = re.search(r'<a class="button primary" href="([^"]+)">Return to Prolific</a>', page)
    return match.group(1).replace("&amp;", "&") if match else None


def test_landing_writes_nothing_and_start_identifies_the_participant(client, study):
    before = crowd_state()
    page = client.get(entry("prolific", study), prolific_params()).content.decode()
    assert 'name="PROLIFIC_PID" value="5f0c0ffee0c0ffee0c0ffee0"' in page and "Start rating" in page
    assert crowd_state() == before
    assert client.post(entry("prolific", study), prolific_params())["Location"] == screen("item", study)
    rater = Rater.objects.get()
    assert (rater.platform, rater.external_id) == ("prolific", "5f0c0ffee0c0ffee0c0ffee0")
    crowd_session = CrowdSession.objects.get()
    assert (crowd_session.task_id, crowd_session.session_id, crowd_session.submit_to) == (
        "60a1study0000000000000001",
        "60b2session00000000000001",
        "",
    )


@pytest.mark.parametrize("missing", ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"])
def test_a_missing_parameter_is_named(client, study, missing):
    params = prolific_params()
    params[missing] = ""
    response = client.post(entry("prolific", study), params)
    assert response.status_code == 400 and f"<code>{missing}</code>" in response.content.decode()
    assert not Rater.objects.exists()


def test_participant_resumes_after_losing_the_session(client, study):
    client.post(entry("prolific", study), prolific_params())
    rate_items(client, study, 2)
    held = shown_assignment(client.get(screen("item", study)))
    again = Client()
    page = again.get(entry("prolific", study), prolific_params()).content.decode()
    assert "Start rating" in page, "a new browser is not logged in until it presses Start"
    again.post(entry("prolific", study), prolific_params())
    page = again.get(screen("item", study))
    assert shown_assignment(page) == held and f"Item 3 of {ALL_ITEMS}" in page.content.decode()
    page = again.get(entry("prolific", study), prolific_params()).content.decode()
    assert f"Continue rating (2 of {ALL_ITEMS} done)" in page


def test_finished_participant_gets_the_completion_code_and_link(client, study):
    client.post(entry("prolific", study), prolific_params())
    assert rate_items(client, study, ALL_ITEMS)["Location"] == screen("done", study)
    page = client.get(screen("done", study)).content.decode()
    assert COMPLETION_CODE in page and SCREENING_CODE not in page
    assert completion_link(page) == f"{COMPLETION_URL}?cc={COMPLETION_CODE}"
    assert "mturk-submit" not in page


def test_participant_who_fails_the_controls_gets_the_screening_code(client, study):
    client.post(entry("prolific", study), prolific_params())
    rate_items(client, study, ALL_ITEMS, failed_controls=EVERY_CONTROL)
    page = client.get(screen("done", study)).content.decode()
    assert SCREENING_CODE in page and COMPLETION_CODE not in page
    assert completion_link(page) == f"{COMPLETION_URL}?cc={SCREENING_CODE}"


@pytest.mark.parametrize("failed, code", [(1, COMPLETION_CODE), (2, SCREENING_CODE)])
def test_the_pass_rate_is_compared_with_the_campaign_threshold(client, study, failed, code):
    assert CONTROL_ITEMS == quality.MIN_CONTROL_RATINGS
    study.min_control_pass_rate = 0.5  # 2 of 3 passed is not below it, 1 of 3 is
    study.save()
    client.post(entry("prolific", study), prolific_params())
    rate_items(client, study, ALL_ITEMS, failed_controls=failed)
    assert completion_link(client.get(screen("done", study)).content.decode()) == f"{COMPLETION_URL}?cc={code}"


def test_without_a_screening_code_everyone_gets_the_completion_code(client, study):
    study.screening_code = ""
    study.save()
    client.post(entry("prolific", study), prolific_params())
    rate_items(client, study, ALL_ITEMS, failed_controls=EVERY_CONTROL)
    page = client.get(screen("done", study)).content.decode()
    assert completion_link(page) == f"{COMPLETION_URL}?cc={COMPLETION_CODE}"


def test_excluded_participant_gets_the_screening_code(client, study, organizer):
    client.post(entry("prolific", study), prolific_params())
    rate_items(client, study, 2)
    engine.exclude_rater(study, Rater.objects.get(), by=organizer)
    page = client.get(screen("done", study)).content.decode()
    assert "Your part in this campaign has ended" in page
    assert completion_link(page) == f"{COMPLETION_URL}?cc={SCREENING_CODE}"


def test_no_code_without_a_single_rating(client, study):
    study.items.update(active_count=1)  # every item held by someone else
    client.post(entry("prolific", study), prolific_params())
    page = client.get(screen("done", study)).content.decode()
    assert "No item for you right now" in page and "return this study" in page
    assert COMPLETION_CODE not in page and SCREENING_CODE not in page


def test_the_cap_ends_the_session_with_the_code(client, study):
    study.items_per_session = 4
    study.save()
    client.post(entry("prolific", study), prolific_params())
    assert rate_items(client, study, 4)["Location"] == screen("done", study)
    page = client.get(screen("done", study)).content.decode()
    assert "You have rated 4 items: this task is complete." in page and COMPLETION_CODE in page
