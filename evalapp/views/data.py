"""URLs and views of the 'data' area: datasets, systems and the uploads that create them.

The forms call the same services as ``manage.py import_comve`` / ``import_submission`` and
show the same problems (file, line, column, message) when an upload is refused.
"""

from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from core.defaults import NAME_MAX_CHARS, RECENT_SUBMISSIONS
from core.models import Dataset, System
from core.problems import FormatError
from core.roles import organizer_required
from evalapp.formats.comve import SourceFile, too_large_message
from evalapp.models import Submission
from evalapp.services.imports import import_comve, import_submission

BAD_REQUEST = 400


class UploadField(forms.FileField):
    """A file field that refuses files above ``COMVE_MAX_UPLOAD_BYTES`` and yields a SourceFile."""

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        if not upload:
            return None
        limit = settings.COMVE_MAX_UPLOAD_BYTES
        if upload.size > limit:
            raise forms.ValidationError(f"{upload.name}: {too_large_message(upload.size, limit)}")
        return SourceFile(upload.name, upload.read())


class DatasetImportForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX_CHARS, help_text="A new name, e.g. comve-test.")
    split = forms.ChoiceField(choices=Dataset.Split.choices, initial=Dataset.Split.TEST)
    statements = UploadField(help_text="CSV with header id,FalseSent (subtaskC_test_data.csv).")
    references = UploadField(help_text="CSV id,ref1,ref2,ref3 without header (subtaskC_gold_answers.csv).")
    pairs = UploadField(required=False, help_text="Optional: CSV with header id,sent0,sent1 (subtaskA_test_data.csv).")
    pair_answers = UploadField(
        required=False,
        label="Pair answers",
        help_text="With the pairs: CSV id,k without header (subtaskA_gold_answers.csv).",
    )

    def clean(self) -> dict[str, Any]:
        data = cast(dict[str, Any], super().clean())  # Form.clean returns cleaned_data
        if bool(data.get("pairs")) != bool(data.get("pair_answers")):
            raise forms.ValidationError("The pairs file and the pair answers file go together.")
        return data


class SubmissionUploadForm(forms.Form):
    system = forms.CharField(max_length=NAME_MAX_CHARS, label="System name", help_text="As it appears in Table 6.")
    marker = forms.ChoiceField(choices=System.Marker.choices, required=False, initial=System.Marker.NONE)
    file = UploadField(label="Submission file", help_text="id,reason per line, no header, UTF-8.")
    allow_partial = forms.BooleanField(
        required=False, label="Accept a partial submission (a subset of the ids; no official BLEU)"
    )


def _systems_with_latest(dataset):
    return Submission.objects.latest_on(dataset.systems.filter(is_human=False)).order_by("name")


@require_GET
@organizer_required
def index(request):
    """The datasets, each with its systems and their official BLEU.

    Security: organizers only (login required, then 403); read-only.
    """
    datasets = Dataset.objects.with_counts()
    rows = [(dataset, _systems_with_latest(dataset)) for dataset in datasets]
    return render(request, "data/index.html", {"rows": rows})


@require_GET
@organizer_required
def dataset_detail(request, pk):
    """One dataset: its systems (BLEU, rows, submissions), recent uploads and the upload form.

    Security: organizers only (login required, then 403); read-only.
    """
    dataset = get_object_or_404(Dataset.objects.with_counts(), pk=pk)
    recent = Submission.objects.filter(system__dataset=dataset).select_related("system", "uploaded_by")[
        :RECENT_SUBMISSIONS
    ]
    return render(
        request,
        "data/dataset.html",
        {
            "dataset": dataset,
            "systems": _systems_with_latest(dataset),
            "recent": recent,
            "form": SubmissionUploadForm(),
        },
    )


@require_http_methods(["GET", "POST"])
@organizer_required
def import_dataset(request):
    """GET: the dataset import form. POST: import the files (atomic) or show every problem.

    Security: organizers only (login required, then 403); changes only on POST with CSRF;
    uploads above COMVE_MAX_UPLOAD_BYTES are refused.
    """
    bound = request.method == "POST"
    form = DatasetImportForm(request.POST if bound else None, request.FILES if bound else None)
    problems = []
    if bound and form.is_valid():
        data = form.cleaned_data
        try:
            result = import_comve(
                data["name"],
                data["statements"],
                data["references"],
                pairs=data["pairs"],
                pair_answers=data["pair_answers"],
                split=data["split"],
            )
        except FormatError as error:
            problems = error.problems
        else:
            messages.success(
                request,
                f"Imported dataset '{result.dataset.name}': {result.instances} instances, "
                f"{result.references} references.",
            )
            for warning in result.warnings:
                messages.warning(request, str(warning))
            return redirect("data:dataset", pk=result.dataset.pk)
    status = BAD_REQUEST if bound else 200
    return render(request, "data/import_dataset.html", {"form": form, "problems": problems}, status=status)


@require_http_methods(["GET", "POST"])
@organizer_required
def upload_submission(request, pk):
    """GET: the submission upload form. POST: import the file (atomic) or show every problem.

    Security: organizers only (login required, then 403); changes only on POST with CSRF;
    uploads above COMVE_MAX_UPLOAD_BYTES are refused.
    """
    dataset = get_object_or_404(Dataset, pk=pk)
    bound = request.method == "POST"
    form = SubmissionUploadForm(request.POST if bound else None, request.FILES if bound else None)
    problems = []
    if bound and form.is_valid():
        data = form.cleaned_data
        try:
            result = import_submission(
                dataset,
                data["system"],
                data["file"],
                marker=data["marker"] or "",
                allow_partial=data["allow_partial"],
                user=request.user,
            )
        except FormatError as error:
            problems = error.problems
        else:
            bleu = (
                "no official BLEU (partial)"
                if result.official_bleu is None
                else f"official BLEU {result.official_bleu:.4f}"
            )
            messages.success(request, f"Imported {result.rows} reasons of '{result.system.display_name}'; {bleu}.")
            for warning in result.warnings:
                messages.warning(request, str(warning))
            return redirect("data:dataset", pk=dataset.pk)
    status = BAD_REQUEST if bound else 200
    return render(
        request, "data/upload_submission.html", {"dataset": dataset, "form": form, "problems": problems}, status=status
    )
