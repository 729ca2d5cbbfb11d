"""The rater screens through Django's test client: flow, roles, blindness, no state change on GET."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotators.seconds import measured_seconds
from core import engine
from core.models import Assignment, Campaign, Item, ItemFlag, Rater, Rating
from tests.screens.conftest import SYSTEM_NAMES

# On both databases: the engine runs some statements differently on PostgreSQL (core.rating_sql).
pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


ORGANIZER_PAGES = ("quality", "quality_download", "thresholds", "exclude", "crowd", "crowd_sessions_download")


def url(name, campaign=None, **kwargs):
    """A rater screen, or one of the organizer's campaign pages (quality, exclusion, crowd)."""
    if campaign is not None:
        kwargs["campaign_id"] = campaign.pk
    namespace = "campaigns" if name in ORGANIZER_PAGES else "annotators"
    return reverse(f"{namespace}:{name}", kwargs=kwargs)


def rater_of(user):
    return Rater.objects.get(user=user)


def state(campaign):
    """Everything a rater screen could change."""
    return (
        sorted(Assignment.objects.filter(campaign=campaign).values_list("pk", "status", "lease_expires_at")),
        sorted(Rating.objects.filter(campaign=campaign).values_list("pk", "score")),
        ItemFlag.objects.count(),
        sorted(Item.objects.filter(campaign=campaign).values_list("pk", "active_count", "done_count")),
    )


def shown_assignment(response):
    match = re.search(r'name="assignment" value="(\d+)"', response.content.decode())
    assert match, "the item page carries the assignment id"
    return int(match.group(1))


def start(client, campaign):
    response = client.post(url("next", campaign))
    assert response.status_code == 302 and response["Location"] == url("item", campaign)
    return client.get(url("item", campaign))


RATER_PAGES = ("campaigns", "instructions", "item", "done")


@pytest.mark.parametrize("name", RATER_PAGES)
def test_anonymous_is_sent_to_login(client, campaign, name):
    response = client.get(url(name, None if name == "campaigns" else campaign))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", RATER_PAGES)
def test_account_without_rater_profile_is_refused(client, campaign, organizer, name):
    client.force_login(organizer)
    assert client.get(url(name, None if name == "campaigns" else campaign)).status_code == 403


def test_campaign_list_shows_own_progress_and_hides_closed_and_excluded(rater_client, rater_user, campaign):
    closed = Campaign.objects.create(name="Closed one", dataset=campaign.dataset, status=Campaign.Status.CLOSED)
    page = rater_client.get(url("campaigns")).content.decode()
    total = Item.objects.filter(campaign=campaign).count()
    assert campaign.name in page and f"0 of {total} rated" in page
    assert closed.name not in page
    engine.exclude_rater(campaign, rater_of(rater_user))
    assert campaign.name not in rater_client.get(url("campaigns")).content.decode()


def test_instructions_show_rubric_and_worked_examples(rater_client, campaign):
    page = rater_client.get(url("instructions", campaign)).content.decode()
    for entry in campaign.rubric:
        assert entry["label"] in page
    assert "He put an elephant into the fridge." in page
    assert "An elephant is much bigger than a fridge." in page
    assert 'action="{}"'.format(url("next", campaign)) in page and "Start rating" in page


def test_get_never_changes_state(rater_client, campaign):
    before = state(campaign)
    for name in RATER_PAGES:
        rater_client.get(url(name, None if name == "campaigns" else campaign))
    assert state(campaign) == before
    start(rater_client, campaign)
    leased = state(campaign)
    for name in RATER_PAGES:
        rater_client.get(url(name, None if name == "campaigns" else campaign))
    assert state(campaign) == leased


def test_state_changing_urls_refuse_get(rater_client, campaign):
    assert rater_client.get(url("next", campaign)).status_code == 405
    assert rater_client.get(url("flag", campaign)).status_code == 405


def test_item_page_shows_statement_reason_rubric_and_progress(rater_client, campaign):
    page = start(rater_client, campaign).content.decode()
    assignment = Assignment.objects.get(pk=shown_assignment(start(rater_client, campaign)))
    assert assignment.item.instance.false_sent in page
    assert assignment.item.text in page
    total = Item.objects.filter(campaign=campaign).count()
    assert f"Item 1 of {total}" in page
    for score in range(4):
        assert f'id="score-{score}" value="{score}"' in page
    assert Assignment.objects.filter(campaign=campaign).count() == 1, "a reload resumes the same lease"


