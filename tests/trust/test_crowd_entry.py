"""Issue 12, flaw 1: crowd entry is the organizer's choice, keyed, and a crowd session owns its leases.

Before: ``/rate/prolific/<id>/?PROLIFIC_PID=anything`` (or the MTurk entry with a made-up
worker id) let anyone rate in any open campaign, lab campaigns included, and a second browser
with a known worker id could act in that worker's live session.
"""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from core.models import Assignment, Campaign, CrowdSession, Rating
from evalapp.formats.comve import SourceFile
from evalapp.services import crowd as crowd_service
from evalapp.services.results import table6
from tests.crowd.conftest import crowd_state, entry, mturk_params, prolific_params, screen
from tests.crowd.helpers import rate_items, shown_assignment
from tests.screens.conftest import make_campaign

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

REPO_ROOT = Path(__file__).resolve().parents[2]
PLATFORMS = {"mturk": mturk_params, "prolific": prolific_params}
HUGE_IDS = [str(2**63), str(2**64), "9" * 40]


def human_scores(campaign):
    return [(row.team, row.human) for row in table6(campaign).rows]


@pytest.fixture
def lab_campaign(db):
    """A campaign made with no crowd option: both platforms shut."""
    return make_campaign(name="Lab")


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("method", ["get", "post"])
def test_a_lab_campaign_refuses_every_crowd_entry_and_writes_nothing(client, lab_campaign, platform, method):
    assert not (lab_campaign.mturk_enabled or lab_campaign.prolific_enabled), "crowd entry is off by default"
    before = crowd_state()
    response = getattr(client, method)(entry(platform, lab_campaign), PLATFORMS[platform]())
    assert response.status_code == 404
    assert crowd_state() == before
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("platform", PLATFORMS)
def test_only_the_enabled_platform_may_enter(client, lab_campaign, platform):
    other = "prolific" if platform == "mturk" else "mturk"
    crowd_service.save_settings(lab_campaign, **{f"{platform}_enabled": True})
    before = crowd_state()
    assert client.post(entry(other, lab_campaign), PLATFORMS[other]()).status_code == 404
    assert crowd_state() == before
    assert client.post(entry(platform, lab_campaign), PLATFORMS[platform]()).status_code == 302
    assert CrowdSession.objects.count() == 1


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("key", ["", "x", "wrong-key-of-the-right-length-000000000000", "%00", "a" * 5000])
def test_a_wrong_key_is_404_and_writes_nothing(client, campaign, platform, key):
    before = crowd_state()
    url = (
        entry(platform, campaign).replace(campaign.crowd_key, key)
        if key
        else entry(platform, campaign).replace(campaign.crowd_key + "/", "")
    )
    assert client.post(url, PLATFORMS[platform]()).status_code == 404
    assert crowd_state() == before


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_rotated_key_stops_the_old_address_at_once(client, campaign, platform):
    old = entry(platform, campaign)
    crowd_service.rotate_key(campaign)
    campaign.refresh_from_db()
    before = crowd_state()
    assert client.post(old, PLATFORMS[platform]()).status_code == 404
    assert crowd_state() == before
    assert client.post(entry(platform, campaign), PLATFORMS[platform]()).status_code == 302


@pytest.mark.parametrize(
    "path",
    [
        "/rate/{id}/",
        "/rate/{id}/item/",
        "/rate/mturk/{id}/k/",
        "/rate/prolific/{id}/k/",
        "/campaigns/{id}/",
        "/api/rate/campaigns/{id}/current/",
    ],
)
@pytest.mark.parametrize("huge", HUGE_IDS)
def test_ids_out_of_range_are_404(client, rater_user, path, huge):
    client.force_login(rater_user)
    assert client.get(path.format(id=huge)).status_code == 404


def test_a_second_browser_with_the_same_worker_id_gets_neither_items_nor_progress(campaign):
    first, second = Client(), Client()
    first.post(entry("mturk", campaign), mturk_params(assignment="3ASSIGNMENTFIRST"))
    page = first.get(screen("item", campaign))
    held = shown_assignment(page)
    rate_items(first, campaign, 2)
    held = shown_assignment(first.get(screen("item", campaign)))
    # The stranger knows the worker id and brings a session of their own.
    second.post(entry("mturk", campaign), mturk_params(assignment="3ASSIGNMENTSTRANGER"))
    # One live lease per rater per campaign (issue 18): the stranger's session gets no item while
    # the first session holds one, and never sees the first session's.
    stranger_page = second.get(screen("item", campaign), follow=True).content.decode()
    assert f'value="{held}"' not in stranger_page
    assert Assignment.objects.filter(rater__external_id="A1WORKERTEST", status="leased").count() == 1
    response = second.post(screen("item", campaign), {"assignment": held, "score": 0})
    assert response.status_code == 404, "the first session's item is not the stranger's"
    assert not Rating.objects.filter(assignment_id=held).exists()
    assert first.post(screen("item", campaign), {"assignment": held, "score": 2}).status_code == 302
    assert Rating.objects.get(assignment_id=held).score == 2


