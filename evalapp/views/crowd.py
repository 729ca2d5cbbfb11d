"""The organizer's crowd-platform page of a campaign: settings, HIT and study addresses, sessions."""

from http import HTTPStatus

from django import forms
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from core import quality, roles
from core.crowd import MTURK, PROLIFIC
from core.defaults import MAX_ID
from core.models import Campaign
from core.problems import FormatError
from core.progress import crowd_session_counts
from evalapp.formats.external_question import AUTO_FRAME_HEIGHT, ExternalQuestionError, external_question_xml
from evalapp.services import crowd, exports
from evalapp.views.common import campaign_download
from evalapp.views.data import UploadField


class BoundedModelMultipleChoiceField(forms.ModelMultipleChoiceField):
    """A choice of rows by id where an id that is not a number within ``MAX_ID`` is an invalid choice
    (a 2^63 id reached SQLite as an OverflowError, a 500)."""

    def _check_values(self, value):
        for pk in value:
            text = str(pk)
            if not text.isdigit() or int(text) > MAX_ID:
                raise forms.ValidationError(
                    self.error_messages["invalid_pk_value"], code="invalid_pk_value", params={"pk": text[:40]}
                )
        return super()._check_values(value)  # type: ignore[misc]  # Django's own method; its stub leaves it out


class CrowdSettingsForm(forms.ModelForm):
    completion_url = forms.URLField(
        required=False,
        assume_scheme="https",
        max_length=Campaign._meta.get_field("completion_url").max_length,
        label="Completion URL (without the code)",
        help_text="For Prolific: https://app.prolific.com/submissions/complete (the code is added as ?cc=).",
    )
    items_per_session = forms.IntegerField(
        required=False, min_value=1, label="Items per HIT or study session (empty: no cap)"
    )
    lab_raters = BoundedModelMultipleChoiceField(
        queryset=crowd.lab_rater_choices(),
        required=False,
        label="Lab raters this campaign lists",
        help_text="Used when lab raters may rate is 'only the lab raters the campaign lists'.",
    )

    class Meta:
        model = Campaign
        fields = list(crowd.SETTINGS)
        labels = {
            "mturk_enabled": "Let workers in from Mechanical Turk",
            "prolific_enabled": "Let participants in from Prolific",
            "completion_code": "Completion code",
            "screening_code": "Screening code (for raters who fail the control items)",
            "count_reconciled_only": "Count a crowd rating only once the platform's records verify its session",
            "lab_access": "Lab raters who may rate (crowd workers enter only by the addresses below)",
        }

    def clean(self):
        cleaned = super().clean()
        for name, message in crowd.settings_problems(cleaned).items():
            self.add_error(name, message)
        return cleaned


class SubmissionsUploadForm(forms.Form):
    platform = forms.ChoiceField(
        choices=[(MTURK, "Mechanical Turk batch results (CSV)"), (PROLIFIC, "Prolific submissions export (CSV)")]
    )
    file = UploadField(label="The platform's export")
    replace = forms.BooleanField(
        required=False, label="This file is the whole record: sessions it does not confirm are no longer verified"
    )


def _page(request, campaign, form, status=HTTPStatus.OK, upload_form=None, reconciliation=None):
    base = request.build_absolute_uri("/")
    mturk_url = crowd.entry_url(base, campaign, MTURK)
    try:
        question, question_error = external_question_xml(mturk_url, AUTO_FRAME_HEIGHT), ""
    except ExternalQuestionError as error:
        question, question_error = "", str(error)
    return render(
        request,
        "campaigns/crowd_settings.html",
        {
            "campaign": campaign,
            "form": form,
            "mturk_url": mturk_url,
            "question": question,
            "question_error": question_error,
            "prolific_url": crowd.entry_url(base, campaign, PROLIFIC),
            "reviews": crowd.session_reviews(campaign),
            "min_control_ratings": quality.MIN_CONTROL_RATINGS,
            "upload_form": upload_form or SubmissionsUploadForm(),
            "reconciliation": reconciliation,
            "crowd_counts": crowd_session_counts(campaign),
        },
        status=status,
    )


@roles.organizer_required
@require_http_methods(["GET", "POST"])
def crowd_settings(request, campaign_id):
    """GET: the campaign's crowd settings (which platforms may enter, the codes, the cap, reconciliation),
    its ExternalQuestion and study URL (with the crowd key), and its crowd sessions. POST: save the settings.

    Security: organizers only (login, then 403). Changes only on POST with CSRF; an invalid
    value changes nothing and shows the form again with the error next to its field.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    if request.method == "GET":
        return _page(request, campaign, CrowdSettingsForm(instance=campaign))
    form = CrowdSettingsForm(request.POST, instance=Campaign.objects.get(pk=campaign.pk))
    if not form.is_valid():
        return _page(request, campaign, form, status=400)
    crowd.save_settings(campaign, **form.cleaned_data)
    messages.success(request, "Crowd settings saved.")
    return redirect(reverse("campaigns:crowd", kwargs={"campaign_id": campaign.pk}))


@roles.organizer_required
@require_POST
def rotate_key(request, campaign_id):
    """Give the campaign a new crowd key: its entry addresses change, the old ones answer 404 at once.

    Security: organizers only (login, then 403); POST with CSRF only.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    crowd.rotate_key(campaign)
    messages.success(
        request,
        "New entry addresses made: the old ones no longer let anyone in. Update the HIT "
        "and the study with the addresses below.",
    )
    return redirect(reverse("campaigns:crowd", kwargs={"campaign_id": campaign.pk}))


@roles.organizer_required
@require_POST
def import_submissions(request, campaign_id):
    """Reconcile the campaign's crowd sessions with a platform's export (MTurk batch results, Prolific submissions).

    Security: organizers only (login, then 403); POST with CSRF; uploads above
    COMVE_MAX_UPLOAD_BYTES are refused. Atomic: a file with a problem changes nothing and every
    problem is listed (file, line, column).
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    form = SubmissionsUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, campaign, CrowdSettingsForm(instance=campaign), status=400, upload_form=form)
    try:
        result = crowd.import_crowd_submissions(
            campaign, form.cleaned_data["platform"], form.cleaned_data["file"], replace=form.cleaned_data["replace"]
        )
    except FormatError as error:
        for problem in error.problems:
            form.add_error("file", str(problem))
        return _page(request, campaign, CrowdSettingsForm(instance=campaign), status=400, upload_form=form)
    return _page(request, campaign, CrowdSettingsForm(instance=campaign), reconciliation=result)


crowd_sessions_download = campaign_download(exports.crowd_sessions, roles.organizer_required)
