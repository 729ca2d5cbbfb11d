"""Issue 12, flaws 3, 4 and 5: every rater write makes the same checks, NUL bytes are refused with
a 400 naming the field on both databases, and a repeated submit tells the stored score.

Before: an excluded rater, or anyone in a closed campaign, could still flag (HTML and API); a
rater could rate an item after flagging it; a NUL byte in a flag note or an exclusion reason gave
500 on PostgreSQL; a repeated submit said "Saved: <the new score>" while the first one stayed.
"""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from core import engine
from core.models import Assignment, Campaign, ItemFlag, RaterExclusion, Rating
from tests.screens.conftest import make_campaign

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

FLAG_PAGE = "/rate/{c}/flag/"
ITEM_PAGE = "/rate/{c}/item/"


@pytest.fixture
def lab(db):
    return make_campaign(name="Writes")


@pytest.fixture
def leased(lab, rater_user):
    """The rater's live assignment."""
    return engine.next_assignment(lab, rater_user.rater)


def web(user, client):
    client.force_login(user)
    return client


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def flag_web(client, campaign, assignment, note="broken"):
    return client.post(FLAG_PAGE.format(c=campaign.pk), {"assignment": assignment.pk, "note": note}, follow=True)


def flag_api(user, assignment, note="broken"):
    return api(user).post(f"/api/rate/assignments/{assignment.pk}/flag/", {"note": note}, format="json")


def close(campaign):
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.CLOSED)


def test_no_flag_in_a_closed_campaign(client, lab, leased, rater_user):
    close(lab)
    assert flag_web(web(rater_user, client), lab, leased).status_code == 404
    response = flag_api(rater_user, leased)
    assert response.status_code == 409 and "closed" in response.json()["detail"]
    assert not ItemFlag.objects.exists()


def test_no_flag_from_an_excluded_rater(client, lab, leased, rater_user, organizer):
    engine.exclude_rater(lab, rater_user.rater, by=organizer)
    page = flag_web(web(rater_user, client), lab, leased).content.decode()
    assert "no longer part of this campaign" in page
    response = flag_api(rater_user, leased)
    assert response.status_code in (404, 409)
    assert not ItemFlag.objects.exists()


def test_no_flag_on_an_expired_lease(client, lab, leased, rater_user):
    Assignment.objects.filter(pk=leased.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    page = flag_web(web(rater_user, client), lab, leased).content.decode()
    assert "no longer yours to report" in page
    assert flag_api(rater_user, leased).status_code == 409
    assert not ItemFlag.objects.exists()


def test_a_flagged_item_cannot_be_rated_by_the_rater_who_flagged_it(client, lab, leased, rater_user):
    assert flag_api(rater_user, leased).status_code == 201
    response = api(rater_user).post(f"/api/rate/assignments/{leased.pk}/rating/", {"score": 3}, format="json")
    assert response.status_code == 409
    web(rater_user, client).post(ITEM_PAGE.format(c=lab.pk), {"assignment": leased.pk, "score": "3"})
    with pytest.raises(engine.SubmissionRefused) as refused:
        engine.submit_rating(leased.pk, rater_user.rater, 3)
    assert refused.value.code in (engine.SubmissionRefused.FLAGGED, engine.SubmissionRefused.NOT_NEEDED)
    assert not Rating.objects.filter(assignment=leased).exists()


def test_a_repeated_submit_tells_the_stored_score(client, lab, leased, rater_user):
    client = web(rater_user, client)
    first = client.post(ITEM_PAGE.format(c=lab.pk), {"assignment": leased.pk, "score": "2"}, follow=True)
    assert "Saved: 2." in first.content.decode()
    again = client.post(ITEM_PAGE.format(c=lab.pk), {"assignment": leased.pk, "score": "0"}, follow=True)
    page = again.content.decode()
    assert "Already saved: 2." in page and "Saved: 0" not in page
    response = api(rater_user).post(f"/api/rate/assignments/{leased.pk}/rating/", {"score": 1}, format="json")
    assert response.status_code == 200 and response.json()["score"] == 2 and response.json()["created"] is False
    assert Rating.objects.get(assignment=leased).score == 2


def test_a_nul_byte_in_a_flag_note_is_a_400_naming_the_field(client, lab, leased, rater_user):
    response = web(rater_user, client).post(FLAG_PAGE.format(c=lab.pk), {"assignment": leased.pk, "note": "a\x00b"})
    assert response.status_code == 400 and "'note'" in response.content.decode()
    response = flag_api(rater_user, leased, note="a\x00b")
    assert response.status_code == 400
    assert [problem["field"] for problem in response.json()["problems"]] == ["note"]
    assert not ItemFlag.objects.exists()


def test_a_nul_byte_in_an_exclusion_reason_is_a_400_naming_the_field(client, lab, leased, rater_user, organizer):
    engine.submit_rating(leased.pk, rater_user.rater, 2)
    rater = rater_user.rater
    response = web(organizer, client).post(f"/campaigns/{lab.pk}/exclude/{rater.pk}/", {"reason": "x\x00"})
    assert response.status_code == 400 and "'reason'" in response.content.decode()
    response = api(organizer).post(
        f"/api/campaigns/{lab.pk}/raters/{rater.pk}/exclusion/", {"reason": "x\x00"}, format="json"
    )
    assert response.status_code == 400
    assert [problem["field"] for problem in response.json()["problems"]] == ["reason"]
    assert not RaterExclusion.objects.exists()
