"""The organizer's rater-quality page of a campaign (S8): figures, thresholds, CSV, exclusion."""

from http import HTTPStatus

from django import forms
from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core import engine, flags, quality, roles
from core.defaults import REASON_MAX_CHARS
from core.models import Campaign, Rater
from evalapp.services import exports
from evalapp.views.common import campaign_download


class ThresholdsForm(forms.Form):
    min_control_pass_rate = forms.FloatField(label="Minimum control pass rate (0 to 1)", min_value=0, max_value=1)
    min_coagreement = forms.FloatField(
        label="Minimum exact agreement with co-raters (0 to 1)", min_value=0, max_value=1
    )
    min_median_seconds = forms.FloatField(label="Minimum median seconds per item", min_value=0)


def _quality_page(request, campaign, form, status=HTTPStatus.OK):
    item_flags = flags.campaign_flags(campaign)
    return render(
        request,
        "campaigns/quality.html",
        {
            "campaign": campaign,
            "records": quality.rater_quality(campaign),
            "item_flags": item_flags,
            "form": form,
            "minimums": {
                "control": quality.MIN_CONTROL_RATINGS,
                "pairs": quality.MIN_COMPARED_PAIRS,
                "timed": quality.MIN_TIMED_RATINGS,
            },
        },
        status=status,
    )


@roles.organizer_required
@require_GET
def quality_table(request, campaign_id):
    """Per-rater control pass rate, agreement with co-raters, median seconds, flags; reported items.

    Security: organizers only (login, then 403). Read-only; thresholds and exclusion are POSTs.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    initial = {name: getattr(campaign, name) for name in ThresholdsForm.base_fields}
    return _quality_page(request, campaign, ThresholdsForm(initial=initial))


@roles.organizer_required
@require_POST
def thresholds(request, campaign_id):
    """Set the campaign's quality thresholds, then back to the quality page.

    Security: organizers only (login, then 403); POST with CSRF; an invalid value changes
    nothing and shows the page again with the error next to its field.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    form = ThresholdsForm(request.POST)
    if not form.is_valid():
        return _quality_page(request, campaign, form, status=400)
    quality.set_thresholds(campaign, quality.Thresholds(**form.cleaned_data))
    messages.success(request, "Thresholds saved; the flags below use them.")
    return redirect("campaigns:quality", campaign_id=campaign.pk)


quality_download = campaign_download(exports.rater_quality, roles.organizer_required)


@roles.organizer_required
@require_http_methods(["GET", "POST"])
def exclude(request, campaign_id, rater_id):
    """GET: confirm excluding a rater (their figures shown). POST: exclude them.

    Excluding marks the rater's ratings as excluded (they leave every result) and reopens
    their items for new raters (``engine.exclude_rater``). Security: organizers only (login,
    then 403); the change happens only on POST with CSRF; a rater with nothing in this
    campaign gives 404.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    records = {record.rater_id: record for record in quality.rater_quality(campaign)}
    if rater_id not in records:
        raise Http404("This rater has nothing in this campaign.")
    rater = get_object_or_404(Rater, pk=rater_id)
    if request.method == "POST":
        reason = request.POST.get("reason", "").strip()[:REASON_MAX_CHARS]
        result = engine.exclude_rater(campaign, rater, by=request.user, reason=reason)
        if result.created:
            messages.success(
                request,
                f"Excluded {rater.label} ({rater}): {result.ratings_excluded} ratings no longer count and "
                f"{result.items_reopened} items were reopened for other raters.",
            )
        else:
            messages.info(request, f"{rater.label} ({rater}) was already excluded from this campaign.")
        return redirect("campaigns:quality", campaign_id=campaign.pk)
    return render(request, "campaigns/exclude_confirm.html", {"campaign": campaign, "record": records[rater_id]})
