"""The rater screens (S6): campaign list, instructions, one item at a time, flag, completion.

Blind by construction: templates get the statement, the reason text and the rater's own
progress, never an Item, System or output object and never another rater's rating; the only
id in a page is the rater's own assignment id, which says nothing about the system.
Every state change is a POST answered by a redirect (POST-redirect-GET), so the screens work
without JavaScript. A crowd worker (a Rater with ``platform``/``external_id`` and an
auto-created account) uses the same screens once logged in by the platform's entry page
(:mod:`annotators.views.crowd`); within a crowd session progress, the cap on items and the
completion page are the session's. Every rater screen may be framed by Mechanical Turk only.
"""

from functools import partial

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotators import crowd, last_rating, pending
from annotators.instructions import WORKED_STATEMENT, worked_examples
from annotators.seconds import measured_seconds
from annotators.views.framing import frameable_by_mturk
from core import corrections, doors, engine, flags, rating_sql, roles
from core.defaults import CORRECTION_WINDOW_SECONDS, MAX_ID, SCORE_MAX, SCORE_MIN
from core.models import Assignment, Campaign
from core.progress import in_session, rater_progress, session_full


def open_campaign(campaign_id):
    """The campaign if it is open; 404 otherwise (a closed campaign hands out nothing)."""
    campaign = rating_sql.open_campaign(campaign_id)
    if campaign is None:
        raise Http404("No open campaign here.")
    return campaign


def _assignment_id(posted):
    """The posted assignment id, or 404 when it is not a number or beyond any id (MAX_ID)."""
    try:
        value = int(posted)
    except (TypeError, ValueError):
        value = None
    if value is None or not 0 < value <= MAX_ID:
        raise Http404("No such assignment.")
    return value


def door_or_404(request, campaign, rater, reading=False):
    """The rater's door into the campaign (:mod:`core.doors`), with the crowd session this browser
    entered it through; 404 without one, as for a campaign that is not there."""
    try:
        return doors.door(campaign, rater, crowd.current_session(request, campaign, rater), reading=reading)
    except doors.DoorClosed as closed:
        raise Http404(closed.message) from None


def _own_assignment(campaign, rater, assignment_id, crowd_session=None):
    """The rater's assignment in this campaign (and crowd session), or 404: another's id reveals nothing."""
    return get_object_or_404(
        Assignment.objects.of_rater(rater),
        pk=_assignment_id(assignment_id),
        campaign=campaign,
        crowd_session=crowd_session,
    )


def advance(request, campaign, rater, crowd_session=None):
    """Redirect to the rater's next item (leasing one), or to the completion page.

    A crowd session that has its ``items_per_session`` ratings leases nothing more.
    ``crowd_session``: the one the caller has already read through the rater's door, if any.
    """
    crowd_session = crowd_session or door_or_404(request, campaign, rater).crowd_session
    if (
        session_full(campaign, crowd_session)
        or engine.next_assignment(campaign, rater, crowd_session_id=crowd.session_id(crowd_session)) is None
    ):
        return redirect("annotators:done", campaign_id=campaign.pk)
    return redirect("annotators:item", campaign_id=campaign.pk)


def _keep_for_login(request, campaign_id, flag):
    """An anonymous POST (the session expired): keep the choice, then log in and come back."""
    item_url = reverse("annotators:item", kwargs={"campaign_id": campaign_id})
    response = redirect_to_login(item_url)
    choice = pending.from_post(request.POST, campaign_id, pending.SESSION_EXPIRED, flag=flag)
    if choice is None:
        return response
    messages.info(request, "Your session had expired. Log in again: your choice was kept.")
    return pending.remember(response, choice)


def _rater_or_403(request):
    rater = roles.rater_of(request.user)
    if rater is None:
        raise PermissionDenied("Only raters can rate.")
    return rater


