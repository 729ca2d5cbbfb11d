"""Entry pages for crowd workers (S11): a Mechanical Turk ExternalQuestion and a Prolific study link.

GET never changes anything: it shows the MTurk preview, or the instructions with a Start
button whose form carries the platform's parameters. The POST of that button identifies
the worker (see :mod:`annotators.crowd`), logs them in and leases their first item; from
then on they use the ordinary rater screens. Both pages may be framed by Mechanical Turk only.
"""

from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from annotators import crowd
from annotators.instructions import WORKED_EXAMPLES, WORKED_STATEMENT
from annotators.views.framing import frameable_by_mturk
from annotators.views.rating import advance, instructions_context, open_campaign
from core import doors, roles, throttle
from core.crowd import entry_allowed
from core.defaults import PREVIEW_EXAMPLE_SCORE
from core.login_protection import client_address
from core.models import Rater
from core.progress import rater_progress

TOO_MANY_REQUESTS = 429


@frameable_by_mturk
@require_http_methods(["GET", "POST"])
def mturk_entry(request, campaign_id, key):
    """The campaign as an MTurk ExternalQuestion: preview, instructions, then Start (POST).

    Security: anyone (MTurk workers have no account yet), but only into an open campaign whose
    organizer enabled Mechanical Turk, with the campaign's crowd key in the address: anything else
    is a 404 that writes nothing (no account, no session, no lease). A preview
    (no assignmentId, or ASSIGNMENT_ID_NOT_AVAILABLE) writes nothing, not even a session. The
    POST needs CSRF and valid parameters (400 naming the bad one); turkSubmitTo must be an
    allowed MTurk origin. It logs in only a password-less crowd account (403 otherwise). Starts are
    throttled per client address and per campaign (429 with a page that says when to try again).
    """
    campaign = open_crowd_campaign(campaign_id, crowd.MTURK, key)
    if request.method == "GET" and crowd.is_mturk_preview(request.GET):
        return _preview(request, campaign)
    return _entry(request, campaign, crowd.MTURK)


@frameable_by_mturk
@require_http_methods(["GET", "POST"])
def prolific_entry(request, campaign_id, key):
    """The campaign as a Prolific study: instructions, then Start (POST) with the study's parameters.

    Security: anyone (participants have no account yet), but only into an open campaign whose
    organizer enabled Prolific, with the campaign's crowd key in the address: anything else is a
    404 that writes nothing. GET writes
    nothing. The POST needs CSRF and valid PROLIFIC_PID, STUDY_ID and SESSION_ID (400 naming
    the bad one); it logs in only a password-less crowd account (403 otherwise). Starts are
    throttled per client address and per campaign (429).
    """
    return _entry(request, open_crowd_campaign(campaign_id, crowd.PROLIFIC, key), crowd.PROLIFIC)


def open_crowd_campaign(campaign_id, platform, key):
    """The open campaign if the organizer enabled ``platform`` and ``key`` is its crowd key; else 404."""
    campaign = open_campaign(campaign_id)
    if not entry_allowed(campaign, platform, key):
        raise Http404("No open campaign here.")
    return campaign


def _preview(request, campaign):
    example = next(example for example in WORKED_EXAMPLES if example.score == PREVIEW_EXAMPLE_SCORE)
    return render(
        request,
        "rate/crowd_preview.html",
        {
            **instructions_context(campaign, progress=None),
            "crowd_platform": Rater.Platform.MTURK.label,
            "example": example,
            "example_statement": WORKED_STATEMENT,
        },
    )


def _entry(request, campaign, platform):
    params = request.POST if request.method == "POST" else request.GET
    try:
        visit = crowd.visit_from(platform, params)
    except crowd.CrowdParameterError as error:
        return _refusal(request, campaign, platform, error.parameter, error.message, status=400)
    if request.method == "GET":
        return _landing(request, campaign, visit)
    wait = _throttled(request, campaign)
    if wait:
        response = render(
            request,
            "rate/crowd_throttled.html",
            {"campaign": campaign, "platform": Rater.Platform(platform).label, "wait": wait},
            status=TOO_MANY_REQUESTS,
        )
        response["Retry-After"] = str(wait)
        return response
    try:
        crowd_session = crowd.enter(request, campaign, visit)
        doors.door(campaign, crowd_session.rater, crowd_session)
    except (crowd.CrowdEntryRefused, doors.DoorClosed) as refusal:
        return _refusal(request, campaign, platform, None, refusal.message, status=403)
    return advance(request, campaign, crowd_session.rater, crowd_session)


def _throttled(request, campaign):
    """Seconds to wait when this entry is over a crowd entry limit (per client address, per campaign), else 0.

    Only the Start (POST) counts: it is what makes an account and a session.
    """
    for scope, key, rate in (
        ("crowd-entry-address", client_address(request), settings.COMVE_CROWD_ENTRY_RATE_PER_ADDRESS),
        ("crowd-entry-campaign", campaign.pk, settings.COMVE_CROWD_ENTRY_RATE_PER_CAMPAIGN),
    ):
        allowed, wait = throttle.allow(scope, key, rate)
        if not allowed:
            return wait
    return 0


def _landing(request, campaign, visit):
    """The instructions with the Start form; the progress of a worker already inside this session."""
    rater = roles.rater_of(request.user)
    crowd_session = crowd.current_session(request, campaign, rater)
    if crowd_session is not None and (crowd_session.platform, crowd_session.session_id) != (
        visit.platform,
        visit.session_id,
    ):
        crowd_session = None
    progress = rater_progress(campaign, rater, crowd_session) if crowd_session is not None else None
    context = instructions_context(campaign, progress, crowd_session)
    context.update(
        crowd_platform=Rater.Platform(visit.platform).label, start_url=request.path, start_fields=visit.parameters()
    )
    return render(request, "rate/instructions.html", context)


def _refusal(request, campaign, platform, parameter, message, status):
    return render(
        request,
        "rate/crowd_refused.html",
        {
            "campaign": campaign,
            "platform": Rater.Platform(platform).label,
            "parameter": parameter,
            "message": message,
        },
        status=status,
    )
