"""The rater's API: blind items, idempotent submits, 404 for another rater's assignment,
409 when a rating is no longer needed, flags."""

from datetime import timedelta

import pytest
from django.utils import timezone

from core import engine
from core.models import Assignment, Campaign, Item, ItemFlag, Rating
from tests.api.world import SYSTEMS

# Also run against PostgreSQL (second pass of scripts/test.sh): the API over the real engine.
pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

RATER_URLS = ("/api/rate/campaigns/", "/api/rate/campaigns/{c}/current/")
SYSTEM_WORDS = (*SYSTEMS, "Human", "system", "item_id")


def rating_url(assignment_id):
    return f"/api/rate/assignments/{assignment_id}/rating/"


def test_next_resumes_the_held_item_and_shows_it_blind(world):
    client = world.client("rater")
    response = client.post(f"/api/rate/campaigns/{world.campaign.pk}/next/")
    assert response.status_code == 200
    body = response.json()
    assert body["assignment_id"] == world.assignment.pk
    assert body["statement"] == world.assignment.item.instance.false_sent
    assert body["reason"] == world.assignment.item.text
    assert [entry["score"] for entry in body["rubric"]] == [0, 1, 2, 3]
    assert body["progress"] == {"done": 0, "total": 3, "finished": False}
    assert client.get(f"/api/rate/campaigns/{world.campaign.pk}/current/").json() == body


def test_no_rater_response_names_a_system_or_shows_other_scores(world):
    client = world.client("rater")
    bodies = [client.post(f"/api/rate/campaigns/{world.campaign.pk}/next/").content.decode()]
    bodies += [client.get(url.format(c=world.campaign.pk)).content.decode() for url in RATER_URLS]
    bodies.append(client.post(rating_url(world.assignment.pk), {"score": 1}, format="json").content.decode())
    for body in bodies:
        for word in SYSTEM_WORDS:
            assert word not in body, (word, body)
        assert "ext-1" not in body and "rater-" not in body


def test_submit_is_idempotent(world):
    client = world.client("rater")
    first = client.post(rating_url(world.assignment.pk), {"score": 3, "seconds": 4.5}, format="json")
    assert first.status_code == 201
    assert first.json()["score"] == 3 and first.json()["created"] is True
    again = client.post(rating_url(world.assignment.pk), {"score": 0}, format="json")
    assert again.status_code == 200
    assert again.json()["score"] == 3 and again.json()["created"] is False
    assert Rating.objects.filter(assignment=world.assignment).count() == 1
    assert first.json()["progress"]["done"] == 1


def test_seconds_are_measured_by_the_server_and_only_shortened_by_the_client(world):
    Assignment.objects.filter(pk=world.assignment.pk).update(leased_at=timezone.now() - timedelta(seconds=20))
    response = world.client("rater").post(rating_url(world.assignment.pk), {"score": 2, "seconds": 9999}, format="json")
    assert 20 <= response.json()["seconds"] < 9999


def test_second_rater_gets_404_and_nothing_is_written(world):
    client = world.client("rater2")
    for url, body in (
        (rating_url(world.assignment.pk), {"score": 2}),
        (f"/api/rate/assignments/{world.assignment.pk}/flag/", {"note": "x"}),
    ):
        response = client.post(url, body, format="json")
        assert response.status_code == 404
        assert response.json() == {"detail": "No such assignment of yours.", "problems": []}
    missing = client.post(rating_url(987654), {"score": 2}, format="json")
    assert missing.json() == {"detail": "No such assignment of yours.", "problems": []}
    assert not Rating.objects.filter(assignment=world.assignment).exists()
    assert not ItemFlag.objects.exists()


def test_invalid_score_names_the_field(world):
    for body in ({"score": 4}, {"score": "two"}, {}, {"score": 1, "seconds": -3}):
        response = world.client("rater").post(rating_url(world.assignment.pk), body, format="json")
        assert response.status_code == 400
        assert response.json()["problems"][0]["field"] in {"score", "seconds"}
    assert not Rating.objects.filter(assignment=world.assignment).exists()


def test_409_when_the_rating_is_no_longer_needed(world):
    # The first rater's lease runs out and two others fill the item meanwhile.
    Assignment.objects.filter(pk=world.assignment.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    engine.expire_leases(world.campaign)
    item = Item.objects.get(pk=world.assignment.item_id)
    Item.objects.filter(pk=item.pk).update(active_count=item.needed, done_count=item.needed)
    response = world.client("rater").post(rating_url(world.assignment.pk), {"score": 2}, format="json")
    assert response.status_code == 409
    assert "already has its 2 ratings" in response.json()["detail"]
    assert not Rating.objects.filter(assignment=world.assignment).exists()


def test_409_when_excluded_or_closed(world):
    engine.exclude_rater(world.campaign, world.rater(), by=world.users["organizer"])
    excluded = world.client("rater").post(rating_url(world.assignment.pk), {"score": 2}, format="json")
    assert excluded.status_code == 409 and "no longer part" in excluded.json()["detail"]
    other = engine.next_assignment(world.campaign, world.rater("rater2"))
    Campaign.objects.filter(pk=world.campaign.pk).update(status=Campaign.Status.CLOSED)
    closed = world.client("rater2").post(rating_url(other.pk), {"score": 2}, format="json")
    assert closed.status_code == 409 and "closed" in closed.json()["detail"]


def test_next_when_nothing_is_left(world):
    client = world.client("rater")
    done = 0
    while True:
        body = client.post(f"/api/rate/campaigns/{world.campaign.pk}/next/").json()
        if body["assignment_id"] is None:
            break
        assert client.post(rating_url(body["assignment_id"]), {"score": 1}, format="json").status_code == 201
        done += 1
    assert done == 3  # the three open items of instance 4
    assert body["progress"] == {"done": 3, "total": 3, "finished": True}
    assert client.get(f"/api/rate/campaigns/{world.campaign.pk}/current/").status_code == 404


def test_flag_releases_the_item_and_the_organizer_sees_it(world):
    client = world.client("rater")
    response = client.post(f"/api/rate/assignments/{world.assignment.pk}/flag/", {"note": "cut off"}, format="json")
    assert response.status_code == 201 and response.json()["released"] is True
    assert client.get(f"/api/rate/campaigns/{world.campaign.pk}/current/").status_code == 404
    flags = world.client("organizer").get(f"/api/campaigns/{world.campaign.pk}/flags/").json()["results"]
    [entry] = flags
    assert {key: entry[key] for key in ("item", "instance_id", "kind", "flags", "notes", "open", "systems")} == {
        "item": world.assignment.item_id,
        "instance_id": "4",
        "kind": "system",
        "flags": 1,
        "notes": ["cut off"],
        "open": True,
        "systems": None,
    }
    assert [(report["rater"], report["status"]) for report in entry["reports"]] == [("api-rater1", "open")]


def test_rater_campaigns_leave_out_excluded_ones(world):
    client = world.client("rater")
    assert [c["name"] for c in client.get("/api/rate/campaigns/").json()["results"]] == ["pilot"]
    engine.exclude_rater(world.campaign, world.rater())
    assert client.get("/api/rate/campaigns/").json()["results"] == []


def test_closed_campaign_is_404_for_raters(world):
    Campaign.objects.filter(pk=world.campaign.pk).update(status=Campaign.Status.CLOSED)
    assert world.client("rater").post(f"/api/rate/campaigns/{world.campaign.pk}/next/").status_code == 404
