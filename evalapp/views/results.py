"""URLs and views of the 'results' area: campaign list, organizer dashboard, downloads.

Every view here is read-only (GET only; any other method gets 405) and open to organizers and
researchers (``results_viewer_required``); raters get 403. Exports never show usernames or
worker ids: raters appear as ``rater-<id>``. Every download is made by
:mod:`evalapp.services.exports`, as the API's and ``manage.py export``'s are.
"""

from django import forms
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from core import roles
from core.defaults import (
    CLUSTER_RULES,
    DEFAULT_CLUSTER_RULE,
    DEFAULT_PERMUTATIONS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MAX_RATERS_PER_ITEM,
    MAX_REQUEST_RESAMPLES,
    PLANNER_ALPHA,
    PLANNER_MAX_ALPHA,
    PLANNER_MAX_POWER,
    PLANNER_MIN_ALPHA,
    PLANNER_MIN_POWER,
    PLANNER_POWER,
)
from core.flags import review_queue
from core.models import Campaign
from core.progress import campaign_progress, campaign_stall
from core.quality import rater_quality
from evalapp.formats import table6 as table6_format
from evalapp.formats import table6_charts
from evalapp.services import exports, planning, results, sequential
from evalapp.views.common import (
    BAD_REQUEST,
    NOT_FOUND,
    Table6Options,
    campaign_download,
    campaign_index,
    download,
    text_response,
)

index = campaign_index("results/index.html")


@require_GET
@roles.results_viewer_required
def dashboard(request, campaign_id):
    """Progress per system and overall, active raters, flagged raters and items, Table 6 preview, the
    anytime-valid decisions per pair of systems (with the "settled" banner), downloads.

    Security: organizers and researchers only (raters 403); GET only, so a researcher can
    change nothing here. The exclude buttons (a POST to the rater screens' exclude view,
    CSRF-protected, which checks the organizer role itself), the close-early button (a POST to
    ``campaigns:status``, CSRF-protected, organizers only) and the racing button (a POST to
    ``results:racing``) are shown to organizers only.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    table = results.table6(campaign, secondary=False)
    quality = rater_quality(campaign)
    can_exclude = roles.is_organizer(request.user)
    flagged = [
        dict(
            q.as_dict(),
            label=results.rater_label(q.rater_id),
            exclude_url=reverse("campaigns:exclude", args=(campaign.pk, q.rater_id)) if can_exclude else None,
        )
        for q in quality
        if q.flagged
    ]
    context = {
        "campaign": campaign,
        "table": table,
        "progress": campaign_progress(campaign),
        "flagged_raters": flagged,
        "excluded_raters": sum(1 for q in quality if q.excluded),
        "flagged_items": review_queue(campaign),
        "stall": campaign_stall(campaign),
        "can_exclude": can_exclude,
        "downloads": _downloads(campaign),
        "table6_page": reverse("results:table6_page", args=(campaign.pk,)),
        "plan_page": reverse("results:plan", args=(campaign.pk,)),
        "sequential": sequential.sequential_status(campaign),
        "preview": [table6_format.cells(row) for row in table.rows],
        "notes": table6_format.notes(table),
    }
    return render(request, "results/dashboard.html", context)


def _charts(rows, distribution):
    """The Table 6 page's three charts, each drawn wide and narrow (the page shows the one that fits)."""
    layouts = {"wide": table6_charts.WIDE, "narrow": table6_charts.NARROW}
    return {
        "interval_charts": {size: table6_charts.interval_chart(rows, layout) for size, layout in layouts.items()},
        "scatter_charts": {size: table6_charts.scatter_chart(rows, layout) for size, layout in layouts.items()},
        "distribution_charts": {
            size: table6_charts.distribution_chart(rows, distribution, layout) for size, layout in layouts.items()
        },
    }


@require_GET
@roles.results_viewer_required
def table6_page(request, campaign_id):
    """Table 6 with its uncertainty: rater-aware 95% intervals, significance clusters under the chosen rule
    (``?clusters=holm|wmt``, as the downloads and the API take it; the test named), the secondary
    rater-effect columns, a chart of the scores with their intervals and clusters, BLEU against human
    score, each system's 0-3 distribution, and a form for the LaTeX download.

    Security: organizers and researchers only (raters 403); GET only, read-only (the download form is a
    GET to the download view, which validates its query); an unknown rule is a 400 naming the field.
    Charts are server-rendered SVG styled by classes from the static stylesheet: no inline script or style.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    query = Table6Options(request.GET)
    if not query.is_valid():
        return text_response(query.problems(), BAD_REQUEST)
    rule = query.options()["clusters"]
    table = results.table6(
        campaign, bootstrap=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, permutations=DEFAULT_PERMUTATIONS, clusters=rule
    )
    rows = [
        {
            "row": row,
            "cells": table6_format.cells(row),
            "interval": table6_format.interval_cells(row),
            "secondary": table6_format.secondary_cells(row, table6_format.secondary_missing(table)),
        }
        for row in table.rows
    ]
    return render(
        request,
        "results/table6.html",
        {
            "campaign": campaign,
            "table": table,
            "rows": rows,
            "notes": table6_format.notes(table),
            **_charts(table.rows, results.score_distribution(campaign)),
            "latex_url": reverse("results:table6", args=(campaign.pk, "latex")),
            "default_resamples": DEFAULT_RESAMPLES,
            "max_resamples": MAX_REQUEST_RESAMPLES,
            "rules": CLUSTER_RULES,
            "rule": rule,
            "default_rule": DEFAULT_CLUSTER_RULE,
        },
    )


@require_GET
@roles.results_viewer_required
def table6_download(request, campaign_id, fmt):
    """Table 6 as a file (csv, json, markdown, latex; ``?halves=1`` for LaTeX halves,
    ``?bootstrap=N&seed=S&permutations=P`` for intervals and clusters, bounded as in the API).

    Security: organizers and researchers only (raters 403); GET only, read-only; CSV cells
    neutralised by ``write_csv``. A bad query is a 400 that names the parameter.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    query = Table6Options(request.GET)
    if not query.is_valid():
        return text_response(query.problems(), BAD_REQUEST)
    try:
        export = exports.table6(campaign, fmt, **query.options())
    except exports.UnknownFormat as error:
        return text_response(str(error), NOT_FOUND)
    except exports.BadOption as error:
        return text_response(str(error), BAD_REQUEST)
    return download(export)


