"""The rater's last saved score, remembered in a signed cookie so the next item's page can offer to
change it (:mod:`core.corrections`) without a database query.

The cookie only decides whether the page shows the "change your last score" buttons; the
correction itself is checked again by ``core.corrections`` under the rater's lock (their own
rating, still their last, within the window), so a forged or replayed cookie can change nothing.
"""

from dataclasses import dataclass

from annotators import signed_cookie
from core.defaults import CORRECTION_WINDOW_SECONDS

COOKIE_NAME = "comve_last_rating"
COOKIE_SALT = "annotators.last-rating"


@dataclass(frozen=True)
class LastRating:
    """The campaign, the assignment whose rating was saved, and its score."""

    campaign_id: int
    assignment_id: int
    score: int


def remember(response, last):
    # Expires with the correction window: after it the buttons would only say "too late".
    return signed_cookie.store(
        response, COOKIE_NAME, signed_cookie.signed(last, COOKIE_SALT), CORRECTION_WINDOW_SECONDS
    )


def recall(request, campaign_id):
    """The last saved score in this campaign while it may still be changed, or None."""
    return signed_cookie.recall(request, COOKIE_NAME, COOKIE_SALT, CORRECTION_WINDOW_SECONDS, LastRating, campaign_id)


def forget(response):
    return signed_cookie.forget(response, COOKIE_NAME)
