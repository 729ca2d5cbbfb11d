from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from core import roles


@login_required
def home(request):
    """Send each role to its start page; a rater goes straight to their campaigns.

    Security: login required; shows only links the user's role may follow.
    """
    user = request.user
    if roles.is_rater(user) and not roles.can_view_results(user):
        return redirect("annotators:campaigns")
    return render(request, "home.html")
