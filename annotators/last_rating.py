"""The rater's last saved score, remembered in a signed cookie so the next item's page can offer to
change it (:mod:`core.corrections`) without a database query.

The cookie only decides whether the page shows the "change your last score" buttons; the
correction itself is checked again by ``core.corrections`` under the rater's lock (their own
rating, still their last, within the window), so a forged or replayed cookie can change nothing.
"""

from dataclasses import asdict, dataclass

from django.conf import settings
from django.core import signing

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
    response.set_cookie(
        COOKIE_NAME,
        signing.dumps(asdict(last), salt=COOKIE_SALT),
        max_age=CORRECTION_WINDOW_SECONDS,
        httponly=True,
        samesite=settings.SESSION_COOKIE_SAMESITE,
        secure=settings.SESSION_COOKIE_SECURE,
    )
    return response


def recall(request, campaign_id):
    """The last saved score in this campaign while it may still be changed, or None."""
    try:
        last = LastRating(
            **signing.loads(request.COOKIES[COOKIE_NAME], salt=COOKIE_SALT, max_age=CORRECTION_WINDOW_SECONDS)
        )
    except (KeyError, signing.BadSignature, ValueError, TypeError):
        return None
    return last if last.campaign_id == campaign_id else None


def forget(response):
    response.delete_cookie(COOKIE_NAME, samesite=settings.SESSION_COOKIE_SAMESITE)
    return response
