"""The data pages: organizers import and upload and see the same problems as the command
line; everybody else is refused; nothing changes on GET or without a CSRF token."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from core.models import Dataset, System
from evalapp.models import Submission
from tests.data.helpers import PAIR_ANSWERS, PAIRS, REFERENCES, STATEMENTS, SUBMISSION, db_counts, import_mini

pytestmark = pytest.mark.django_db

FORBIDDEN, BAD_REQUEST = 403, 400


def upload(name, data):
    return SimpleUploadedFile(name, data, content_type="text/csv")


def dataset_form(**files):
    form = {
        "name": "mini",
        "split": "test",
        "statements": upload("statements.csv", STATEMENTS),
        "references": upload("references.csv", REFERENCES),
    }
    form.update(files)
    return form


def submission_form(data=SUBMISSION, **fields):
    return {"system": "Team", "marker": "*", "file": upload("sub.csv", data), **fields}


@pytest.fixture
def organizer_client(client, organizer):
    client.force_login(organizer)
    return client


def test_organizer_imports_a_dataset_and_uploads_a_submission(organizer_client, organizer):
    response = organizer_client.post(
        reverse("data:import_dataset"),
        dataset_form(pairs=upload("pairs.csv", PAIRS), pair_answers=upload("answers.csv", PAIR_ANSWERS)),
    )
    dataset = Dataset.objects.get(name="mini")
    assert response.status_code == 302 and response.url == reverse("data:dataset", args=[dataset.pk])
    assert dataset.instances.exclude(true_sent="").count() == 3
    response = organizer_client.post(
        reverse("data:upload_submission", args=[dataset.pk]), submission_form(), follow=True
    )
    assert response.status_code == 200
    submission = Submission.objects.get()
    assert submission.uploaded_by == organizer and submission.system.display_name == "Team*"
    page = response.content.decode()
    assert "Imported 3 reasons of &#x27;Team*&#x27;; official BLEU" in page
    assert f"{submission.official_bleu:.4f}" in page
    index = organizer_client.get(reverse("data:index")).content.decode()
    assert "Team*" in index and f"{submission.official_bleu:.4f}" in index


def test_upload_errors_are_shown_like_the_command_line_and_nothing_is_written(organizer_client):
    dataset = import_mini()
    before = db_counts()
    response = organizer_client.post(
        reverse("data:upload_submission", args=[dataset.pk]), submission_form(b"1,a\n1,b\n7,c\n")
    )
    assert response.status_code == BAD_REQUEST
    rows = [(str(p.line), str(p.column), p.message) for p in response.context["problems"]]
    assert ("2", "1", "id '1' repeated (first on line 1)") in rows
    assert ("3", "1", "id '7' is not in dataset 'mini'") in rows
    page = response.content.decode()
    assert "Import refused: nothing was written" in page and "id &#x27;7&#x27; is not in dataset" in page
    assert db_counts() == before


def test_an_upload_with_encoding_quoting_and_id_problems_lists_them_all_at_once(organizer_client):
    dataset = import_mini()
    before = db_counts()
    response = organizer_client.post(
        reverse("data:upload_submission", args=[dataset.pk]),
        submission_form(b'1,Caf\xe9\n2,\n3,"open quote\n3,again\n8,unknown\n'),
    )
    assert response.status_code == BAD_REQUEST
    rows = sorted((p.line, p.message.split(";")[0].split(" (")[0]) for p in response.context["problems"])
    assert rows == [
        (1, "not valid UTF-8"),
        (2, "empty reason for id '2'"),
        (3, "malformed CSV: unexpected end of data"),
        (4, "id '3' repeated"),
        (5, "id '8' is not in dataset 'mini'"),
    ]
    assert db_counts() == before


def test_dataset_import_errors_are_listed(organizer_client):
    response = organizer_client.post(
        reverse("data:import_dataset"), dataset_form(statements=upload("statements.csv", STATEMENTS.split(b"\n", 1)[1]))
    )
    assert response.status_code == BAD_REQUEST
    first = response.context["problems"][0]
    assert (first.file, first.line) == ("statements.csv", 1)
    assert Dataset.objects.count() == 0


def test_partial_upload_through_the_form(organizer_client):
    dataset = import_mini()
    url = reverse("data:upload_submission", args=[dataset.pk])
    assert organizer_client.post(url, submission_form(b"1,a\n")).status_code == BAD_REQUEST
    response = organizer_client.post(url, submission_form(b"1,a\n", allow_partial="on"), follow=True)
    assert "no official BLEU (partial)" in response.content.decode()
    assert Submission.objects.get().partial


def test_oversized_upload_is_refused(organizer_client, settings):
    dataset = import_mini()
    settings.COMVE_MAX_UPLOAD_BYTES = 10
    response = organizer_client.post(reverse("data:upload_submission", args=[dataset.pk]), submission_form())
    assert response.status_code == BAD_REQUEST
    assert f"sub.csv: file is {len(SUBMISSION):,} bytes; the limit is 10 bytes" in response.content.decode()
    assert System.objects.count() == 0


def test_get_pages_change_nothing(organizer_client):
    dataset = import_mini()
    before = db_counts()
    for url in (
        reverse("data:index"),
        reverse("data:import_dataset"),
        reverse("data:dataset", args=[dataset.pk]),
        reverse("data:upload_submission", args=[dataset.pk]),
    ):
        assert organizer_client.get(url).status_code == 200, url
    assert (
        organizer_client.get(
            reverse("data:upload_submission", args=[dataset.pk]), {"system": "X", "marker": ""}
        ).status_code
        == 200
    )
    assert db_counts() == before


def test_post_without_csrf_token_is_refused(organizer):
    dataset = import_mini()
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    response = client.post(reverse("data:upload_submission", args=[dataset.pk]), submission_form())
    assert response.status_code == FORBIDDEN
    assert System.objects.count() == 0


@pytest.mark.parametrize("who", ["rater_user", "researcher"])
def test_other_roles_are_refused(client, request, who):
    dataset = import_mini()
    client.force_login(request.getfixturevalue(who))
    for url in (reverse("data:index"), reverse("data:import_dataset"), reverse("data:dataset", args=[dataset.pk])):
        assert client.get(url).status_code == FORBIDDEN, url
    response = client.post(reverse("data:upload_submission", args=[dataset.pk]), submission_form())
    assert response.status_code == FORBIDDEN
    assert System.objects.count() == 0


def test_anonymous_users_are_sent_to_log_in(client):
    dataset = import_mini()
    response = client.post(reverse("data:upload_submission", args=[dataset.pk]), submission_form())
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert client.get(reverse("data:index")).status_code == 302
    assert System.objects.count() == 0