@frameable_by_mturk
@roles.rater_required
@require_GET
def campaign_list(request):
    """The open campaigns with the rater's own progress in each.

    Security: raters only (login, then 403 for other roles); shows the rater's own counts only;
    only the campaigns whose door admits the rater (:mod:`core.doors`: a crowd account sees the
    campaigns of the crowd sessions it entered, nothing else), never one they were excluded from. Read-only.
    """
    rater = roles.rater_of(request.user)
    rows = []
    for campaign in doors.campaigns_open_to(rater, crowd.entered_sessions(request, rater)):
        progress = rater_progress(campaign, rater)
        rows.append({"campaign": campaign, "done": progress.done, "total": progress.total})
    return render(request, "rate/campaigns.html", {"rows": rows})


@frameable_by_mturk
@roles.rater_required
@require_GET
def instructions(request, campaign_id):
    """The campaign's instructions, its rubric and worked examples, and the start button.

    Security: raters only; open campaigns whose door admits the rater only (404 otherwise). Read-only:
    starting is a POST.
    """
    campaign = open_campaign(campaign_id)
    rater = roles.rater_of(request.user)
    crowd_session = door_or_404(request, campaign, rater).crowd_session
    return render(
        request,
        "rate/instructions.html",
        instructions_context(campaign, rater_progress(campaign, rater, crowd_session), crowd_session),
    )


def instructions_context(campaign, progress, crowd_session=None):
    """What the instructions page shows (also the crowd entry pages, which add their start form)."""
    return {
        "campaign": campaign,
        "progress": progress,
        "statement": WORKED_STATEMENT,
        "examples": worked_examples(campaign),
        "crowd_platform": crowd_session.get_platform_display() if crowd_session else "",
    }


@frameable_by_mturk
@roles.rater_required
@require_POST
def next_item(request, campaign_id):
    """Start or continue: lease the rater's next item and show it (or the completion page).

    Security: raters only, POST with CSRF, through the rater's door (404 otherwise); the engine
    leases only items this rater never had.
    """
    campaign = open_campaign(campaign_id)
    return advance(request, campaign, roles.rater_of(request.user))


@frameable_by_mturk
@require_http_methods(["GET", "POST"])
def item(request, campaign_id):
    """GET: the rater's current item. POST: save its score, then on to the next item.

    Security: raters only (login, then 403 for other roles), through their door into the campaign
    (:mod:`core.doors`; 404 otherwise, nothing written). The item shown is the rater's own
    live lease, or the rater's own unsaved item whose choice was kept; a posted assignment id
    that is not the rater's gives 404 and writes nothing. GET never leases or saves. An
    anonymous POST (session expired) writes nothing: it keeps the choice in a signed cookie
    and sends the rater to log in.
    """
    if not request.user.is_authenticated:
        if request.method == "POST":
            return _keep_for_login(request, campaign_id, flag=False)
        return redirect_to_login(request.get_full_path())
    rater = _rater_or_403(request)
    campaign = open_campaign(campaign_id)
    if request.method == "POST":
        return _submit(request, campaign, rater)
    return _show(request, campaign, rater)


