"""The crowd-platform rules both sides apply: which ratings belong to a session, which code a worker is owed.

A worker's crowd session (an MTurk assignment, a Prolific study session) owns the leases it took
(``Assignment.crowd_session``), so its ratings are its own. A worker is *screened out* when an
organizer excluded them, or when they fall below the campaign's ``min_control_pass_rate`` on at
least ``quality.MIN_CONTROL_RATINGS`` control ratings (the rule that flags a rater on the quality
page); a screened-out worker gets the campaign's screening code, everyone else its completion code.
"""

import secrets

from core import quality
from core.models import Rater, RaterExclusion

MTURK = Rater.Platform.MTURK
PROLIFIC = Rater.Platform.PROLIFIC
CROWD_PLATFORMS = (MTURK, PROLIFIC)


def entry_enabled(campaign, platform):
    """Whether the organizer opened the campaign to workers of ``platform``."""
    return {MTURK: campaign.mturk_enabled, PROLIFIC: campaign.prolific_enabled}.get(platform, False)


def entry_allowed(campaign, platform, key):
    """The platform is enabled for the campaign and ``key`` is its crowd key (compared in constant time)."""
    return entry_enabled(campaign, platform) and secrets.compare_digest(str(key).encode(), campaign.crowd_key.encode())


def is_screened_out(campaign, rater):
    """Excluded, or below the control threshold on enough control ratings (module docstring)."""
    if RaterExclusion.objects.filter(campaign=campaign, rater=rater).exists():
        return True
    controls, passed = quality.control_figures(campaign, rater)
    return bool(controls) and quality.fails_controls(controls, passed / controls, campaign.min_control_pass_rate)


def code_for(campaign, screened_out):
    return campaign.screening_code if screened_out and campaign.screening_code else campaign.completion_code
