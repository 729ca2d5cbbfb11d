"""Mechanical Turk: preview, worker identity, resume, the turkSubmitTo allow-list, the HIT submit form."""

import re

import pytest
from django.test import Client

from core.models import Assignment, Campaign, CrowdSession, Rater
from tests.crowd.conftest import SANDBOX, crowd_state, entry, mturk_params, screen
from tests.crowd.helpers import rate_items, shown_assignment
from tests.screens.conftest import SYSTEM_NAMES

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.mark.parametrize(
    "query",
    [
        {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "3HITTEST1"},
        {"assignmentId": "ASSIGNMENT_NOT_AVAILABLE"},
        {},
    ],
    ids=["mturk-preview", "spec-spelling", "no-parameters"],
)
def test_preview_shows_instructions_and_an_example_and_writes_nothing(client, campaign, query):
    campaign.items_per_session = 5
    campaign.save()
    before = crowd_state()
    response = client.get(entry("mturk", campaign), query)
    page = response.content.decode()
    assert response.status_code == 200
    assert "This is a preview" in page and "up to 5 reasons" in page
    assert "The scores" in page and "What an item looks like" in page
    assert "<form" not in page, "nothing to start or submit in a preview"
    assert crowd_state() == before
    assert not response.cookies, "no session, no CSRF cookie"
    assert not client.session.keys()


def test_accepted_hit_shows_instructions_with_a_start_form_and_writes_nothing(client, campaign):
    before = crowd_state()
    page = client.get(entry("mturk", campaign), mturk_params()).content.decode()
    assert "Start rating" in page
    assert f'action="{entry("mturk", campaign)}"' in page
    for name, value in mturk_params().items():
        assert f'name="{name}" value="{value}"' in page
    assert crowd_state() == before


def test_start_creates_the_worker_logs_in_and_leases_the_first_item(client, campaign):
    response = client.post(entry("mturk", campaign), mturk_params())
    assert response.status_code == 302 and response["Location"] == screen("item", campaign)
    rater = Rater.objects.select_related("user").get()
    assert (rater.platform, rater.external_id) == ("mturk", "A1WORKERTEST")
    assert not rater.user.has_usable_password()
    assert client.session["_auth_user_id"] == str(rater.user.pk)
    crowd_session = CrowdSession.objects.get()
    assert (crowd_session.session_id, crowd_session.task_id, crowd_session.submit_to) == (
        "3ASSIGNMENTTEST1",
        "3HITTEST1",
        SANDBOX,
    )
    assert Assignment.objects.filter(rater=rater, status="leased").count() == 1
    page = client.get(response["Location"]).content.decode()
    assert "Item 1 of 15" in page
    assert not any(name in page for name in SYSTEM_NAMES)


@pytest.mark.parametrize(
    "submit_to",
    [
        "https://evil.example.org",
        "https://www.mturk.com.evil.example.org",
        "https://www.mturk.com/elsewhere",
        "https://www.mturk.com?next=https://evil.example.org",
        "https://user@www.mturk.com",
        "http://www.mturk.com",
        "javascript:alert(1)",
        "//www.mturk.com",
        "",
    ],
)
def test_turk_submit_to_outside_the_allow_list_is_refused_and_writes_nothing(client, campaign, submit_to):
    before = crowd_state()
    for response in (
        client.get(entry("mturk", campaign), mturk_params(submit_to=submit_to)),
        client.post(entry("mturk", campaign), mturk_params(submit_to=submit_to)),
    ):
        assert response.status_code == 400
        assert "<code>turkSubmitTo</code>" in response.content.decode()
    assert crowd_state() == before


@pytest.mark.parametrize(
    "submit_to, origin",
    [
        ("https://www.mturk.com", "https://www.mturk.com"),
        ("https://www.mturk.com/", "https://www.mturk.com"),
        ("https://WORKERSANDBOX.mturk.com/", SANDBOX),
    ],
)
def test_mturk_submit_hosts_are_accepted(client, campaign, submit_to, origin):
    client.post(entry("mturk", campaign), mturk_params(submit_to=submit_to))
    assert CrowdSession.objects.get().submit_to == origin


def test_a_test_host_is_allowed_only_through_the_setting(client, campaign, settings):
    fake = "http://127.0.0.1:8765"
    assert client.post(entry("mturk", campaign), mturk_params(submit_to=fake)).status_code == 400
    settings.COMVE_MTURK_SUBMIT_HOSTS = [fake + "/"]
    assert client.post(entry("mturk", campaign), mturk_params(submit_to=fake)).status_code == 302


@pytest.mark.parametrize("missing", ["workerId", "hitId", "turkSubmitTo"])
def test_a_missing_parameter_is_named(client, campaign, missing):
    params = mturk_params()
    del params[missing]
    response = client.post(entry("mturk", campaign), params)
    assert response.status_code == 400 and f"<code>{missing}</code>" in response.content.decode()
    assert not Rater.objects.exists()


def test_a_malformed_worker_id_is_refused(client, campaign):
    response = client.post(entry("mturk", campaign), mturk_params(worker="A1<script>"))
    assert response.status_code == 400 and "<code>workerId</code>" in response.content.decode()


