"""Undo of the last submission (core/corrections.py): the rater changes the score they have just
saved, from the next item's page or through the API, within CORRECTION_WINDOW_SECONDS and only
while it is their last rating; the rating keeps its row and a RatingCorrection records the change."""

import re
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from core import corrections, engine
from core.defaults import CORRECTION_WINDOW_SECONDS
from core.models import Assignment, Campaign, Item, Rater, Rating, RatingCorrection
from tests.screens.test_rating_views import shown_assignment, start, state, url

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def rater_of(user):
    return Rater.objects.get(user=user)


def rate(campaign, rater, score, now=None):
    """Lease and rate one item through the engine; the assignment id."""
    assignment = engine.next_assignment(campaign, rater, now=now)
    engine.submit_rating(assignment.pk, rater, score, seconds=3.0, now=now)
    return assignment.pk


def counts(campaign):
    """What a correction must never change: who rated what, and every item's counters."""
    return (
        sorted(Rating.objects.filter(campaign=campaign).values_list("pk", "item_id", "rater_id", "assignment_id")),
        sorted(Item.objects.filter(campaign=campaign).values_list("pk", "active_count", "done_count")),
        sorted(Assignment.objects.filter(campaign=campaign).values_list("pk", "status")),
    )


# --- the service -----------------------------------------------------------------------------


def test_the_last_score_changes_in_place_and_the_change_is_recorded(campaign, rater_user):
    rater = rater_of(rater_user)
    assignment_id = rate(campaign, rater, 2)
    before = counts(campaign)
    correction = corrections.correct_last_rating(assignment_id, rater, campaign, 3)
    assert correction == corrections.Correction(assignment_id, 2, 3, changed=True)
    assert Rating.objects.get(assignment_id=assignment_id).score == 3
    assert counts(campaign) == before  # same rows, same raters, same counters
    record = RatingCorrection.objects.get()
    assert (record.rating.assignment_id, record.old_score, record.new_score) == (assignment_id, 2, 3)
    # Correcting again is allowed within the window; the same score changes nothing.
    assert corrections.correct_last_rating(assignment_id, rater, campaign, 0).old_score == 3
    assert corrections.correct_last_rating(assignment_id, rater, campaign, 0).changed is False
    assert list(RatingCorrection.objects.order_by("pk").values_list("old_score", "new_score")) == [(2, 3), (3, 0)]


def test_only_the_last_rating_and_only_within_the_window(campaign, rater_user):
    rater = rater_of(rater_user)
    start_time = timezone.now()
    first = rate(campaign, rater, 1, now=start_time)
    second = rate(campaign, rater, 1, now=start_time + timedelta(seconds=1))
    with pytest.raises(corrections.CorrectionRefused) as refused:
        corrections.correct_last_rating(first, rater, campaign, 2, now=start_time + timedelta(seconds=2))
    assert refused.value.code == corrections.CorrectionRefused.NOT_LAST
    late = start_time + timedelta(seconds=1 + CORRECTION_WINDOW_SECONDS + 1)
    with pytest.raises(corrections.CorrectionRefused) as refused:
        corrections.correct_last_rating(second, rater, campaign, 2, now=late)
    assert refused.value.code == corrections.CorrectionRefused.TOO_LATE
    in_time = start_time + timedelta(seconds=1 + CORRECTION_WINDOW_SECONDS - 1)
    assert corrections.correct_last_rating(second, rater, campaign, 2, now=in_time).changed
    assert not RatingCorrection.objects.filter(rating__assignment_id=first).exists()


