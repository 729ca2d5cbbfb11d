"""Datasets, submissions and campaigns through the API: the same results as the commands,
the same problems (file, line, column) when refused, and nothing written then."""

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from core.models import Campaign, Dataset, Instance, Reference, System
from evalapp.models import Submission
from evalapp.services.campaigns import campaign_summary
from tests.api.world import REFERENCES, STATEMENTS, SYSTEMS

# Also run against PostgreSQL (second pass of scripts/test.sh): the API over the real engine.
pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def upload(name, data):
    return SimpleUploadedFile(name, data, content_type="text/csv")


def table_counts():
    return {
        model.__name__: model.objects.count() for model in (Dataset, Instance, Reference, System, Submission, Campaign)
    }


def test_dataset_import_creates_what_the_command_creates(world, tmp_path):
    response = world.client("organizer").post(
        "/api/datasets/",
        {
            "name": "via-api",
            "statements": upload("statements.csv", STATEMENTS),
            "references": upload("references.csv", REFERENCES),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    (tmp_path / "s.csv").write_bytes(STATEMENTS)
    (tmp_path / "r.csv").write_bytes(REFERENCES)
    call_command(
        "import_comve",
        "--name",
        "via-command",
        "--statements",
        str(tmp_path / "s.csv"),
        "--references",
        str(tmp_path / "r.csv"),
        stdout=StringIO(),
    )
    body = response.json()
    assert body["id"] == Dataset.objects.get(name="via-api").pk
    for name in ("via-api", "via-command"):
        dataset = Dataset.objects.get(name=name)
        assert dataset.instances.count() == body["instances"] == 4
        assert Reference.objects.filter(instance__dataset=dataset).count() == body["references"] == 12


def test_dataset_with_a_bad_row_is_refused_with_its_place_and_nothing_written(world):
    before = table_counts()
    statements = STATEMENTS + b"5,\n"  # an empty statement on line 6
    response = world.client("organizer").post(
        "/api/datasets/",
        {
            "name": "broken",
            "statements": upload("statements.csv", statements),
            "references": upload("references.csv", REFERENCES),
        },
        format="multipart",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["detail"].startswith("The file was not imported")
    assert any(p["file"] == "statements.csv" and p["line"] == 6 for p in body["problems"]), body
    assert table_counts() == before


def test_missing_file_field_is_named(world):
    response = world.client("organizer").post("/api/datasets/", {"name": "x"}, format="multipart")
    assert response.status_code == 400
    fields = {problem["field"] for problem in response.json()["problems"]}
    assert {"statements", "references"} <= fields


def test_submission_report_equals_the_command_json(world, tmp_path):
    data = SYSTEMS["SysAlphaQZ"]
    response = world.client("organizer").post(
        f"/api/datasets/{world.dataset.pk}/submissions/",
        {"system": "SysGammaQZ", "marker": "+", "file": upload("gamma.csv", data)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    api = response.json()
    (tmp_path / "delta.csv").write_bytes(data)
    out = StringIO()
    call_command(
        "import_submission",
        "--dataset",
        world.dataset.name,
        "--system",
        "SysDeltaQZ",
        "--file",
        str(tmp_path / "delta.csv"),
        "--json",
        stdout=out,
    )
    command = json.loads(out.getvalue())
    for key in ("rows", "official_bleu", "warnings", "partial", "missing", "sha256", "bleu_signature"):
        assert api[key] == command[key], key
    assert api["official_bleu"] == Submission.objects.get(pk=api["submission_id"]).official_bleu
    assert api["marker"] == "+" and api["system_id"] == System.objects.get(name="SysGammaQZ").pk


def test_partial_submission_needs_permission_and_then_has_no_bleu(world):
    partial = b"1,Elephants are large.\n2,The sun rises in the east.\n"
    client = world.client("organizer")
    url = f"/api/datasets/{world.dataset.pk}/submissions/"
    before = table_counts()
    refused = client.post(url, {"system": "Half", "file": upload("half.csv", partial)}, format="multipart")
    assert refused.status_code == 400
    assert refused.json()["problems"][0]["file"] == "half.csv"
    assert table_counts() == before
    accepted = client.post(
        url, {"system": "Half", "file": upload("half.csv", partial), "allow_partial": "true"}, format="multipart"
    )
    assert accepted.status_code == 201
    assert accepted.json()["official_bleu"] is None and accepted.json()["partial"] is True


def test_empty_reason_is_a_warning_in_the_report(world):
    data = b"1,Elephants are large.\n2,\n3,Cats cannot read.\n4,Sand is dry.\n"
    response = world.client("organizer").post(
        f"/api/datasets/{world.dataset.pk}/submissions/",
        {"system": "Gaps", "file": upload("gaps.csv", data)},
        format="multipart",
    )
    assert response.status_code == 201
    warnings = response.json()["warnings"]
    assert [(w["line"], w["column"]) for w in warnings] == [(2, 2)]


def test_systems_list_shows_latest_bleu(world):
    response = world.client("researcher").get(f"/api/datasets/{world.dataset.pk}/systems/")
    assert response.status_code == 200
    rows = {row["name"]: row for row in response.json()["results"]}
    alpha = Submission.objects.filter(system__name="SysAlphaQZ").latest("created_at")
    assert rows["SysAlphaQZ"]["official_bleu"] == alpha.official_bleu
    assert rows["SysBetaQZ"]["marker"] == "*"
    assert rows["Human"]["is_human"] is True and rows["Human"]["official_bleu"] is None


def test_campaign_create_answers_the_service_summary(world):
    response = world.client("organizer").post(
        "/api/campaigns/",
        {
            "dataset": world.dataset.pk,
            "name": "api-campaign",
            "sample": 3,
            "seed": 11,
            "raters_per_item": 3,
            "systems": ["SysAlphaQZ"],
            "human_reference": 2,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    campaign = Campaign.objects.get(name="api-campaign")
    assert response.json() == json.loads(json.dumps(campaign_summary(campaign)))
    assert campaign.created_by == world.users["organizer"]
    assert campaign.seed == 11 and campaign.raters_per_item == 3


def test_campaign_problems_name_their_fields_and_nothing_is_written(world):
    before = table_counts()
    response = world.client("organizer").post(
        "/api/campaigns/", {"dataset": world.dataset.pk, "name": "pilot", "sample": 2}, format="json"
    )
    assert response.status_code == 400
    assert [p["field"] for p in response.json()["problems"]] == ["name"]
    too_many = world.client("organizer").post(
        "/api/campaigns/", {"dataset": world.dataset.pk, "name": "big", "sample": 50}, format="json"
    )
    assert too_many.status_code == 400
    assert too_many.json()["problems"][0]["field"] == "sample"
    assert "has 4" in too_many.json()["problems"][0]["message"]
    assert table_counts() == before


def test_campaign_detail_and_progress(world):
    client = world.client("researcher")
    detail = client.get(f"/api/campaigns/{world.campaign.pk}/").json()
    assert detail["name"] == "pilot" and detail["seed"] == world.campaign.seed
    assert "completion_code" not in detail
    progress = client.get(f"/api/campaigns/{world.campaign.pk}/progress/").json()
    # 4 instances x 3 systems, M = 2; the outside raters filled instances 1-3.
    assert (progress["items"], progress["expected"], progress["ratings"]) == (12, 24, 18)
    assert progress["leased"] == 1 and progress["complete"] is False


def test_lists_are_paginated(world):
    for index in range(3):
        Dataset.objects.create(name=f"extra-{index}")
    client = world.client("organizer")
    first = client.get("/api/datasets/?page_size=2").json()
    assert first["count"] == 4 and len(first["results"]) == 2 and first["next"]
    last = client.get("/api/datasets/?page_size=2&page=2").json()
    assert len(last["results"]) == 2 and last["next"] is None
    assert client.get("/api/datasets/?page=9").status_code == 404