class PlanForm(forms.Form):
    """The planner's options, bounded as the API's."""

    alpha = forms.FloatField(
        initial=PLANNER_ALPHA,
        min_value=PLANNER_MIN_ALPHA,
        max_value=PLANNER_MAX_ALPHA,
        label="Significance level (alpha)",
        widget=forms.NumberInput(attrs={"step": "any"}),
    )
    power = forms.FloatField(
        initial=PLANNER_POWER,
        min_value=PLANNER_MIN_POWER,
        max_value=PLANNER_MAX_POWER,
        label="Power",
        widget=forms.NumberInput(attrs={"step": "any"}),
    )
    raters_per_item = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_RATERS_PER_ITEM,
        label="Raters per item (M)",
        help_text="Empty: the campaign's.",
    )
    clusters = forms.ChoiceField(
        required=False,
        choices=[(rule, rule) for rule in CLUSTER_RULES],
        initial=DEFAULT_CLUSTER_RULE,
        label="Clustering rule",
        help_text="holm: each pair two-sided at alpha / pairs; wmt: one-sided at alpha.",
    )


@require_GET
@roles.results_viewer_required
def plan(request, campaign_id):
    """The study planner with this campaign as the pilot: variance components, instances needed for each
    adjacent pair (normal approximation and simulation), the minimum-detectable-difference table.

    Security: organizers and researchers only (raters 403); GET only, read-only: the form's options are
    bounded and a bad one is shown next to its field (400), never a 5xx.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    form = PlanForm(request.GET or None)
    found, status = None, 200
    if not request.GET or form.is_valid():
        data = form.cleaned_data if request.GET else {"alpha": PLANNER_ALPHA, "power": PLANNER_POWER}
        found = planning.plan_study(
            campaign,
            data["alpha"],
            data["power"],
            data.get("raters_per_item"),
            clusters=data.get("clusters") or DEFAULT_CLUSTER_RULE,
        )
    else:
        status = BAD_REQUEST
    mdd = None
    if found:
        raters = sorted({entry["raters_per_item"] for entry in found["mdd"]})
        table: dict[int, dict[int, float]] = {}
        for entry in found["mdd"]:
            table.setdefault(entry["instances"], {})[entry["raters_per_item"]] = entry["mdd"]
        mdd = {"raters": raters, "rows": [(n, [table[n][m] for m in raters]) for n in sorted(table)]}
    return render(
        request,
        "results/plan.html",
        {"campaign": campaign, "form": form, "plan": found, "mdd": mdd, "api": f"/api/campaigns/{campaign.pk}/plan/"},
        status=status,
    )


def _downloads(campaign):
    """The dashboard's download links: (label, address), labelled as every page labels them."""
    table6 = exports.TABLE6
    links = [
        (exports.label(table6, fmt), reverse("results:table6", args=(campaign.pk, fmt)))
        for fmt in exports.FORMATS[table6]
    ]
    links.append(
        (
            f"{exports.label(table6, 'latex')}, two halves as in the paper",
            reverse("results:table6", args=(campaign.pk, "latex")) + "?halves=1",
        )
    )
    links.append(
        (
            f"{exports.label(table6, 'json')} with 95% bootstrap intervals and significance clusters",
            reverse("results:table6", args=(campaign.pk, "json")) + f"?bootstrap={DEFAULT_RESAMPLES}",
        )
    )
    for kind, name in ((exports.AGREEMENT, "results:agreement"), (exports.RATINGS, "results:ratings")):
        links += [(exports.label(kind, fmt), reverse(name, args=(campaign.pk, fmt))) for fmt in exports.FORMATS[kind]]
    return links


agreement_download = campaign_download(exports.agreement)
ratings_download = campaign_download(exports.ratings)


@require_POST
@roles.organizer_required
def racing(request, campaign_id):
    """Racing: retire every system whose pairs are all decided (a racing campaign, open), then back to the
    dashboard with what was done. The API twin is ``POST /api/campaigns/{id}/sequential/racing/``.

    Security: organizers only (login required, then 403); POST with CSRF only.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    done = sequential.retire_decided_systems(campaign)
    if not campaign.racing:
        messages.error(request, "Racing is off for this campaign: no system was retired.")
    elif done.systems:
        messages.success(request, f"Retired {', '.join(done.systems)}: {done.items_closed} items closed.")
    else:
        messages.info(request, "No system has all its comparisons decided yet.")
    return redirect("results:dashboard", campaign_id=campaign.pk)
