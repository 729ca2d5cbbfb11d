"""Pieces shared by the organizer and researcher areas."""
from django.shortcuts import render
from django.views.decorators.http import require_GET

from evalapp import roles
from evalapp.models import Campaign


def campaign_index(template):
    """A view listing every campaign with ``template``, each linking to its page in that area."""

    @require_GET
    @roles.results_viewer_required
    def index(request):
        """Campaigns, newest first.

        Security: organizers and researchers only (raters 403, anonymous users to login); GET only.
        """
        campaigns = Campaign.objects.select_related("dataset").order_by("-created_at", "name")
        return render(request, template, {"campaigns": campaigns})

    return index