def test_refused_for_another_rater_a_closed_campaign_an_excluded_rater_and_a_bad_score(
    campaign, rater_user, other_rater_user
):
    rater, other = rater_of(rater_user), rater_of(other_rater_user)
    assignment_id = rate(campaign, rater, 1)
    cases = [
        (other, 2, corrections.CorrectionRefused.NOT_FOUND),
        (rater, 4, corrections.CorrectionRefused.INVALID),
        (rater, True, corrections.CorrectionRefused.INVALID),
    ]
    for who, score, code in cases:
        with pytest.raises(corrections.CorrectionRefused) as refused:
            corrections.correct_last_rating(assignment_id, who, campaign, score)
        assert refused.value.code == code
    held = engine.next_assignment(campaign, rater)
    with pytest.raises(corrections.CorrectionRefused) as refused:
        corrections.correct_last_rating(held.pk, rater, campaign, 2)
    assert refused.value.code == corrections.CorrectionRefused.NOT_RATED
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.CLOSED)
    with pytest.raises(corrections.CorrectionRefused) as refused:
        corrections.correct_last_rating(assignment_id, rater, campaign, 2)
    assert refused.value.code == corrections.CorrectionRefused.CLOSED
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.OPEN)
    engine.exclude_rater(campaign, rater)
    with pytest.raises(corrections.CorrectionRefused) as refused:
        corrections.correct_last_rating(assignment_id, rater, campaign, 2)
    assert refused.value.code == corrections.CorrectionRefused.EXCLUDED
    assert Rating.objects.get(assignment_id=assignment_id).score == 1
    assert not RatingCorrection.objects.exists()


def test_the_database_refuses_a_correction_that_changes_nothing_or_leaves_0_3(campaign, rater_user):
    rating = Rating.objects.get(assignment_id=rate(campaign, rater_of(rater_user), 1))
    for old, new in ((1, 1), (1, 4)):
        with pytest.raises(IntegrityError), transaction.atomic():
            RatingCorrection.objects.create(rating=rating, old_score=old, new_score=new, corrected_at=timezone.now())


# --- the web: the next item's page offers the change -----------------------------------------


def item_shown(response):
    """The assignment of the item on the page (the correction form names the previous one as ``previous``)."""
    page = response.content.decode()
    return int(re.search(r'name="assignment" value="(\d+)"', page).group(1))


def correction_buttons(page):
    return re.findall(r'<button type="submit" name="score" value="(\d)"[^>]*aria-label="Change your previous', page)


def test_the_next_item_offers_to_change_the_score_just_saved(rater_client, rater_user, campaign):
    first = shown_assignment(start(rater_client, campaign))
    response = rater_client.post(url("item", campaign), {"assignment": first, "score": 2}, follow=True)
    page = response.content.decode()
    assert "Saved: 2." in page and "Previous item: change 2 to" in page
    assert correction_buttons(page) == ["0", "1", "3"]
    current = item_shown(response)
    assert current != first
    assert f'name="previous" value="{first}"' in page  # the correction form names the previous assignment
    before = counts(campaign)
    changed = rater_client.post(url("correct", campaign), {"previous": first, "score": 3}, follow=True)
    page = changed.content.decode()
    assert "Your last score was changed from 2 to 3." in page
    assert Rating.objects.get(assignment_id=first).score == 3 and counts(campaign) == before
    assert item_shown(changed) == current and "Previous item: change 3 to" in page
    # The rater is still on the same item; once they submit it, the first score is final.
    rater_client.post(url("item", campaign), {"assignment": current, "score": 1})
    late = rater_client.post(url("correct", campaign), {"previous": first, "score": 0}, follow=True)
    assert "only your last score can be changed" in late.content.decode()
    assert Rating.objects.get(assignment_id=first).score == 3


def test_web_correction_of_someone_elses_rating_is_404_and_writes_nothing(
    client, rater_user, other_rater_user, campaign
):
    assignment_id = rate(campaign, rater_of(rater_user), 2)
    client.force_login(other_rater_user)
    before = state(campaign)
    assert client.post(url("correct", campaign), {"previous": assignment_id, "score": 0}).status_code == 404
    assert client.post(url("correct", campaign), {"previous": "x", "score": 0}).status_code == 404
    assert client.get(url("correct", campaign)).status_code == 405  # no change on GET
    assert state(campaign) == before and not RatingCorrection.objects.exists()


def test_web_correction_is_for_raters_and_needs_a_login(client, organizer, campaign, rater_user):
    assignment_id = rate(campaign, rater_of(rater_user), 2)
    response = client.post(url("correct", campaign), {"previous": assignment_id, "score": 0})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(organizer)
    assert client.post(url("correct", campaign), {"previous": assignment_id, "score": 0}).status_code == 403
    assert Rating.objects.get(assignment_id=assignment_id).score == 2
