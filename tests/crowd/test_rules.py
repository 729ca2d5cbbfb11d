"""The crowd service's rules, below the web layer: screening, completion links, session counts."""

import pytest

from annotators import crowd
from core import engine, quality
from core.models import Rater
from evalapp.services.crowd import session_reviews
from tests.crowd.conftest import mturk_params
from tests.crowd.helpers import score_for

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

PROLIFIC = "https://app.prolific.com/submissions/complete"


@pytest.mark.parametrize(
    "url, code, expected",
    [
        (f"{PROLIFIC}", "ABC123", f"{PROLIFIC}?cc=ABC123"),
        (f"{PROLIFIC}?cc=OLD", "NEW", f"{PROLIFIC}?cc=NEW"),
        ("https://example.org/done?study=7&cc=OLD#top", "X-1", "https://example.org/done?study=7&cc=X-1#top"),
        ("https://example.org/done", "", "https://example.org/done"),
    ],
)
def test_completion_link(url, code, expected):
    assert crowd.completion_link(url, code) == expected


@pytest.mark.parametrize(
    "controls, rate, threshold, fails",
    [
        (3, 0.0, 0.7, True),
        (2, 0.0, 0.7, False),
        (3, 2 / 3, 0.7, True),
        (3, 2 / 3, 0.6, False),
        (5, 0.7, 0.7, False),
    ],
)
def test_fails_controls_needs_enough_control_ratings(controls, rate, threshold, fails):
    assert quality.fails_controls(controls, rate, threshold) is fails


def rate_until_controls(campaign, rater, controls, pass_controls):
    """Rate through the engine until ``controls`` control items are rated."""
    seen = 0
    while seen < controls:
        assignment = engine.next_assignment(campaign, rater)
        seen += assignment.item.is_control
        engine.submit_rating(assignment.pk, rater, score_for(assignment.pk, pass_controls))


def test_one_failed_control_is_too_little_to_screen_out(campaign):
    rater = crowd.crowd_rater(crowd.PROLIFIC, "5f0c0ffee0c0ffee0c0ffee0")
    rate_until_controls(campaign, rater, 1, pass_controls=False)
    assert quality.control_figures(campaign, rater) == (1, 0)
    assert not crowd.is_screened_out(campaign, rater)
    rate_until_controls(campaign, rater, 2, pass_controls=False)
    assert quality.control_figures(campaign, rater) == (3, 0)
    assert crowd.is_screened_out(campaign, rater)


def test_each_session_owns_its_leases_and_its_ratings(campaign):
    visits = [
        crowd.visit_from(crowd.MTURK, mturk_params(assignment=f"3ASSIGNMENT{n}", hit=f"3HIT{n}")) for n in range(3)
    ]
    first = crowd.start_session(campaign, visits[0])
    rater = first.rater
    for _ in range(2):
        engine.submit_rating(
            engine.next_assignment(campaign, rater, crowd_session_id=first.pk).pk, rater, 2, crowd_session_id=first.pk
        )
    held_by_first = engine.next_assignment(campaign, rater, crowd_session_id=first.pk)
    second = crowd.start_session(campaign, visits[1])
    third = crowd.start_session(campaign, visits[2])
    assert engine.live_lease(campaign, rater, crowd_session_id=second.pk) is None, "not the first session's item"
    # One live lease per rater per campaign (issue 18): the third session waits for the first's item.
    assert engine.next_assignment(campaign, rater, crowd_session_id=third.pk) is None
    with pytest.raises(engine.SubmissionRefused):
        engine.submit_rating(held_by_first.pk, rater, 3, crowd_session_id=third.pk)
    engine.submit_rating(held_by_first.pk, rater, 2, crowd_session_id=first.pk)
    for _ in range(3):
        assignment = engine.next_assignment(campaign, rater, crowd_session_id=third.pk)
        assert assignment.pk != held_by_first.pk
        engine.submit_rating(assignment.pk, rater, 2, crowd_session_id=third.pk)
    assert [s.rating_count() for s in (first, second, third)] == [3, 0, 3]
    reviews = {review.session_id: review.ratings for review in session_reviews(campaign)}
    assert reviews == {"3ASSIGNMENT0": 3, "3ASSIGNMENT1": 0, "3ASSIGNMENT2": 3}
    assert Rater.objects.count() == 1


def test_crowd_accounts_are_password_less_and_distinct(campaign, django_user_model):
    django_user_model.objects.create_user(username="mturk-A1WORKERTEST", password="taken-by-someone")
    rater = crowd.crowd_rater(crowd.MTURK, "A1WORKERTEST")
    assert rater.user.username.startswith("mturk-A1WORKERTEST-")
    assert crowd.is_crowd_account(rater.user)
    assert crowd.crowd_rater(crowd.MTURK, "A1WORKERTEST") == rater
