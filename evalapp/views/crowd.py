"""The organizer's crowd-platform page of a campaign: settings, HIT and study addresses, sessions."""
from django import forms
from django.contrib import messages
from django.core.validators import RegexValidator
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_http_methods

from core import quality, roles
from core.crowd import MTURK, PROLIFIC
from core.models import Campaign
from evalapp.formats.external_question import AUTO_FRAME_HEIGHT, ExternalQuestionError, external_question_xml
from evalapp.services import crowd, exports
from evalapp.views.common import campaign_download

CODE_CHARACTERS = RegexValidator(r"^[A-Za-z0-9_-]*$", "Use letters, digits, '-' and '_' only.")


class CrowdSettingsForm(forms.ModelForm):
    completion_url = forms.URLField(
        required=False, assume_scheme="https", max_length=Campaign._meta.get_field("completion_url").max_length,
        label="Completion URL (without the code)",
        help_text="For Prolific: https://app.prolific.com/submissions/complete (the code is added as ?cc=).")
    items_per_session = forms.IntegerField(required=False, min_value=1,
                                           label="Items per HIT or study session (empty: no cap)")

    class Meta:
        model = Campaign
        fields = ["completion_url", "completion_code", "screening_code", "items_per_session"]
        labels = {
            "completion_code": "Completion code",
            "screening_code": "Screening code (for raters who fail the control items)",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("completion_code", "screening_code"):
            self.fields[name].validators.append(CODE_CHARACTERS)

    def clean(self):
        cleaned = super().clean()
        completion_code, screening_code = cleaned.get("completion_code"), cleaned.get("screening_code")
        if screening_code and screening_code == completion_code:
            self.add_error("screening_code", "The screening code must differ from the completion code.")
        return cleaned


def _page(request, campaign, form, status=200):
    base = request.build_absolute_uri("/")
    mturk_url = crowd.entry_url(base, campaign, MTURK)
    try:
        question, question_error = external_question_xml(mturk_url, AUTO_FRAME_HEIGHT), ""
    except ExternalQuestionError as error:
        question, question_error = "", str(error)
    return render(request, "campaigns/crowd_settings.html", {
        "campaign": campaign, "form": form, "mturk_url": mturk_url, "question": question,
        "question_error": question_error, "prolific_url": crowd.entry_url(base, campaign, PROLIFIC),
        "reviews": crowd.session_reviews(campaign), "min_control_ratings": quality.MIN_CONTROL_RATINGS,
    }, status=status)


@roles.organizer_required
@require_http_methods(["GET", "POST"])
def crowd_settings(request, campaign_id):
    """GET: the campaign's crowd settings, its ExternalQuestion and study URL, and its crowd sessions.
    POST: save the settings.

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


crowd_sessions_download = campaign_download(exports.crowd_sessions, roles.organizer_required)


urlpatterns = [
    path("<id:campaign_id>/crowd/", crowd_settings, name="crowd"),
    path("<id:campaign_id>/crowd-sessions.<str:fmt>", crowd_sessions_download, name="crowd_sessions_download"),
]
