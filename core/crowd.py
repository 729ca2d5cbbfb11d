"""The crowd-platform rules both sides apply: which ratings belong to a session, which code a worker is owed.

A worker's crowd session (an MTurk assignment, a Prolific study session) splits the worker's
assignments in a campaign by when the session started. A worker is *screened out* when an
organizer excluded them, or when they fall below the campaign's ``min_control_pass_rate`` on at
least ``quality.MIN_CONTROL_RATINGS`` control ratings (the rule that flags a rater on the quality
page); a screened-out worker gets the campaign's screening code, everyone else its completion code.
"""
from django.db.models import Q

from core import quality
from core.models import Assignment, CrowdSession, Rater, RaterExclusion

MTURK = Rater.Platform.MTURK
PROLIFIC = Rater.Platform.PROLIFIC
CROWD_PLATFORMS = (MTURK, PROLIFIC)


def session_ratings(crowd_session):
    """Ratings the worker made in this session: assignments after its start, before the next one's."""
    later = CrowdSession.objects.filter(campaign_id=crowd_session.campaign_id, rater_id=crowd_session.rater_id).filter(
        Q(assignments_before__gt=crowd_session.assignments_before)
        | Q(assignments_before=crowd_session.assignments_before, pk__gt=crowd_session.pk))
    until = later.order_by("assignments_before", "pk").values_list("assignments_before", flat=True).first()
    done = Assignment.objects.filter(campaign_id=crowd_session.campaign_id, rater_id=crowd_session.rater_id,
                                     status=Assignment.Status.DONE, sequence__gt=crowd_session.assignments_before)
    if until is not None:
        done = done.filter(sequence__lte=until)
    return done.count()


def is_screened_out(campaign, rater):
    """Excluded, or below the control threshold on enough control ratings (module docstring)."""
    if RaterExclusion.objects.filter(campaign=campaign, rater=rater).exists():
        return True
    controls, passed = quality.control_figures(campaign, rater)
    return bool(controls) and quality.fails_controls(controls, passed / controls, campaign.min_control_pass_rate)


def code_for(campaign, screened_out):
    return campaign.screening_code if screened_out and campaign.screening_code else campaign.completion_code
