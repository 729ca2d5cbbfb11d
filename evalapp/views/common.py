"""Pieces shared by the organizer and researcher areas: the campaign index and the download response."""

from django import forms
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from core import roles
from core.defaults import (
    CLUSTER_RULES,
    DEFAULT_CLUSTER_RULE,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SEED,
    MAX_REQUEST_PERMUTATIONS,
    MAX_REQUEST_RESAMPLES,
    NO_STORE,
    REQUEST_SEED_BOUND,
)
from core.models import Campaign
from evalapp.services.exports import UnknownFormat

BAD_REQUEST = 400
NOT_FOUND = 404


def campaign_index(template):
    """A view listing every campaign with ``template``, each linking to its page in that area."""

    @require_GET
    @roles.results_viewer_required
    def index(request):
        """Campaigns, newest first.

        Security: organizers and researchers only (raters 403, anonymous users to login); GET only.
        """
        campaigns = Campaign.objects.listed()
        return render(request, template, {"campaigns": campaigns})

    return index


def download(export):
    """An :class:`~evalapp.services.exports.Export` as a file download (never cached, never sniffed)."""
    response = HttpResponse(export.text, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = NO_STORE
    return response


def campaign_download(make, role_required=roles.results_viewer_required):
    """A view downloading ``make(campaign, fmt)``, an export of :mod:`evalapp.services.exports`.

    An unknown format is a 404 that lists the formats there are.
    """

    @require_GET
    @role_required
    def view(request, campaign_id, fmt):
        campaign = get_object_or_404(Campaign, pk=campaign_id)
        try:
            return download(make(campaign, fmt))
        except UnknownFormat as error:
            return text_response(str(error), NOT_FOUND)

    who = "organizers only" if role_required is roles.organizer_required else "organizers and researchers only"
    view.__doc__ = f"""{make.__doc__}

    Security: {who} (other roles 403, anonymous users to login); GET only, read-only.
    """
    return view


def text_response(message, status):
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


class Table6Options(forms.Form):
    """The query of a Table 6 download, with the same bounds as the API's (``core/defaults.py``)."""

    halves = forms.BooleanField(required=False)
    latex_intervals = forms.BooleanField(required=False)
    bootstrap = forms.IntegerField(required=False, min_value=0, max_value=MAX_REQUEST_RESAMPLES)
    seed = forms.IntegerField(required=False, min_value=0, max_value=REQUEST_SEED_BOUND - 1)
    permutations = forms.IntegerField(required=False, min_value=1, max_value=MAX_REQUEST_PERMUTATIONS)
    clusters = forms.ChoiceField(required=False, choices=[(rule, rule) for rule in CLUSTER_RULES])

    def options(self):
        data = self.cleaned_data
        return {
            "halves": bool(data["halves"]),
            "latex_intervals": bool(data["latex_intervals"]),
            "bootstrap": data["bootstrap"] or 0,
            "seed": DEFAULT_SEED if data["seed"] is None else data["seed"],
            "permutations": data["permutations"] or DEFAULT_PERMUTATIONS,
            "clusters": data["clusters"] or DEFAULT_CLUSTER_RULE,
        }

    def problems(self):
        return "; ".join(f"{name}: {' '.join(errors)}" for name, errors in self.errors.items())
