from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from core import roles
from evalapp.services import checklist


@require_GET
@login_required
def home(request):
    """Each role's way through the app as short checklists, one per campaign it can act on; a rater goes
    straight to their campaigns.

    Security: login required; shows only the steps (and links) the user's roles may follow; read-only.
    """
    user = request.user
    if roles.is_rater(user) and not roles.can_view_results(user):
        return redirect("annotators:campaigns")
    return render(
        request,
        "home.html",
        {
            "organizer_home": checklist.organizer_home() if roles.is_organizer(user) else None,
            "researcher_home": checklist.researcher_home() if roles.can_view_results(user) else None,
        },
    )