def test_posting_the_preview_value_is_refused(client, campaign):
    response = client.post(entry("mturk", campaign), mturk_params(assignment="ASSIGNMENT_ID_NOT_AVAILABLE"))
    assert response.status_code == 400 and "not accepted yet" in response.content.decode()


def test_start_needs_the_csrf_token(campaign):
    response = Client(enforce_csrf_checks=True).post(entry("mturk", campaign), mturk_params())
    assert response.status_code == 403 and not Rater.objects.exists()


def test_closed_campaign_is_404(client, campaign):
    campaign.status = Campaign.Status.CLOSED
    campaign.save()
    assert client.get(entry("mturk", campaign), mturk_params()).status_code == 404
    assert client.post(entry("mturk", campaign), mturk_params()).status_code == 404


def submit_form(page):
    match = re.search(r'<form method="post" action="([^"]+)" class="mturk-submit">(.*?)</form>', page, re.S)
    assert match, "the completion page has the HIT submit form"
    return match.group(1), dict(re.findall(r'name="(\w+)" value="([^"]*)"', match.group(2))), match.group(2)


def test_finished_hit_posts_assignment_id_to_turk_submit_to(client, campaign):
    campaign.items_per_session = 3
    campaign.save()
    client.post(entry("mturk", campaign), mturk_params())
    assert "Item 1 of 3" in client.get(screen("item", campaign)).content.decode()
    response = rate_items(client, campaign, 3)
    assert response["Location"] == screen("done", campaign)
    page = client.get(screen("done", campaign)).content.decode()
    action, fields, form = submit_form(page)
    assert action == SANDBOX + "/mturk/externalSubmit"
    assert fields == {"assignmentId": "3ASSIGNMENTTEST1", "ratings": "3"}
    assert "csrfmiddlewaretoken" not in form, "the CSRF token never leaves the site"
    # The cap holds: asking for more leads back to the completion page, nothing leased.
    assert client.post(screen("next", campaign))["Location"] == screen("done", campaign)
    assert not Assignment.objects.filter(status="leased").exists()


def test_worker_resumes_the_same_assignment_from_another_browser(client, campaign):
    campaign.items_per_session = 4
    campaign.save()
    client.post(entry("mturk", campaign), mturk_params())
    rate_items(client, campaign, 1)
    held = shown_assignment(client.get(screen("item", campaign)))

    elsewhere = Client()
    response = elsewhere.post(entry("mturk", campaign), mturk_params())
    assert response["Location"] == screen("item", campaign)
    page = elsewhere.get(screen("item", campaign))
    assert shown_assignment(page) == held, "the live lease comes back"
    assert "Item 2 of 4" in page.content.decode()
    assert (Rater.objects.count(), CrowdSession.objects.count()) == (1, 1)


def test_a_second_hit_counts_afresh_and_never_repeats_an_item(client, campaign):
    campaign.items_per_session = 2
    campaign.save()
    client.post(entry("mturk", campaign), mturk_params())
    rate_items(client, campaign, 2)
    client.post(entry("mturk", campaign), mturk_params(assignment="3ASSIGNMENTTEST2", hit="3HITTEST2"))
    assert "Item 1 of 2" in client.get(screen("item", campaign)).content.decode()
    rate_items(client, campaign, 2)
    _, fields, _ = submit_form(client.get(screen("done", campaign)).content.decode())
    assert fields == {"assignmentId": "3ASSIGNMENTTEST2", "ratings": "2"}
    items = list(Assignment.objects.values_list("item_id", flat=True))
    assert len(items) == len(set(items)) == 4


def test_another_workers_assignment_id_is_refused(client, campaign):
    client.post(entry("mturk", campaign), mturk_params())
    before = crowd_state()
    response = Client().post(entry("mturk", campaign), mturk_params(worker="A2OTHERWORKER"))
    assert response.status_code == 403 and "belongs to another worker" in response.content.decode()
    assert crowd_state()[2:] == before[2:], "no session or lease for the impostor"


def test_a_worker_id_never_logs_into_an_account_with_a_password(client, campaign, organizer):
    Rater.objects.create(user=organizer, platform="mturk", external_id="A1WORKERTEST")
    response = client.post(entry("mturk", campaign), mturk_params())
    assert response.status_code == 403
    assert "_auth_user_id" not in client.session


def test_a_worker_known_from_an_imported_batch_gets_an_account(client, campaign):
    imported = Rater.objects.create(platform="mturk", external_id="A1WORKERTEST")
    client.post(entry("mturk", campaign), mturk_params())
    imported.refresh_from_db()
    assert imported.user is not None and client.session["_auth_user_id"] == str(imported.user.pk)


def test_a_crowd_worker_is_only_a_rater(client, campaign, rater_user):
    client.post(entry("mturk", campaign), mturk_params())
    assert client.get(screen("quality", campaign)).status_code == 403
    assert client.get(screen("crowd", campaign)).status_code == 403
    other = Client()
    other.force_login(rater_user)
    other.post(screen("next", campaign))
    theirs = Assignment.objects.get(rater__user=rater_user)
    response = client.post(screen("item", campaign), {"assignment": theirs.pk, "score": "3"})
    assert response.status_code == 404
    assert not Assignment.objects.filter(pk=theirs.pk, status="done").exists()
