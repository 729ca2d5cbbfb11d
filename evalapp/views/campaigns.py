"""URLs and views of the 'campaigns' area: the campaign list, the creation form, one campaign.

The form calls the same service as ``manage.py create_campaign`` and shows its problems
next to the fields they are about. Every view is for organizers only.
"""

from typing import Any, cast

from django import forms
from django.contrib import messages
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.defaults import (
    DEFAULT_CONTROL_RATE,
    DEFAULT_LEASE_SECONDS,
    DEFAULT_RATERS_PER_ITEM,
    DEFAULT_TIE_MARGIN,
    MAX_LEASE_SECONDS,
    MAX_RATERS_PER_ITEM,
    MAX_TIE_MARGIN,
    MIN_LEASE_SECONDS,
    MIN_TIE_MARGIN,
    NAME_MAX_CHARS,
    PAPER_SAMPLE_SIZE,
    RUBRIC_LABEL_MAX_CHARS,
    SECONDS_PER_MINUTE,
)
from core.models import Campaign, Dataset, default_rubric
from core.problems import FormatError
from core.progress import campaign_progress, campaign_stall, with_progress
from core.roles import organizer_required
from evalapp.formats.instance_list import read_instance_list
from evalapp.formats.rubric import SCORES
from evalapp.services.campaigns import (
    campaign_summary,
    create_campaign,
    set_campaign_status,
)
from evalapp.views.data import UploadField

BAD_REQUEST = 400
PASTED_IDS = "pasted ids"
# create_campaign parameters whose form field has another name.
FORM_FIELDS = {
    "lease_seconds": "lease_minutes",
    "instance_ids": "instance_file",
    "share_identical_outputs": "share_identical",
}