def _show(request, campaign, rater):
    crowd_session = door_or_404(request, campaign, rater).crowd_session
    assignment, progress = engine.live_lease_and_progress(
        campaign, rater, crowd_session_id=crowd.session_id(crowd_session)
    )
    kept = pending.recall(request, campaign.pk)
    if kept is not None:
        unsaved = (
            Assignment.objects.of_rater(rater)
            .unfinished()
            .select_related("item__instance")
            .filter(pk=kept.assignment_id, campaign=campaign, crowd_session=crowd_session)
            .first()
        )
        assignment, kept = (unsaved, kept) if unsaved is not None else (assignment, None)
    if crowd_session is not None:
        progress = in_session(campaign, crowd_session, progress)
    if assignment is None:
        target = "annotators:done" if progress.done >= progress.total else "annotators:instructions"
        return pending.forget(redirect(target, campaign_id=campaign.pk))
    last = last_rating.recall(request, campaign.pk)
    response = render(
        request,
        "rate/item.html",
        {
            "campaign": campaign,
            "assignment_id": assignment.pk,
            "statement": assignment.item.instance.false_sent,
            "reason": assignment.item.text,
            "position": min(progress.done + 1, progress.total),
            "total": progress.total,
            "rubric": campaign.rubric,
            "kept": kept,
            "selected": kept.score if kept and not kept.flag else None,
            "flag_note": kept.note if kept and kept.flag else "",
            "note_max_chars": flags.MAX_NOTE_CHARS,
            "last": last if last is not None and last.assignment_id != assignment.pk else None,
            "scores": range(SCORE_MIN, SCORE_MAX + 1),
            "correction_minutes": CORRECTION_WINDOW_SECONDS // 60,
        },
    )
    # The reason a choice was kept (an expired token or session) is said once: a reload, or the
    # next visit after logging in again, still pre-selects the choice but drops the stale banner.
    return pending.remember(response, kept.explained()) if kept is not None and kept.why else response


def _submit(request, campaign, rater):
    """Save the score and lease the next item; ownership is checked by the engine under the row lock.

    In a crowd session the next item is leased only after the rating counts, since the
    session's cap on items may have been reached by it. The message says what the database holds:
    a repeated submit shows the score stored the first time, never the one posted again.
    """
    assignment_id = _assignment_id(request.POST.get("assignment"))
    score = pending.parse_score(request.POST.get("score"))
    crowd_session = door_or_404(request, campaign, rater).crowd_session
    session_id = crowd.session_id(crowd_session)
    if score is None:
        _own_assignment(campaign, rater, assignment_id, crowd_session)  # someone else's id is a 404 here too
        messages.error(request, "Choose a score from 0 to 3, then submit.")
        return redirect("annotators:item", campaign_id=campaign.pk)
    now = timezone.now()
    seconds = partial(measured_seconds, now=now, reported=request.POST.get("seconds"))
    submitted = saved = None
    try:
        if crowd_session is None:
            submitted = engine.submit_and_lease(assignment_id, rater, score, campaign, seconds=seconds, now=now)
            rating, created = submitted.rating, submitted.created
        else:
            rating, created = engine.submit_rating(
                assignment_id, rater, score, now=now, campaign=campaign, seconds=seconds, crowd_session_id=session_id
            )
    except engine.SubmissionRefused as refusal:
        if refusal.code == engine.SubmissionRefused.NOT_FOUND:
            raise Http404(refusal.message) from None
        messages.warning(request, refusal.message)
    else:
        messages.success(request, f"Saved: {rating.score}." if created else f"Already saved: {rating.score}.")
        saved = last_rating.LastRating(campaign.pk, assignment_id, rating.score)
    if submitted is not None and submitted.next_assignment_id is not None:
        response = redirect("annotators:item", campaign_id=campaign.pk)
    else:
        response = advance(request, campaign, rater, crowd_session)
    # The next item's page offers to change this score (core.corrections) for a short while.
    return pending.forget(last_rating.remember(response, saved) if saved is not None else response)


@frameable_by_mturk
@require_POST
def correct(request, campaign_id):
    """Change the score of the rater's last saved item (undo of the last submission), then back to the current item.

    Security: raters only (login, then 403), POST with CSRF, through their door (404 otherwise).
    ``core.corrections`` checks, under the
    rater's lock, that the assignment is the rater's own in this campaign (404 otherwise, nothing
    written), that its rating is their last one and was saved at most CORRECTION_WINDOW_SECONDS
    ago, and that the campaign is open and the rating still counts (a warning otherwise, nothing
    written). The rating keeps its row; the change is recorded as a RatingCorrection.
    """
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("annotators:item", kwargs={"campaign_id": campaign_id}))
    rater = _rater_or_403(request)
    campaign = open_campaign(campaign_id)
    door_or_404(request, campaign, rater)
    assignment_id = _assignment_id(request.POST.get("previous"))
    score = pending.parse_score(request.POST.get("score"))
    response = redirect("annotators:item", campaign_id=campaign.pk)
    if score is None:
        messages.error(request, "Choose a score from 0 to 3 to change your last score to.")
        return response
    try:
        correction = corrections.correct_last_rating(assignment_id, rater, campaign, score)
    except corrections.CorrectionRefused as refusal:
        if refusal.code == corrections.CorrectionRefused.NOT_FOUND:
            raise Http404(refusal.message) from None
        messages.warning(request, refusal.message)
        return last_rating.forget(response)
    messages.success(
        request,
        f"Your last score was changed from {correction.old_score} to {correction.new_score}."
        if correction.changed
        else f"Your last score stays {correction.new_score}.",
    )
    return last_rating.remember(response, last_rating.LastRating(campaign.pk, assignment_id, correction.new_score))


