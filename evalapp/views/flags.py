"""The organizer's review queue of items raters reported as broken: dismiss a report, or retire the instance.

Every decision goes through :mod:`core.flags` (``dismiss_reports``, ``retire_instance``), as the API's
and ``manage.py review_flags`` do.
"""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from core import flags, roles
from core.defaults import NOTE_MAX_CHARS
from core.models import Campaign
from core.progress import campaign_stall

SHOW_SYSTEMS = "show"


@require_GET
@roles.organizer_required
def queue(request, campaign_id):
    """The reported items: statement, reason as raters saw it, who reported it and their note; the
    systems only when the organizer asks (``?systems=show``), so a review can stay blind; resolved
    reports with ``?resolved=1``.

    Security: organizers only (login, then 403); read-only: each decision is a POST with CSRF.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    show_systems = request.GET.get("systems") == SHOW_SYSTEMS
    with_resolved = request.GET.get("resolved") == "1"
    return render(
        request,
        "campaigns/flags.html",
        {
            "campaign": campaign,
            "queue": flags.review_queue(campaign, include_resolved=with_resolved),
            "show_systems": show_systems,
            "with_resolved": with_resolved,
            "stall": campaign_stall(campaign),
            "note_max_chars": NOTE_MAX_CHARS,
        },
    )


def _back(request, campaign):
    """Back to the queue, keeping whether systems were shown (``next_systems`` of the form)."""
    address = reverse("campaigns:flags", args=(campaign.pk,))
    return redirect(address + ("?systems=show" if request.POST.get("systems") == SHOW_SYSTEMS else ""))


@require_POST
@roles.organizer_required
def dismiss(request, campaign_id, item_id):
    """Dismiss the open reports on an item: it is rated as it stands, by any rater who has neither rated
    nor reported it (the reporter never gets it again).

    Security: organizers only (login, then 403); POST with CSRF; an item of another campaign is refused
    with a message and changes nothing.
    """
    return _decide(
        request,
        campaign_id,
        lambda campaign: flags.dismiss_reports(campaign, item_id, by=request.user),
        lambda decision: f"Item {item_id} has no open report; nothing was changed.",
        lambda decision: (
            f"Dismissed {decision.reports_resolved} report(s) on item {item_id}: it goes "
            "on being rated by raters who have not seen it."
        ),
    )


@require_POST
@roles.organizer_required
def retire(request, campaign_id, item_id):
    """Retire the instance of a reported item (its statement is broken): it leaves every system's mean and
    N, its items take no more ratings, and Table 6 names it under the table.

    Security: organizers only (login, then 403); POST with CSRF; an item of another campaign is refused
    with a message and changes nothing.
    """
    reason = request.POST.get("reason", "")
    return _decide(
        request,
        campaign_id,
        lambda campaign: flags.retire_instance(campaign, item_id, by=request.user, reason=reason),
        lambda decision: f"Instance {decision.instance_id} was already retired; nothing was changed.",
        lambda decision: (
            f"Retired instance {decision.instance_id}: {decision.items_retired} item(s) "
            "take no more ratings and count for no system; Table 6 says so under the table."
        ),
    )


def _decide(request, campaign_id, decide, unchanged, changed):
    """Take a decision (``decide(campaign)``), say what it did (or why it was refused), back to the queue."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    try:
        decision = decide(campaign)
    except flags.ReviewRefused as refusal:
        messages.error(request, refusal.message)
    else:
        if decision.already:
            messages.info(request, unchanged(decision))
        else:
            messages.success(request, changed(decision))
    return _back(request, campaign)
