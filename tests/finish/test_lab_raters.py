"""Lab rater accounts without the admin: the CSV reader, the service, the page, the API, the command, and
the one-time sign-in link."""

import csv
import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from core.models import Campaign, Rater
from core.problems import FormatError
from evalapp.formats.rater_list import read_rater_list
from evalapp.services import lab_raters
from evalapp.services.campaigns import create_campaign
from tests.engine.builders import build_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

FIVE = (
    b"name,email\nAda Lovelace,ada@example.org\nAlan Turing,alan@example.org\nGrace Hopper,grace@example.org\n"
    b"Edsger Dijkstra,edsger@example.org\nBarbara Liskov,barbara@example.org\n"
)
BAD = (
    b"Name,Email,Group\nAda,ada@example.org,1\n,alan@example.org,1\nGrace,not-an-address,2\n"
    b"Edsger,ADA@example.org,2\nBarbara,barbara@example.org\n"
)


@pytest.fixture
def campaign():
    return create_campaign(build_dataset(instances=2, systems=("alpha",)), "lab", sample=2, seed=1)


def logs_in(client, username, password):
    """Through the login page, as a rater would (django-axes needs the request)."""
    signed_in = client.post("/accounts/login/", {"username": username, "password": password}).status_code == 302
    client.logout()
    return signed_in


def problems_of(data):
    with pytest.raises(FormatError) as error:
        read_rater_list(data, "raters.csv")
    return [(p.line, p.column, p.message) for p in error.value.problems]


def test_the_reader_reports_every_problem_of_the_file_with_line_and_column():
    assert problems_of(BAD) == [
        (6, None, "2 fields where the header has 3"),
        (3, "name", "the name is empty"),
        (4, "email", "this is not an email address"),
        (5, "email", "the same email is on line 2"),
    ]
    assert problems_of(b"") == [(None, None, "the file is empty: give a header line 'name,email' and one rater a line")]
    assert problems_of(b"name,mail\nA,a@b.org\n") == [
        (1, None, "the header needs the column email (found: name, mail)")
    ]
    assert problems_of(b"name,email\n") == [(None, None, "the file lists no rater below its header")]
    entries = read_rater_list(FIVE, "raters.csv")
    assert [(e.line, e.name, e.email) for e in entries][:2] == [
        (2, "Ada Lovelace", "ada@example.org"),
        (3, "Alan Turing", "alan@example.org"),
    ]


def test_accounts_are_made_all_or_nothing_and_listed_on_the_campaign(campaign, organizer):
    get_user_model().objects.create_user("grace@example.org")
    entries = read_rater_list(FIVE, "raters.csv")
    with pytest.raises(lab_raters.LabRaterError) as error:
        lab_raters.add_lab_raters(campaign, entries, lab_raters.PASSWORD, by=organizer, filename="raters.csv")
    assert [str(p) for p in error.value.problems] == [
        "raters.csv, line 4, column email: an account with this email exists already"
    ]
    assert not Campaign.lab_raters.through.objects.exists() and Rater.objects.count() == 0
    made = lab_raters.add_lab_raters(campaign, [e for e in entries if e.line != 4], lab_raters.PASSWORD, by=organizer)
    assert [c.username for c in made] == [
        "ada@example.org",
        "alan@example.org",
        "edsger@example.org",
        "barbara@example.org",
    ]
    assert all(len(c.password) == 14 and c.link is None for c in made)
    user = get_user_model().objects.get(username="ada@example.org")
    assert user.check_password(made[0].password) and user.first_name == "Ada Lovelace" and user.rater.platform == "site"
    assert [r.name for r in lab_raters.lab_raters(campaign)] == [
        "Ada Lovelace",
        "Alan Turing",
        "Edsger Dijkstra",
        "Barbara Liskov",
    ]
    assert campaign.lab_raters.count() == 4


def test_a_sign_in_link_works_once_and_a_new_one_voids_the_old(campaign, client):
    [made] = lab_raters.add_lab_raters(campaign, read_rater_list(b"name,email\nAda,ada@example.org\n", "r.csv"))
    assert made.password is None and made.link.startswith("/accounts/link/")
    page = client.get(made.link)
    assert page.status_code == 200 and b"Sign in as Ada" in page.content
    assert "_auth_user_id" not in client.session  # a GET (a preview, a prefetch) signs no one in
    response = client.post(made.link)
    assert response.status_code == 302 and client.session["_auth_user_id"]
    client.logout()
    assert client.post(made.link).status_code == 400  # used
    renewed = lab_raters.reset_sign_in(campaign, made.rater_id, lab_raters.LINK)
    older = lab_raters.reset_sign_in(campaign, made.rater_id, lab_raters.LINK)
    assert client.get(renewed.link).status_code == 400  # replaced by a newer link
    assert client.post(older.link).status_code == 302
    assert client.get("/accounts/link/xx/yy/").status_code == 400


def test_a_password_reset_token_of_an_organizer_is_no_sign_in_link(client, organizer):
    from django.contrib.auth.tokens import default_token_generator

    path = lab_raters.sign_in_path(organizer)  # a valid Django token, but not a lab account's
    assert default_token_generator.check_token(organizer, path.rstrip("/").rsplit("/", 1)[1])
    assert client.post(path).status_code == 400 and "_auth_user_id" not in client.session


