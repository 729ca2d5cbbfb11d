"""The site's CSRF failure view (``settings.CSRF_FAILURE_VIEW``).

A rater whose page's token went stale (the page stayed open for hours, or they logged in again
in another tab) must not lose the choice they just made (protocol.md#rater-screen): for the item and flag forms the
posted choice is kept in a signed cookie and the rater is sent back to the item, where it is
pre-selected. Every other failed request gets Django's standard 403 page.
"""

from django.shortcuts import redirect
from django.urls import Resolver404, resolve
from django.views import csrf as django_csrf

from annotators import pending

RATER_FORMS = {"item": False, "flag": True}  # URL name -> is it the flag form


def token_expired(reason):
    """True for a missing or stale token; False for a request from another origin, never kept."""
    return reason.startswith("CSRF")


def csrf_failure(request, reason=""):
    """Keep a rater's posted choice and return to the item; otherwise Django's 403 page.

    Security: nothing is saved here; the kept choice is only pre-selected on the rater's own
    item (checked again there) and needs a fresh, valid POST to be saved. Requests refused for
    their origin or referer are never kept.
    """
    try:
        match = resolve(request.path_info)
    except Resolver404:
        match = None
    if (
        match is not None
        and match.namespace == "annotators"
        and match.url_name in RATER_FORMS
        and request.method == "POST"
        and token_expired(reason)
    ):
        campaign_id = match.kwargs["campaign_id"]
        choice = pending.from_post(request.POST, campaign_id, pending.CSRF_EXPIRED, flag=RATER_FORMS[match.url_name])
        if choice is not None:
            return pending.remember(redirect("annotators:item", campaign_id=campaign_id), choice)
    return django_csrf.csrf_failure(request, reason)