class CampaignForm(forms.Form):
    """What ``create_campaign`` takes, as a form; the service does the real validation."""

    ALL, SAMPLE, LIST = "all", "sample", "list"

    name = forms.CharField(max_length=NAME_MAX_CHARS, help_text="A new, unique name, e.g. comve-test-2020.")
    selection = forms.ChoiceField(
        label="Instances",
        widget=forms.RadioSelect,
        initial=SAMPLE,
        choices=[
            (SAMPLE, "A seeded random sample"),
            (LIST, "Exactly the instances I list"),
            (ALL, "Every instance of the dataset"),
        ],
    )
    sample = forms.IntegerField(
        required=False, min_value=1, label="Sample size", help_text="How many instances to draw (the paper: 100)."
    )
    seed = forms.IntegerField(required=False, min_value=0, help_text="Stored with the campaign; empty: one is drawn.")
    instance_file = UploadField(required=False, label="Instance list file", help_text="One id a line.")
    instance_text = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 4}), label="Or paste the ids", help_text="One id a line."
    )
    systems = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: every system with a reason for every campaign instance.",
    )
    human_reference = forms.TypedChoiceField(
        required=False,
        coerce=int,
        empty_value=None,
        label="Human pseudo-system",
        choices=[("", "none"), (1, "reference 1"), (2, "reference 2"), (3, "reference 3")],
        help_text="Rate one human reference per instance as the system 'Human' (the paper's 2.58).",
    )
    raters_per_item = forms.IntegerField(
        initial=DEFAULT_RATERS_PER_ITEM, min_value=1, max_value=MAX_RATERS_PER_ITEM, label="Raters per item (M)"
    )
    lease_minutes = forms.IntegerField(
        initial=DEFAULT_LEASE_SECONDS // SECONDS_PER_MINUTE,
        min_value=MIN_LEASE_SECONDS // SECONDS_PER_MINUTE,
        max_value=MAX_LEASE_SECONDS // SECONDS_PER_MINUTE,
        label="Lease (minutes)",
        help_text="How long an item stays reserved for the rater who got it.",
    )
    control_rate = forms.FloatField(
        initial=DEFAULT_CONTROL_RATE,
        min_value=0.0,
        max_value=1.0,
        widget=forms.NumberInput(attrs={"step": "0.01"}),
        help_text="Control items per system item, 0-1 (e.g. 0.1).",
    )
    share_identical = forms.BooleanField(
        required=False,
        label="Rate identical reasons of an instance once",
        help_text="The score is shared by every system that gave the same reason.",
    )
    instructions = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), help_text="Shown to raters before the rubric."
    )
    mturk_enabled = forms.BooleanField(
        required=False,
        label="Let workers in from Mechanical Turk",
        help_text="Off: no one can enter from a HIT (you can change it on the crowd page).",
    )
    prolific_enabled = forms.BooleanField(
        required=False,
        label="Let participants in from Prolific",
        help_text="Off: no one can enter from a study (you can change it later).",
    )
    tie_margin = forms.FloatField(
        required=False,
        initial=DEFAULT_TIE_MARGIN,
        min_value=MIN_TIE_MARGIN,
        max_value=MAX_TIE_MARGIN,
        widget=forms.NumberInput(attrs={"step": "0.01"}),
        label="Tie margin (0-3 scale)",
        help_text="Stopping early: two systems closer than this may be decided a tie. "
        f"Fixed now, before any rating (empty: {DEFAULT_TIE_MARGIN}).",
    )
    racing = forms.BooleanField(
        required=False,
        label="Racing: stop rating systems whose comparisons are decided",
        help_text="Off (the paper's protocol): every system is rated on every instance.",
    )

    def __init__(self, *args, dataset, **kwargs):
        super().__init__(*args, **kwargs)
        self.dataset = dataset
        cast(forms.MultipleChoiceField, self.fields["systems"]).choices = [
            (system.name, f"{system.display_name} ({system.output_count} reasons)")
            for system in dataset.systems.filter(is_human=False)
            .annotate(output_count=Count("outputs"))
            .order_by("name")
        ]
        self.fields["sample"].initial = min(PAPER_SAMPLE_SIZE, dataset.instances.count())
        for entry in default_rubric():
            score = entry["score"]
            self.fields[f"rubric_label_{score}"] = forms.CharField(
                max_length=RUBRIC_LABEL_MAX_CHARS, initial=entry["label"], label=f"Score {score}: label"
            )
            self.fields[f"rubric_description_{score}"] = forms.CharField(
                required=False,
                initial=entry["description"],
                label=f"Score {score}: description",
                widget=forms.Textarea(attrs={"rows": 2}),
            )

    def rubric_fields(self):
        return [(self[f"rubric_label_{score}"], self[f"rubric_description_{score}"]) for score in SCORES]

    def service_arguments(self):
        """The cleaned form as ``create_campaign`` keyword arguments; raises FormatError for a bad id list."""
        data = self.cleaned_data
        selection = data["selection"]
        instance_ids = None
        if selection == self.LIST:
            source = data["instance_file"]
            instance_ids = (
                read_instance_list(source.data, source.name)
                if source
                else read_instance_list(data["instance_text"], PASTED_IDS)
            )
        return {
            "sample": data["sample"] if selection == self.SAMPLE else None,
            "seed": data["seed"],
            "instance_ids": instance_ids,
            "systems": data["systems"] or None,
            "human_reference": data["human_reference"],
            "raters_per_item": data["raters_per_item"],
            "lease_seconds": data["lease_minutes"] * SECONDS_PER_MINUTE,
            "control_rate": data["control_rate"],
            "share_identical_outputs": data["share_identical"],
            "instructions": data["instructions"],
            "mturk_enabled": data["mturk_enabled"],
            "prolific_enabled": data["prolific_enabled"],
            "tie_margin": DEFAULT_TIE_MARGIN if data["tie_margin"] is None else data["tie_margin"],
            "racing": data["racing"],
            "rubric": [
                {
                    "score": score,
                    "label": data[f"rubric_label_{score}"],
                    "description": data[f"rubric_description_{score}"],
                }
                for score in SCORES
            ],
        }

    def clean(self) -> dict[str, Any]:
        data = cast(dict[str, Any], super().clean())  # Form.clean returns cleaned_data
        selection = data.get("selection")
        if selection == self.SAMPLE and not data.get("sample"):
            self.add_error("sample", "Give the sample size.")
        if selection == self.LIST and not data.get("instance_file") and not (data.get("instance_text") or "").strip():
            self.add_error("instance_file", "Upload a list of instance ids or paste them below.")
        return data

    def show_problems(self, error):
        """Put each problem of a refused campaign next to its field (the rest above the form)."""
        fields = getattr(error, "fields", [None] * len(error.problems))
        for field, problem in zip(fields, error.problems):
            target = FORM_FIELDS.get(field, field)
            message = problem.message if problem.file == field else str(problem)
            if target in self.fields:
                self.add_error(target, message)
            else:
                self.add_error(None, f"{field}: {message}" if field else message)


