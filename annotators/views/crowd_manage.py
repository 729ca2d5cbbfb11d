"""The organizer's crowd-platform page of a campaign: settings, HIT and study addresses, sessions."""
from django import forms
from django.contrib import messages
from django.core.validators import RegexValidator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from annotators import crowd, quality
from annotators.external_question import AUTO_FRAME_HEIGHT, ExternalQuestionError, external_question_xml
from evalapp import roles
from evalapp.formats.csvfile import write_csv
from evalapp.models import Campaign

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
    mturk_url = crowd.entry_url(base, campaign, crowd.MTURK)
    try:
        question, question_error = external_question_xml(mturk_url, AUTO_FRAME_HEIGHT), ""
    except ExternalQuestionError as error:
        question, question_error = "", str(error)
    return render(request, "rate/crowd_settings.html", {
        "campaign": campaign, "form": form, "mturk_url": mturk_url, "question": question,
        "question_error": question_error, "prolific_url": crowd.entry_url(base, campaign, crowd.PROLIFIC),
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
    return redirect(reverse("annotators:crowd", kwargs={"campaign_id": campaign.pk}))


@roles.organizer_required
@require_GET
def crowd_sessions_csv(request, campaign_id):
    """The campaign's crowd sessions (worker, assignment or session id, ratings, code owed) as CSV.

    Security: organizers only (login, then 403). Read-only; cells neutralised by ``write_csv``.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    rows = [review.row() for review in crowd.session_reviews(campaign)]
    response = HttpResponse(write_csv(rows, header=crowd.SessionReview.COLUMNS), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="crowd-sessions-campaign-{campaign.pk}.csv"'
    return response
