"""CSRF is on, and a stale token or an expired session never loses the rater's choice (protocol.md#rater-screen)."""

import pytest
from django.test import Client
from django.urls import reverse

from annotators import pending
from core.flags import MAX_NOTE_CHARS
from core.models import Assignment, ItemFlag, Rating
from tests.screens.test_rating_views import shown_assignment, state, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def csrf_client(rater_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(rater_user)
    return client


def csrf_token(client, campaign):
    client.get(url("instructions", campaign))
    return client.cookies["csrftoken"].value


def leased_item(client, campaign):
    client.post(url("next", campaign), {"csrfmiddlewaretoken": csrf_token(client, campaign)})
    return shown_assignment(client.get(url("item", campaign)))


def test_post_without_token_is_refused_and_writes_nothing(csrf_client, campaign):
    assignment = leased_item(csrf_client, campaign)
    before = state(campaign)
    response = csrf_client.post(url("item", campaign), {"assignment": assignment, "score": "2"})
    assert response.status_code == 302 and response["Location"] == url("item", campaign)
    assert state(campaign) == before
    assert csrf_client.post(url("next", campaign)).status_code == 403
    assert csrf_client.post(url("flag", campaign), {"note": "x"}).status_code == 403
    assert state(campaign) == before


def test_stale_token_keeps_the_choice_preselected_until_submitted(csrf_client, campaign):
    assignment = leased_item(csrf_client, campaign)
    response = csrf_client.post(
        url("item", campaign), {"assignment": assignment, "score": "2", "csrfmiddlewaretoken": "x" * 64}
    )
    assert response["Location"] == url("item", campaign)
    assert not Rating.objects.exists()

    for reload in range(3):  # the choice survives reloads; the reason is told once (issue 20: no stale banner)
        page = csrf_client.get(url("item", campaign)).content.decode()
        assert shown_assignment(csrf_client.get(url("item", campaign))) == assignment
        assert ("security token had expired" in page) == (reload == 0)
        assert 'id="score-2" value="2" required checked' in page
        assert 'id="score-1" value="1" required>' in page

    csrf_client.post(
        url("item", campaign),
        {"assignment": assignment, "score": "2", "csrfmiddlewaretoken": csrf_token(csrf_client, campaign)},
    )
    assert Rating.objects.get().score == 2
    page = csrf_client.get(url("item", campaign)).content.decode()
    assert "security token had expired" not in page and " checked" not in page


def test_stale_token_on_the_flag_form_keeps_the_note(csrf_client, campaign):
    assignment = leased_item(csrf_client, campaign)
    csrf_client.post(url("flag", campaign), {"assignment": assignment, "note": "The reason is cut off"})
    assert not ItemFlag.objects.exists()
    page = csrf_client.get(url("item", campaign)).content.decode()
    assert "The reason is cut off</textarea>" in page and '<details class="flag-box" open>' in page


def test_other_forms_and_foreign_origins_get_the_plain_403(csrf_client, campaign):
    assignment = leased_item(csrf_client, campaign)
    assert csrf_client.post(reverse("logout")).status_code == 403
    foreign = csrf_client.post(
        url("item", campaign), {"assignment": assignment, "score": "2"}, headers={"Origin": "https://evil.example"}
    )
    assert foreign.status_code == 403
    assert pending.COOKIE_NAME not in foreign.cookies


def test_expired_session_keeps_the_choice_through_login(client, rater_user, campaign):
    client.force_login(rater_user)
    client.post(url("next", campaign))
    assignment = shown_assignment(client.get(url("item", campaign)))
    client.logout()  # the session is gone; the page is still open in the browser

    response = client.post(url("item", campaign), {"assignment": assignment, "score": "0"})
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={url('item', campaign)}"
    assert not Rating.objects.exists()

    login = client.post(
        reverse("login"), {"username": "rater1", "password": "pw-rater1", "next": url("item", campaign)}
    )
    assert login["Location"] == url("item", campaign)
    page = client.get(url("item", campaign)).content.decode()
    assert "Your session had expired" in page
    assert 'id="score-0" value="0" required checked' in page
    reloaded = client.get(url("item", campaign)).content.decode()  # issue 20: no stale banner after the first page
    assert "Your session had expired" not in reloaded and 'id="score-0" value="0" required checked' in reloaded
    client.post(url("item", campaign), {"assignment": assignment, "score": "0"})
    assert Rating.objects.get().score == 0


def test_choice_kept_for_an_expired_lease_is_still_offered(rater_client, campaign):
    """The lease ran out while the rater was logged out: the item comes back with the choice."""
    from django.utils import timezone

    rater_client.post(url("next", campaign))
    assignment = shown_assignment(rater_client.get(url("item", campaign)))
    Assignment.objects.filter(pk=assignment).update(lease_expires_at=timezone.now())
    choice = pending.PendingChoice(campaign.pk, assignment, 3, pending.SESSION_EXPIRED)
    response = pending.remember(rater_client.get(url("campaigns")), choice)
    rater_client.cookies.update(response.cookies)

    page = rater_client.get(url("item", campaign))
    assert shown_assignment(page) == assignment
    rater_client.post(url("item", campaign), {"assignment": assignment, "score": "3"})
    assert Rating.objects.get(assignment_id=assignment).score == 3


def test_a_kept_choice_for_someone_elses_assignment_is_ignored(rater_client, other_rater_user, campaign):
    other = Client()
    other.force_login(other_rater_user)
    other.post(url("next", campaign))
    theirs = shown_assignment(other.get(url("item", campaign)))
    forged = pending.PendingChoice(campaign.pk, theirs, 1, pending.CSRF_EXPIRED)
    rater_client.cookies.update(pending.remember(rater_client.get(url("campaigns")), forged).cookies)
    response = rater_client.get(url("item", campaign))
    assert response.status_code == 302 and response["Location"] == url("instructions", campaign)


def test_tampered_cookie_is_ignored(rater_client, campaign):
    rater_client.post(url("next", campaign))
    rater_client.cookies[pending.COOKIE_NAME] = '{"campaign_id": 1, "assignment_id": 1, "score": 3}:forged:sig'
    page = rater_client.get(url("item", campaign)).content.decode()
    assert "kept" not in page and " checked" not in page


@pytest.mark.parametrize("character", ["x", "é", "象", "\x7f", '"', "😀"])
def test_a_long_kept_note_still_fits_in_a_cookie(rf, character):
    from django.http import HttpResponse

    note = "".join(character if i % 3 else chr(0x4E00 + i) for i in range(MAX_NOTE_CHARS + 50))
    choice = pending.from_post({"assignment": "123456789", "note": note}, 987654, pending.CSRF_EXPIRED, flag=True)
    assert choice.note == note[:MAX_NOTE_CHARS]
    header = pending.remember(HttpResponse(), choice).cookies[pending.COOKIE_NAME].OutputString()
    assert len(header.encode("latin-1")) < 4096
    kept = pending.recall(rf.get("/", HTTP_COOKIE=header.split(";")[0]), 987654)
    assert kept.assignment_id == 123456789 and kept.flag
    assert kept.note and choice.note.startswith(kept.note)


def test_a_short_note_is_kept_whole(rf):
    from django.http import HttpResponse

    choice = pending.from_post(
        {"assignment": "5", "note": "Die Begründung fehlt. 理由がない"}, 3, pending.CSRF_EXPIRED, flag=True
    )
    header = pending.remember(HttpResponse(), choice).cookies[pending.COOKIE_NAME].OutputString()
    assert pending.recall(rf.get("/", HTTP_COOKIE=header.split(";")[0]), 3) == choice