def test_invented_identities_do_not_move_table6_until_the_platform_confirms_them(campaign):
    """Three made-up workers score everything 0: in a crowd campaign counted from reconciled work
    only, Table 6 does not move until the platform's records verify a session."""
    assert campaign.count_reconciled_only, "on by default for a campaign opened to a crowd platform"
    before = human_scores(campaign)
    for n in range(3):
        visitor = Client()
        visitor.post(
            entry("prolific", campaign),
            prolific_params(pid=f"5f0c0ffee0c0ffee0c0ffe{n:02d}", session=f"60b2session0000000000000{n}"),
        )
        rate_items(visitor, campaign, 4, failed_controls=0)
    assert Rating.objects.count() == 12
    assert human_scores(campaign) == before
    records = b"Submission id,Participant id,Status\n60b2session00000000000000,5f0c0ffee0c0ffee0c0ffe00,APPROVED\n"
    crowd_service.import_crowd_submissions(campaign, "prolific", SourceFile("export.csv", records))
    assert human_scores(campaign) != before


def test_create_campaign_opens_the_platforms_it_is_told(db):
    dataset = make_campaign(name="Base").dataset
    call_command(
        "create_campaign",
        "--dataset",
        dataset.name,
        "--name",
        "Open to Turk",
        "--sample",
        "2",
        "--seed",
        "1",
        "--mturk",
    )
    campaign = Campaign.objects.get(name="Open to Turk")
    assert (campaign.mturk_enabled, campaign.prolific_enabled, campaign.count_reconciled_only) == (True, False, True)
    assert len(campaign.crowd_key) >= 32


# Issue 18, failures 8 and 9: crowd entry throttled, the idle clock started at login.


def test_crowd_entry_is_throttled_per_address(campaign, settings):
    """Before (commit a7b981f): 40 entries with invented ids from one address made 40 accounts and sessions."""
    settings.COMVE_CROWD_ENTRY_RATE_PER_ADDRESS = "5/minute"
    from django.core.cache import cache

    cache.clear()
    answers = [
        Client()
        .post(entry("mturk", campaign), mturk_params(worker=f"A1INVENTED{n:02d}", assignment=f"3ASSIGNINV{n:02d}"))
        .status_code
        for n in range(12)
    ]
    assert answers[:5] == [302] * 5 and set(answers[5:]) == {429}
    assert CrowdSession.objects.count() == 5
    refused = Client().post(entry("mturk", campaign), mturk_params(worker="A1LATE", assignment="3ASSIGNLATE"))
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Please wait a moment" in refused.content.decode() and "Nothing was recorded" in refused.content.decode()
    # Another address still gets in.
    assert (
        Client(REMOTE_ADDR="10.0.0.9")
        .post(entry("mturk", campaign), mturk_params(worker="A1OTHERNET", assignment="3ASSIGNOTHER"))
        .status_code
        == 302
    )


def test_crowd_entry_is_throttled_per_campaign(campaign, settings):
    settings.COMVE_CROWD_ENTRY_RATE_PER_CAMPAIGN = "3/minute"
    from django.core.cache import cache

    cache.clear()
    answers = [
        Client(REMOTE_ADDR=f"10.0.1.{n}")
        .post(
            entry("prolific", campaign),
            prolific_params(pid=f"5f0c0ffee0c0ffee0c0ff{n:03d}", session=f"60b2session000000000000{n:02d}"),
        )
        .status_code
        for n in range(5)
    ]
    assert answers == [302, 302, 302, 429, 429]


def test_the_idle_clock_starts_at_login(campaign, settings, monkeypatch):
    """Before: the clock started at the first request after login, so an unused session never aged."""
    import core.middleware

    worker = Client()
    now = [1_000_000.0]
    monkeypatch.setattr(core.middleware.time, "time", lambda: now[0])
    worker.post(entry("mturk", campaign), mturk_params())
    now[0] += settings.SESSION_IDLE_SECONDS + 5
    response = worker.get(screen("item", campaign))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
