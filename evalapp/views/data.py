"""URLs and views of the 'data' area: datasets, systems and the uploads that create them.

The forms call the same services as ``manage.py import_comve`` / ``import_submission`` and
show the same problems (file, line, column, message) when an upload is refused.
"""

from django import forms
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from core.defaults import RECENT_SUBMISSIONS
from core.models import Dataset
from core.problems import FormatError
from core.roles import organizer_required
from evalapp.models import Submission
from evalapp.options.imports import ComveImportOptions, SubmissionImportOptions
from evalapp.options.interfaces import options_form, options_of_form, source_of_upload
from evalapp.services.imports import import_comve_with, import_submission_with

BAD_REQUEST = 400


class UploadField(forms.FileField):
    """A file field that refuses files above ``COMVE_MAX_UPLOAD_BYTES`` and yields a SourceFile (the forms
    that are not a job's options; those get theirs from :mod:`evalapp.options.interfaces`)."""

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        if not upload:
            return None
        try:
            return source_of_upload(upload)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None


DatasetImportForm = options_form(ComveImportOptions)
SubmissionUploadForm = options_form(SubmissionImportOptions)


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
        options = options_of_form(ComveImportOptions, form)
        try:
            result = import_comve_with(options)
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
        options = options_of_form(SubmissionImportOptions, form)
        try:
            result = import_submission_with(dataset, options, user=request.user)
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