@require_GET
@organizer_required
def index(request):
    """Every campaign with its progress (ratings collected of ratings needed, controls apart).

    Security: organizers only (login required, then 403); read-only.
    """
    campaigns = with_progress(Campaign.objects.listed())
    return render(request, "campaigns/index.html", {"campaigns": campaigns})


@require_http_methods(["GET", "POST"])
@organizer_required
def create(request):
    """GET: choose a dataset, then the campaign form. POST: create the campaign (atomic) or show every problem.

    Security: organizers only (login required, then 403); changes only on POST with CSRF;
    uploads above COMVE_MAX_UPLOAD_BYTES are refused.
    """
    datasets = Dataset.objects.with_counts()
    dataset_id = request.POST.get("dataset") or request.GET.get("dataset")
    if not dataset_id and len(datasets) == 1:
        dataset_id = datasets[0].pk
    if not dataset_id:
        return render(request, "campaigns/choose_dataset.html", {"datasets": datasets})
    dataset = get_object_or_404(Dataset, pk=dataset_id) if str(dataset_id).isdigit() else None
    if dataset is None:
        return render(request, "campaigns/choose_dataset.html", {"datasets": datasets}, status=BAD_REQUEST)
    bound = request.method == "POST"
    form = CampaignForm(request.POST if bound else None, request.FILES if bound else None, dataset=dataset)
    if bound and form.is_valid():
        try:
            campaign = create_campaign(
                dataset, form.cleaned_data["name"], created_by=request.user, **form.service_arguments()
            )
        except FormatError as error:
            form.show_problems(error)
        else:
            summary = campaign_summary(campaign)
            messages.success(
                request,
                f"Created campaign '{campaign.name}': {summary['items']} items "
                f"({summary['control_items']} control items), {summary['ratings_expected']:,} "
                f"ratings to collect; seed {campaign.seed}.",
            )
            return redirect("campaigns:detail", campaign_id=campaign.pk)
    status = BAD_REQUEST if bound else 200
    return render(request, "campaigns/create.html", {"form": form, "dataset": dataset}, status=status)


@require_GET
@organizer_required
def detail(request, campaign_id):
    """One campaign: its settings and its progress overall and per system (system names shown).

    Security: organizers only (login required, then 403); read-only; the open/close button
    posts to ``campaigns:status``.
    """
    campaign = get_object_or_404(Campaign.objects.select_related("dataset", "created_by"), pk=campaign_id)
    return render(
        request,
        "campaigns/detail.html",
        {
            "campaign": campaign,
            "summary": campaign_summary(campaign),
            "progress": campaign_progress(campaign),
            "stall": campaign_stall(campaign),
        },
    )


@require_POST
@organizer_required
def status(request, campaign_id):
    """Open or close a campaign: a closed one hands out no items and takes no ratings.

    Security: organizers only (login required, then 403); POST with CSRF only.
    """
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    wanted = request.POST.get("status")
    if wanted not in Campaign.Status.values:
        messages.error(request, f"Unknown status {wanted!r}.")
    else:
        set_campaign_status(campaign, wanted)
        messages.success(request, f"Campaign '{campaign.name}' is now {wanted}.")
    return redirect("campaigns:detail", campaign_id=campaign.pk)
