"""Malformed and hostile web requests: each is refused clearly and leaves the campaign exactly as before."""

from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from core import engine
from core.models import Campaign
from core.roles import ORGANIZER
from evalapp.services.campaigns import create_campaign
from tests.badinput.requests import BAD_REQUESTS
from tests.badinput.world import DATASET, build_world, snapshot

# Atomicity is the database's: the same cases run again on PostgreSQL.
pytestmark = pytest.mark.postgres

FILES = Path(__file__).resolve().parent / "files"
CSRF_SECRET = "a" * 32
OTHER_CSRF_SECRET = "b" * 32
FOREIGN_ORIGIN = "https://attacker.example"


@pytest.fixture
def world(db):
    campaign, rater, other = build_world()
    closed = create_campaign(DATASET, "closed-campaign", raters_per_item=3, seed=8)
    Campaign.objects.filter(pk=closed.pk).update(status=Campaign.Status.CLOSED)
    organizer = get_user_model().objects.create_user("organizer", password="organizer-password")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZER)[0])
    return {
        "users": {"rater": rater.user, "organizer": organizer, "anonymous": None},
        "fields": {
            "campaign": campaign.pk,
            "closed": closed.pk,
            "dataset": campaign.dataset_id,
            "own": engine.live_lease(campaign, rater).pk,
            "others": engine.live_lease(campaign, other).pk,
        },
    }


def fill(value, fields):
    return value.format(**fields) if isinstance(value, str) else value


def send(client, case, fields):
    path = fill(case.path, fields)
    data = {key: fill(value, fields) for key, value in case.data.items()}
    headers = {}
    if case.csrf != "missing":
        client.cookies["csrftoken"] = CSRF_SECRET
        data["csrfmiddlewaretoken"] = OTHER_CSRF_SECRET if case.csrf == "wrong" else CSRF_SECRET
        if case.method not in ("GET", "POST"):  # a script sends the token in the header
            headers["HTTP_X_CSRFTOKEN"] = data["csrfmiddlewaretoken"]
    if case.csrf == "foreign-origin":
        headers["HTTP_ORIGIN"] = FOREIGN_ORIGIN
    if case.upload:
        data["file"] = SimpleUploadedFile(case.upload, (FILES / case.upload).read_bytes())
    elif case.upload_bytes:
        data["file"] = SimpleUploadedFile("big.csv", b"x" * case.upload_bytes)
    if case.method == "GET":
        return client.get(path, **headers)
    if case.method == "POST":
        return client.post(path, data, **headers)
    return client.generic(case.method, path, urlencode(data), "application/x-www-form-urlencoded", **headers)


@pytest.mark.parametrize("case", BAD_REQUESTS, ids=[case.name for case in BAD_REQUESTS])
def test_bad_request_is_refused_and_changes_nothing(world, case):
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    user = world["users"][case.who]
    if user is not None:
        client.force_login(user)
    before = snapshot()
    with override_settings(**case.settings):
        response = send(client, case, world["fields"])
    assert response.status_code == case.status, response.content[:500]
    if case.says:
        page = client.get(response["Location"]) if response.status_code == 302 else response
        assert case.says in page.content.decode(), page.content.decode()[:2000]
    assert snapshot() == before


def test_table_has_at_least_twenty_web_requests():
    assert len([case for case in BAD_REQUESTS if case.channel == "web"]) >= 20