def test_submit_stores_rating_with_seconds_and_moves_on(rater_client, rater_user, campaign):
    first = shown_assignment(start(rater_client, campaign))
    response = rater_client.post(url("item", campaign), {"assignment": first, "score": "2"})
    assert response.status_code == 302 and response["Location"] == url("item", campaign)
    rating = Rating.objects.get(assignment_id=first)
    assert (rating.score, rating.rater, rating.source) == (2, rater_of(rater_user), Rating.Source.APP)
    assert rating.seconds is not None and rating.seconds >= 0
    page = rater_client.get(url("item", campaign))
    assert shown_assignment(page) != first
    assert "Saved: 2." in page.content.decode()


@pytest.mark.postgres
def test_double_submit_stores_one_rating(rater_client, campaign):
    first = shown_assignment(start(rater_client, campaign))
    rater_client.post(url("item", campaign), {"assignment": first, "score": "3"})
    rater_client.post(url("item", campaign), {"assignment": first, "score": "1"})
    assert list(Rating.objects.filter(campaign=campaign).values_list("score", flat=True)) == [3]
    assert Assignment.objects.filter(campaign=campaign).count() == 2


@pytest.mark.parametrize("score", ["", "4", "-1", "two", "1.5"])
def test_submit_without_a_valid_score_writes_nothing(rater_client, campaign, score):
    assignment = shown_assignment(start(rater_client, campaign))
    response = rater_client.post(url("item", campaign), {"assignment": assignment, "score": score}, follow=True)
    assert "Choose a score from 0 to 3" in response.content.decode()
    assert not Rating.objects.exists()
    assert shown_assignment(response) == assignment


def test_another_raters_assignment_is_404_and_nothing_written(rater_client, client, other_rater_user, campaign):
    from django.test import Client

    other = Client()
    other.force_login(other_rater_user)
    theirs = shown_assignment(start(other, campaign))
    start(rater_client, campaign)
    before = state(campaign)
    assert rater_client.post(url("item", campaign), {"assignment": theirs, "score": "0"}).status_code == 404
    assert rater_client.post(url("flag", campaign), {"assignment": theirs, "note": "x"}).status_code == 404
    assert rater_client.post(url("item", campaign), {"assignment": "nonsense", "score": "0"}).status_code == 404
    assert state(campaign) == before


def test_assignment_of_another_campaign_is_404(rater_client, campaign):
    from tests.screens.conftest import make_campaign

    second = make_campaign(name="Second")
    mine = shown_assignment(start(rater_client, second))
    start(rater_client, campaign)
    assert rater_client.post(url("item", campaign), {"assignment": mine, "score": "1"}).status_code == 404
    assert not Rating.objects.exists()


def test_refused_late_submission_says_why(rater_client, campaign):
    assignment = Assignment.objects.get(pk=shown_assignment(start(rater_client, campaign)))
    engine.exclude_rater(campaign, assignment.rater)
    response = rater_client.post(url("item", campaign), {"assignment": assignment.pk, "score": "1"}, follow=True)
    assert "no longer part of this campaign" in response.content.decode()
    assert not Rating.objects.exists()


@pytest.mark.postgres
def test_flag_records_report_and_skips_the_item_for_good(rater_client, rater_user, campaign):
    flagged = Assignment.objects.get(pk=shown_assignment(start(rater_client, campaign)))
    response = rater_client.post(url("flag", campaign), {"assignment": flagged.pk, "note": "  empty reason  "})
    assert response.status_code == 302 and response["Location"] == url("item", campaign)
    flag = ItemFlag.objects.get()
    assert (flag.item_id, flag.rater, flag.note) == (flagged.item_id, rater_of(rater_user), "empty reason")
    flagged.refresh_from_db()
    assert flagged.status == Assignment.Status.EXPIRED
    item = Item.objects.get(pk=flagged.item_id)
    assert (item.active_count, item.done_count) == (0, 0), "the slot went back to the pool"
    seen = {flagged.item_id}
    while True:
        page = rater_client.get(url("item", campaign))
        if page.status_code != 200:
            break
        current = Assignment.objects.get(pk=shown_assignment(page))
        assert current.item_id not in seen
        seen.add(current.item_id)
        rater_client.post(url("item", campaign), {"assignment": current.pk, "score": "1"})
    assert not Rating.objects.filter(item_id=flagged.item_id).exists()
    assert Rating.objects.count() == Item.objects.filter(campaign=campaign).count() - 1


