"""The organizer's lab rater accounts of a campaign (create one or many from a CSV, new sign-in link or
password, deactivate) and the rater's one-time sign-in link. Everything goes through
:mod:`evalapp.services.lab_raters`, as the API and ``manage.py lab_raters`` do."""

from http import HTTPStatus

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core import roles
from core.models import Campaign
from core.problems import FormatError
from evalapp.formats.rater_list import MAX_EMAIL_CHARS, MAX_NAME_CHARS, RaterEntry, read_rater_list
from evalapp.services import lab_raters
from evalapp.views.data import UploadField

BAD_REQUEST = 400
LOGIN_BACKEND = "core.auth_backend.RaterLoadingBackend"


class OneRaterForm(forms.Form):
    name = forms.CharField(max_length=MAX_NAME_CHARS, help_text="Shown to you on this page, never to other raters.")
    email = forms.EmailField(max_length=MAX_EMAIL_CHARS, help_text="Also the rater's sign-in name.")
    sign_in = forms.ChoiceField(
        choices=lab_raters.SIGN_IN_CHOICES, initial=lab_raters.LINK, label="Sign-in by", widget=forms.RadioSelect
    )


class RaterListForm(forms.Form):
    raters = UploadField(label="CSV of raters", help_text="A header line name,email, then one rater a line.")
    sign_in = forms.ChoiceField(
        choices=lab_raters.SIGN_IN_CHOICES, initial=lab_raters.LINK, label="Sign-in by", widget=forms.RadioSelect
    )

    def __init__(self, *args, **kwargs):
        # Its ids differ from the one-rater form's on the same page.
        super().__init__(*args, **{**kwargs, "auto_id": "id_list_%s"})


def _page(request, campaign, one=None, many=None, problems=None, credentials=None, status=HTTPStatus.OK):
    return render(
        request,
        "campaigns/raters.html",
        {
            "campaign": campaign,
            "raters": lab_raters.lab_raters(campaign),
            "one_form": one or OneRaterForm(),
            "list_form": many or RaterListForm(),
            "problems": problems,
            "credentials": credentials,
            "absolute_root": request.build_absolute_uri("/")[:-1],
        },
        status=status,
    )


@require_GET
@roles.organizer_required
def raters(request, campaign_id):
    """The campaign's lab accounts with their ratings and whether they have signed in; the forms to add some.

    Security: organizers only (login, then 403); read-only; every change is a POST with CSRF.
    """
    return _page(request, get_object_or_404(Campaign, pk=campaign_id))


@require_POST
@roles.organizer_required
def add(request, campaign_id):
    """Create one account (``name``, ``email``) or many (an uploaded CSV ``raters``) and show each one's
    sign-in link or password once.

    Security: organizers only (login, then 403); POST with CSRF; all or nothing: with any problem no
    account is made and every problem is listed with its line and column. The credentials are in this
    response only (never stored readable, never cached).
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    many = "raters" in request.FILES
    form = RaterListForm(request.POST, request.FILES) if many else OneRaterForm(request.POST)
    pages = {"many": form} if many else {"one": form}
    if not form.is_valid():
        return _page(request, campaign, status=BAD_REQUEST, **pages)
    data = form.cleaned_data
    try:
        if many:
            source = data["raters"]
            entries, filename = read_rater_list(source.data, source.name), source.name
        else:
            entries, filename = [RaterEntry(None, data["name"], data["email"])], "form"
        made = lab_raters.add_lab_raters(campaign, entries, data["sign_in"], by=request.user, filename=filename)
    except FormatError as error:
        return _page(request, campaign, problems=error.problems, status=BAD_REQUEST, **pages)
    messages.success(
        request,
        f"Created {len(made)} rater account{'s' if len(made) != 1 else ''} for "
        f"'{campaign.name}'. Hand each rater their sign-in below: it is shown only now.",
    )
    return _page(request, campaign, credentials=made)


@require_POST
@roles.organizer_required
def reset(request, campaign_id, rater_id):
    """A new sign-in link or password for one lab account (the old ones stop working); shown once.

    Security: organizers only (login, then 403); POST with CSRF; a rater not listed on this campaign is a 404.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    sign_in = request.POST.get("sign_in", lab_raters.LINK)
    try:
        made = lab_raters.reset_sign_in(campaign, rater_id, sign_in)
    except FormatError as error:
        return _page(request, campaign, problems=error.problems, status=BAD_REQUEST)
    if made is None:
        return _not_listed(request, campaign)
    messages.success(request, f"New sign-in for {made.name}: the old one no longer works. It is shown only now.")
    return _page(request, campaign, credentials=[made])


def _not_listed(request, campaign):
    messages.error(request, "This rater is not one of this campaign's lab accounts; nothing was changed.")
    return _page(request, campaign, status=404)


@require_POST
@roles.organizer_required
def deactivate(request, campaign_id, rater_id):
    """Deactivate a lab account: it can no longer sign in; its ratings stay (exclude on the quality page).

    Security: organizers only (login, then 403); POST with CSRF; a rater not listed on this campaign is a 404.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    done = lab_raters.deactivate(campaign, rater_id)
    if done is None:
        return _not_listed(request, campaign)
    rater, changed = done
    assert rater.user is not None  # a lab account has one
    name = rater.user.first_name or rater.user.get_username()
    if changed:
        messages.success(request, f"Deactivated {name}: they can no longer sign in. A new sign-in reactivates them.")
    else:
        messages.info(request, f"{name} was already deactivated.")
    return redirect("campaigns:raters", campaign_id=campaign.pk)


@require_http_methods(["GET", "POST"])
def sign_in_link(request, uidb64, token):
    """A one-time sign-in link: GET shows whose it is and a button; POST signs in and goes home (a rater's
    campaigns). Signing in sets the last login, which voids the link.

    Security: public, but only a valid, unused, unexpired link of an active account signs anyone in; an
    invalid one gets the same page for every reason (400), without saying whether the account exists.
    The sign-in is a POST with CSRF, so a link preview or prefetch cannot use it up.
    """
    user = lab_raters.user_of_link(uidb64, token)
    if user is None:
        return render(request, "registration/sign_in_link.html", {"valid": False}, status=BAD_REQUEST)
    if request.method == "POST":
        login(request, user, backend=LOGIN_BACKEND)
        return redirect("home")
    return render(request, "registration/sign_in_link.html", {"valid": True, "account": user})