def test_deactivation_stops_the_sign_in_and_a_new_password_reactivates(campaign, client):
    [made] = lab_raters.add_lab_raters(
        campaign, read_rater_list(b"name,email\nAda,ada@example.org\n", "r.csv"), lab_raters.PASSWORD
    )
    assert logs_in(client, "ada@example.org", made.password)
    assert lab_raters.deactivate(campaign, made.rater_id)[1]
    assert lab_raters.deactivate(campaign, made.rater_id)[1] is False
    assert not logs_in(client, "ada@example.org", made.password)
    renewed = lab_raters.reset_sign_in(campaign, made.rater_id, lab_raters.PASSWORD)
    assert renewed.password != made.password
    assert logs_in(client, "ada@example.org", renewed.password)
    other = create_campaign(build_dataset(name="o", instances=1, systems=("x",)), "other", sample=1, seed=1)
    assert lab_raters.deactivate(other, made.rater_id) is None
    assert lab_raters.reset_sign_in(other, made.rater_id) is None


def test_the_page_creates_from_a_csv_and_lists_every_problem_otherwise(campaign, client, organizer, rater_user):
    url = f"/campaigns/{campaign.pk}/raters/"
    client.force_login(rater_user)
    assert client.get(url).status_code == 403
    assert client.post(url + "add/", {"name": "X", "email": "x@example.org", "sign_in": "link"}).status_code == 403
    client.force_login(organizer)
    assert client.get(url).status_code == 200
    refused = client.post(url + "add/", {"raters": SimpleUploadedFile("bad.csv", BAD), "sign_in": "link"})
    assert refused.status_code == 400
    text = refused.content.decode()
    assert "Import refused: nothing was written" in text and "the same email is on line 2" in text
    assert not Campaign.lab_raters.through.objects.exists()
    made = client.post(url + "add/", {"raters": SimpleUploadedFile("five.csv", FIVE), "sign_in": "password"})
    assert made.status_code == 200 and made.context["credentials"][4].username == "barbara@example.org"
    assert "shown only now" in made.content.decode()
    one = client.post(url + "add/", {"name": "Ann <b>", "email": "ann@example.org", "sign_in": "link"})
    assert one.status_code == 200 and "Ann &lt;b&gt;" in one.content.decode()
    assert re.search(r"http://testserver/accounts/link/[^<\s]+", one.content.decode())
    rater_id = campaign.lab_raters.get(user__username="ann@example.org").pk
    assert client.get(url + f"{rater_id}/deactivate/").status_code == 405
    assert client.post(url + f"{rater_id}/deactivate/").status_code == 302
    assert not get_user_model().objects.get(username="ann@example.org").is_active
    reset = client.post(url + f"{rater_id}/reset/", {"sign_in": "password"})
    assert reset.status_code == 200 and reset.context["credentials"][0].password
    assert client.post(url + f"{rater_user.rater.pk}/reset/", {"sign_in": "link"}).status_code == 404


def test_the_api_creates_from_json_or_csv_all_or_nothing(campaign, organizer):
    api = APIClient()
    api.force_authenticate(organizer)
    url = f"/api/campaigns/{campaign.pk}/lab-raters/"
    refused = api.post(
        url, {"raters": [{"name": "A", "email": "a@example.org"}, {"name": "", "email": "bad"}]}, format="json"
    )
    assert refused.status_code == 400
    assert [(p["line"], p["column"]) for p in refused.json()["problems"]] == [(2, "name"), (2, "email")]
    made = api.post(url, {"file": SimpleUploadedFile("five.csv", FIVE), "sign_in": "link"}, format="multipart")
    assert made.status_code == 201 and len(made.json()) == 5
    assert made.json()[0]["link"].startswith("http://testserver/accounts/link/")
    listed = api.get(url).json()["results"]
    assert [r["username"] for r in listed][:1] == ["ada@example.org"] and not listed[0]["signed_in"]
    rater_id = listed[0]["rater_id"]
    password = api.post(url + f"{rater_id}/sign-in/", {"sign_in": "password"}, format="json").json()["password"]
    assert get_user_model().objects.get(username="ada@example.org").check_password(password)
    off = api.post(url + f"{rater_id}/deactivation/", format="json")
    assert off.status_code == 200 and off.json()["active"] is False
    assert api.post(url, {"raters": [], "sign_in": "link"}, format="json").status_code == 400


def test_the_command_creates_lists_renews_and_deactivates(campaign, tmp_path):
    path = tmp_path / "raters.csv"
    path.write_bytes(FIVE)
    out = io.StringIO()
    call_command(
        "lab_raters",
        campaign="lab",
        csv=str(path),
        sign_in="link",
        base_url="https://eval.example.org/",
        stdout=out,
        stderr=io.StringIO(),
    )
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [row["username"] for row in rows][:2] == ["ada@example.org", "alan@example.org"]
    assert rows[0]["link"].startswith("https://eval.example.org/accounts/link/") and rows[0]["password"] == ""
    bad = tmp_path / "bad.csv"
    bad.write_bytes(BAD)
    with pytest.raises(CommandError, match=r"No account was created. 4 problem\(s\):\n.*bad.csv, line 6"):
        call_command("lab_raters", campaign="lab", csv=str(bad), stdout=io.StringIO())
    out = io.StringIO()
    call_command("lab_raters", campaign="lab", renew="ADA@example.org", sign_in="password", stdout=out)
    password = list(csv.DictReader(io.StringIO(out.getvalue())))[0]["password"]
    assert get_user_model().objects.get(username="ada@example.org").check_password(password)
    out = io.StringIO()
    call_command("lab_raters", campaign="lab", deactivate="ada@example.org", stdout=out)
    assert out.getvalue() == "Deactivated ada@example.org.\n"
    out = io.StringIO()
    call_command("lab_raters", campaign="lab", stdout=out)
    assert out.getvalue().splitlines()[1].startswith("Ada Lovelace,ada@example.org,0,no,")
    with pytest.raises(CommandError, match="'nobody' is not a lab account of 'lab'"):
        call_command("lab_raters", campaign="lab", deactivate="nobody")