@pytest.mark.postgres
def test_flagged_item_goes_to_another_rater(rater_client, other_rater_user, campaign):
    from django.test import Client

    campaign.raters_per_item = 1
    campaign.save()
    Item.objects.filter(campaign=campaign).update(needed=1)
    flagged = Assignment.objects.get(pk=shown_assignment(start(rater_client, campaign)))
    rater_client.post(url("flag", campaign), {"assignment": flagged.pk})
    other = Client()
    other.force_login(other_rater_user)
    offered = set()
    page = start(other, campaign)
    while page.status_code == 200:
        current = Assignment.objects.get(pk=shown_assignment(page))
        offered.add(current.item_id)
        other.post(url("item", campaign), {"assignment": current.pk, "score": "2"})
        page = other.get(url("item", campaign))
    assert flagged.item_id in offered


def test_rating_everything_reaches_the_completion_page_with_code(rater_client, campaign):
    campaign.completion_code = "C0MPL3TE"
    campaign.save()
    page = start(rater_client, campaign)
    total = Item.objects.filter(campaign=campaign).count()
    for position in range(1, total + 1):
        assert f"Item {position} of {total}" in page.content.decode()
        response = rater_client.post(url("item", campaign), {"assignment": shown_assignment(page), "score": "3"})
        page = rater_client.get(response["Location"])
        if response["Location"] == url("done", campaign):
            break
    assert position == total
    assert "Thank you!" in page.content.decode() and "C0MPL3TE" in page.content.decode()
    # A later visit to the item page goes to the completion page, never a blank item.
    assert rater_client.get(url("item", campaign))["Location"] == url("done", campaign)


def test_completion_page_when_nothing_is_left_now(rater_client, other_rater_user, campaign):
    campaign.completion_code = "C0MPL3TE"
    campaign.save()
    Item.objects.filter(campaign=campaign).update(active_count=2)  # every slot held by others
    response = rater_client.post(url("next", campaign))
    assert response["Location"] == url("done", campaign)
    page = rater_client.get(url("done", campaign)).content.decode()
    assert "No item for you right now" in page and "C0MPL3TE" not in page


def test_closed_campaign_screens_are_404_but_completion_page_stays(rater_client, campaign):
    campaign.status = Campaign.Status.CLOSED
    campaign.save()
    assert rater_client.get(url("instructions", campaign)).status_code == 404
    assert rater_client.get(url("item", campaign)).status_code == 404
    assert "This campaign is closed" in rater_client.get(url("done", campaign)).content.decode()


def test_no_rater_page_ever_names_a_system_or_shows_others_scores(rater_client, other_rater_user, campaign):
    from django.test import Client

    other = Client()
    other.force_login(other_rater_user)
    page = start(other, campaign)
    other.post(url("item", campaign), {"assignment": shown_assignment(page), "score": "3"})
    pages = [rater_client.get(url("campaigns")), rater_client.get(url("instructions", campaign))]
    page = start(rater_client, campaign)
    while True:
        pages.append(page)
        response = rater_client.post(url("item", campaign), {"assignment": shown_assignment(page), "score": "0"})
        page = rater_client.get(response["Location"])
        if response["Location"] != url("item", campaign):
            break
    pages.append(page)
    assert "Thank you!" in page.content.decode()
    for response in pages:
        text = response.content.decode()
        for name in SYSTEM_NAMES:
            assert name not in text
        assert "Human" not in text
        assert not re.search(r"item[ _-]?id|data-item", text, re.IGNORECASE)


def test_measured_seconds_keeps_the_lower_script_figure():
    class Leased:
        leased_at = timezone.now()

    now = Leased.leased_at + timedelta(seconds=40)
    assert measured_seconds(Leased, now, None) == 40
    assert measured_seconds(Leased, now, "12.5") == 12.5
    assert measured_seconds(Leased, now, "95") == 40, "the script can shorten, never lengthen"
    for bad in ("-3", "nan", "inf", "soon", ""):
        assert measured_seconds(Leased, now, bad) == 40


def test_posted_script_seconds_are_stored(rater_client, campaign):
    assignment = shown_assignment(start(rater_client, campaign))
    Assignment.objects.filter(pk=assignment).update(leased_at=timezone.now() - timedelta(seconds=60))
    rater_client.post(url("item", campaign), {"assignment": assignment, "score": "1", "seconds": "7.5"})
    assert Rating.objects.get().seconds == 7.5
