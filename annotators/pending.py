"""A rater's unsaved choice, kept when a session or CSRF token expires before it is saved (protocol.md#rater-screen).

The choice travels in a signed cookie, so it survives a lost session and a new login. It is
only ever used to pre-select the choice (or pre-fill the flag note) on the rater's own item:
nothing is saved until the rater submits again, so a forged cross-site request can at most
pre-select a radio button the rater then sees.
"""

from dataclasses import dataclass, replace

from annotators import signed_cookie
from core.defaults import COOKIE_VALUE_MAX_BYTES, PENDING_CHOICE_MAX_AGE_SECONDS, SCORE_MAX, SCORE_MIN
from core.flags import MAX_NOTE_CHARS

COOKIE_NAME = "comve_pending_choice"
COOKIE_SALT = "annotators.pending-choice"

CSRF_EXPIRED = "csrf"
SESSION_EXPIRED = "session"
# The reason was shown once; the choice is still kept but the banner not repeated (``explained``).
EXPLAINED = ""
EXPLANATIONS = {
    CSRF_EXPIRED: "The page's security token had expired (the page was open a long time, or you "
    "logged in again in another tab), so nothing was saved yet.",
    SESSION_EXPIRED: "Your session had expired, so nothing was saved yet.",
}


@dataclass(frozen=True)
class PendingChoice:
    """What the rater posted: a score for an assignment, or a flag note (``flag`` true)."""

    campaign_id: int
    assignment_id: int
    score: int | None
    why: str
    flag: bool = False
    note: str = ""

    @property
    def explanation(self):
        if self.why == EXPLAINED:
            return ""
        return EXPLANATIONS.get(self.why, EXPLANATIONS[CSRF_EXPIRED])

    def explained(self):
        """The same choice, its reason already told: a reload shows the choice without the stale banner."""
        return replace(self, why=EXPLAINED)


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def parse_score(value):
    """The posted score as an int in 0-3, or None."""
    score = _int(value)
    return score if score is not None and SCORE_MIN <= score <= SCORE_MAX else None


def from_post(post, campaign_id, why, flag=False):
    """The choice in a POST to the item or flag form, or None when there is nothing to keep."""
    assignment_id = _int(post.get("assignment"))
    if assignment_id is None:
        return None
    score = None if flag else parse_score(post.get("score"))
    note = post.get("note", "")[:MAX_NOTE_CHARS] if flag else ""
    if score is None and not flag:
        return None
    return PendingChoice(campaign_id, assignment_id, score, why, flag, note)


def remember(response, choice):
    value = signed_cookie.signed(choice, COOKIE_SALT)
    while len(value) > COOKIE_VALUE_MAX_BYTES and choice.note:
        choice = replace(choice, note=choice.note[: len(choice.note) // 2])
        value = signed_cookie.signed(choice, COOKIE_SALT)
    return signed_cookie.store(response, COOKIE_NAME, value, PENDING_CHOICE_MAX_AGE_SECONDS)


def recall(request, campaign_id):
    """The pending choice for this campaign, or None (also when the cookie is forged or too old)."""
    return signed_cookie.recall(
        request, COOKIE_NAME, COOKIE_SALT, PENDING_CHOICE_MAX_AGE_SECONDS, PendingChoice, campaign_id
    )


def forget(response):
    return signed_cookie.forget(response, COOKIE_NAME)
