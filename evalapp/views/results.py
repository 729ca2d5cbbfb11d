"""URLs and views of the 'results' area: campaign list, organizer dashboard, downloads.

Every view here is read-only (GET only; any other method gets 405) and open to organizers and
researchers (``results_viewer_required``); raters get 403. Exports never show usernames or
worker ids: raters appear as ``rater-<id>``.
"""
import json

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import NoReverseMatch, path, reverse
from django.views.decorators.http import require_GET

from annotators.quality import rater_quality
from evalapp import roles
from evalapp.formats.csvfile import write_csv
from evalapp.formats.table6 import FORMATS, INCOMPLETE_MARK, notes, render as render_table6, shown
from evalapp.models import Campaign
from evalapp.services import results
from evalapp.views.common import campaign_index

app_name = "results"

CONTENT_TYPES = {"csv": "text/csv", "json": "application/json", "markdown": "text/markdown", "latex": "application/x-tex"}
EXTENSIONS = {"csv": "csv", "json": "json", "markdown": "md", "latex": "tex"}
# The web never runs more resamples than this on a request (the command line has no cap).
MAX_WEB_BOOTSTRAP = 2000
WEB_PERMUTATIONS = 2000


def _download(text, filename, content_type):
    response = HttpResponse(text, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _slug(campaign):
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in campaign.name)


def _exclude_url(campaign, rater_id):
    """The rater screens' exclude action for this rater, or None while it does not exist."""
    for args in ((campaign.pk, rater_id), (campaign.pk,)):
        try:
            return reverse("annotators:exclude", args=args)
        except NoReverseMatch:
            continue
    return None


index = campaign_index("results/index.html")


@require_GET
@roles.results_viewer_required
def dashboard(request, campaign_id):
    """Progress per system and overall, active raters, flagged raters and items, Table 6 preview, downloads.

    Security: organizers and researchers only (raters 403); GET only, so a researcher can
    change nothing here. The exclude buttons (a POST to the rater screens' exclude view,
    CSRF-protected, which checks the organizer role itself) are shown to organizers only.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    table = results.table6(campaign)
    scores = {row["team"]: row for row in table.rows}
    quality = rater_quality(campaign)
    can_exclude = roles.is_organizer(request.user)
    flagged = [dict(q.as_dict(), label=results.rater_label(q.rater_id),
                    exclude_url=_exclude_url(campaign, q.rater_id) if can_exclude else None)
               for q in quality if q.flagged]
    context = {
        "campaign": campaign,
        "table": table,
        "progress": results.progress(campaign, scores),
        "active_raters": results.active_raters(campaign),
        "flagged_raters": flagged,
        "excluded_raters": sum(1 for q in quality if q.excluded),
        "flagged_items": results.flagged_items(campaign),
        "can_exclude": can_exclude,
        "formats": FORMATS,
        "preview": [shown(row, INCOMPLETE_MARK) for row in table.rows],
        "notes": notes(table),
    }
    return render(request, "results/dashboard.html", context)


@require_GET
@roles.results_viewer_required
def table6_download(request, campaign_id, fmt):
    """Table 6 as a file (csv, json, markdown, latex; ``?halves=1`` for LaTeX halves,
    ``?bootstrap=N&seed=S`` for intervals and clusters, N capped at MAX_WEB_BOOTSTRAP).

    Security: organizers and researchers only (raters 403); GET only, read-only; CSV cells
    neutralised by ``write_csv``.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    if fmt not in FORMATS:
        return HttpResponse(f"unknown format; choose one of {', '.join(FORMATS)}", status=404,
                            content_type="text/plain")
    try:
        bootstrap = min(max(int(request.GET.get("bootstrap", 0)), 0), MAX_WEB_BOOTSTRAP)
        seed = int(request.GET.get("seed", results.DEFAULT_BOOTSTRAP_SEED))
    except ValueError:
        return HttpResponse("bootstrap and seed must be integers", status=400, content_type="text/plain")
    table = results.table6(campaign, bootstrap=bootstrap, seed=seed, permutations=WEB_PERMUTATIONS)
    text = render_table6(table, fmt, halves=fmt == "latex" and request.GET.get("halves") == "1")
    return _download(text, f"table6-{_slug(campaign)}.{EXTENSIONS[fmt]}", CONTENT_TYPES[fmt])


@require_GET
@roles.results_viewer_required
def agreement_download(request, campaign_id):
    """The agreement report (S8) as JSON, raters pseudonymous.

    Security: organizers and researchers only (raters 403); GET only, read-only.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    text = json.dumps(results.agreement_report(campaign), indent=2)
    return _download(text, f"agreement-{_slug(campaign)}.json", CONTENT_TYPES["json"])


@require_GET
@roles.results_viewer_required
def ratings_download(request, campaign_id):
    """The counted ratings in long form (CSV), raters pseudonymous, cells neutralised.

    Security: organizers and researchers only (raters 403); GET only, read-only.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    text = write_csv(results.ratings_long_rows(campaign), header=results.RATINGS_LONG_HEADER)
    return _download(text, f"ratings-{_slug(campaign)}.csv", CONTENT_TYPES["csv"])


urlpatterns = [
    path("", index, name="index"),
    path("<int:campaign_id>/", dashboard, name="dashboard"),
    path("<int:campaign_id>/table6.<str:fmt>", table6_download, name="table6"),
    path("<int:campaign_id>/agreement.json", agreement_download, name="agreement"),
    path("<int:campaign_id>/ratings.csv", ratings_download, name="ratings"),
]