@frameable_by_mturk
@require_POST
def flag(request, campaign_id):
    """Report the current item as broken, then skip it (see :mod:`core.flags`).

    Security: raters only, POST with CSRF, through their door (404 otherwise); the same checks as a
    submit: an open campaign, a rater not excluded, and the rater's own live lease (of this crowd
    session, for a crowd worker):
    someone else's assignment is a 404, an expired or finished one a warning, and nothing is
    written. An anonymous POST keeps the note and sends the rater to log in.
    """
    if not request.user.is_authenticated:
        return _keep_for_login(request, campaign_id, flag=True)
    rater = _rater_or_403(request)
    campaign = open_campaign(campaign_id)
    crowd_session = door_or_404(request, campaign, rater).crowd_session
    try:
        flags.flag_item(
            _assignment_id(request.POST.get("assignment")),
            rater,
            campaign,
            request.POST.get("note", ""),
            crowd_session_id=crowd.session_id(crowd_session),
        )
    except flags.FlagRefused as refusal:
        if refusal.code == flags.FlagRefused.NOT_FOUND:
            raise Http404(refusal.message) from None
        messages.warning(request, refusal.message)
    else:
        messages.success(request, "Thank you: the item was reported and skipped. You will not see it again.")
    return pending.forget(advance(request, campaign, rater, crowd_session))


@frameable_by_mturk
@roles.rater_required
@require_GET
def done(request, campaign_id):
    """The completion page: all done (with the crowd platform's code), or nothing available now.

    In a Mechanical Turk session the finished page carries the form that submits the HIT to
    the session's checked ``turkSubmitTo`` (assignmentId and the number of ratings; no CSRF
    token, which must not leave the site); in a Prolific session, the code and the link back.
    Security: raters only, through their door into the campaign (404 otherwise: a crowd account sees
    only its own session's page); shows the rater's own counts only. Read-only. The completion (or
    screening) code is shown only when the rater has nothing left to rate.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    rater = roles.rater_of(request.user)
    crowd_session = door_or_404(request, campaign, rater, reading=True).crowd_session
    progress = rater_progress(campaign, rater, crowd_session)
    finished = progress.completed
    excluded = engine.is_excluded(campaign, rater)
    submit_url = (
        crowd.external_submit_url(crowd_session)
        if crowd_session is not None and crowd_session.platform == crowd.MTURK
        else ""
    )
    response = render(
        request,
        "rate/done.html",
        {
            "campaign": campaign,
            "progress": progress,
            "finished": finished,
            "is_open": campaign.status == Campaign.Status.OPEN,
            "excluded": excluded,
            "crowd_session": crowd_session,
            "completion": crowd.completion(campaign, rater) if finished or excluded else None,
            "submit_url": submit_url,
        },
    )
    if submit_url:
        # The HIT's completion form posts to MTurk: the one other origin this page's forms may send to.
        # django-csp reads this per-response update; HttpResponse's stub does not declare it.
        response._csp_update = {"form-action": [crowd.submit_origin(crowd_session.submit_to)]}  # type: ignore[attr-defined]
    return response
