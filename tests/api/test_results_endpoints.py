"""Table 6, ratings, agreement, quality and exclusion through the API: byte for byte what the
commands and services give."""

import csv
import io
import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from core.models import RaterExclusion, Rating
from evalapp.formats.csvfile import write_csv
from evalapp.services.results import RATINGS_LONG_HEADER, agreement_report, ratings_long_rows

# Also run against PostgreSQL (second pass of scripts/test.sh): the API over the real engine.
pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

FORMATS = {"json": "application/json", "csv": "text/csv", "markdown": "text/markdown", "latex": "application/x-latex"}


def command_output(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("fmt", FORMATS)
def test_table6_equals_the_command(world, fmt):
    response = world.client("researcher").get(f"/api/campaigns/{world.campaign.pk}/table6/?format={fmt}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith(FORMATS[fmt])
    assert response.content.decode() == command_output("export_table6", "--campaign", "pilot", "--format", fmt)


def test_table6_json_is_the_s5_contract_with_incomplete_systems_marked(world):
    table = world.client("organizer").get(f"/api/campaigns/{world.campaign.pk}/table6/").json()
    rows = {row["team"]: row for row in table["rows"]}
    assert table["rows"][0]["team"] == "Human"
    # Instances 1-3 rated twice, instance 4 not yet: 6 of 8 ratings per system.
    alpha = rows["SysAlphaQZ"]
    assert (alpha["ratings"], alpha["expected_ratings"], alpha["complete"]) == (6, 8, False)
    assert alpha["human"] == pytest.approx((2 + 3 + 3 + 2 + 2 + 3) / 6)
    assert rows["SysBetaQZ"]["marker"] == "*"


def test_table6_options_bootstrap_and_halves(world):
    client = world.client("organizer")
    url = f"/api/campaigns/{world.campaign.pk}/table6/"
    with_ci = client.get(url, {"bootstrap": 200, "seed": 5, "permutations": 100}).json()
    assert "rater" in with_ci["intervals"]["method"] and "ci" in with_ci["rows"][0]
    assert with_ci["significance"]["rule"] == "holm"
    wmt = client.get(url, {"bootstrap": 1, "clusters": "wmt"}).json()
    assert wmt["significance"]["rule"] == "wmt"
    bad_rule = client.get(url, {"bootstrap": 1, "clusters": "bonferroni"})
    assert bad_rule.status_code == 400 and bad_rule.json()["problems"][0]["field"] == "clusters"
    halves = client.get(url, {"format": "latex", "halves": "true"}).content.decode()
    assert halves == command_output("export_table6", "--campaign", "pilot", "--format", "latex", "--halves")
    refused = client.get(url, {"bootstrap": -1})
    assert refused.status_code == 400 and refused.json()["problems"][0]["field"] == "bootstrap"
    assert refused["Content-Type"].startswith("application/json")


def test_unknown_format_is_404(world):
    response = world.client("organizer").get(f"/api/campaigns/{world.campaign.pk}/table6/?format=xlsx")
    assert response.status_code == 404


def test_ratings_csv_is_the_service_export_with_pseudonyms(world):
    response = world.client("researcher").get(f"/api/campaigns/{world.campaign.pk}/ratings/")
    assert response.status_code == 200
    text = response.content.decode()
    assert text == write_csv(ratings_long_rows(world.campaign), RATINGS_LONG_HEADER)
    assert 'filename="ratings-pilot.csv"' in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 18
    assert all(row["rater"].startswith("rater-") for row in rows)
    assert "ext-1" not in text and "api-rater1" not in text
    as_json = world.client("researcher").get(f"/api/campaigns/{world.campaign.pk}/ratings/?format=json").json()
    assert [list(map(str, row.values())) for row in as_json] == [list(row.values()) for row in rows]


def test_agreement_equals_the_command_json(world):
    response = world.client("researcher").get(f"/api/campaigns/{world.campaign.pk}/agreement/")
    assert response.status_code == 200
    assert response.json() == json.loads(command_output("agreement", "--campaign", "pilot", "--json"))
    assert response.json() == json.loads(json.dumps(agreement_report(world.campaign)))


def test_ratings_import_reports_rejected_rows(world):
    data = b"instance_id,system,rater,score\n4,SysAlphaQZ,ext-3,2\n4,SysBetaQZ,ext-3,7\n"
    response = world.client("organizer").post(
        f"/api/campaigns/{world.campaign.pk}/ratings/import/",
        {"format": "long", "file": SimpleUploadedFile("more.csv", data)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    report = response.json()
    assert report["accepted"] == 1
    assert [(r["line"], r["value"]) for r in report["rejected"]] == [(3, "7")]


def test_ratings_file_naming_an_unknown_system_is_refused_whole(world):
    before = Rating.objects.count()
    data = b"instance_id,system,rater,score\n4,SysAlphaQZ,ext-3,2\n4,NoSuchSystem,ext-3,1\n"
    response = world.client("organizer").post(
        f"/api/campaigns/{world.campaign.pk}/ratings/import/",
        {"format": "long", "file": SimpleUploadedFile("bad.csv", data)},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["problems"][0]["file"] == "bad.csv"
    assert Rating.objects.count() == before


def test_quality_lists_every_rater_and_exclusion_removes_their_ratings(world):
    client = world.client("organizer")
    quality = client.get(f"/api/campaigns/{world.campaign.pk}/raters/").json()["results"]
    by_name = {row["rater"]: row for row in quality}
    assert set(by_name) == {"import:ext-1", "import:ext-2", "api-rater1"}
    outside = by_name["import:ext-1"]
    assert outside["ratings"] == 9 and outside["compared_pairs"] == 9
    url = f"/api/campaigns/{world.campaign.pk}/raters/{outside['rater_id']}/exclusion/"
    first = client.post(url, {"reason": "too fast"}, format="json")
    assert first.status_code == 201
    assert first.json()["ratings_excluded"] == 9 and first.json()["items_reopened"] == 9
    again = client.post(url, {}, format="json")
    assert again.status_code == 200 and again.json()["created"] is False
    assert RaterExclusion.objects.get(rater_id=outside["rater_id"]).reason == "too fast"
    assert len(ratings_long_rows(world.campaign)) == 9
    table = client.get(f"/api/campaigns/{world.campaign.pk}/table6/").json()
    assert {row["ratings"] for row in table["rows"]} == {3}


def test_exclusion_of_an_unknown_rater_is_404(world):
    response = world.client("organizer").post(
        f"/api/campaigns/{world.campaign.pk}/raters/999999/exclusion/", {}, format="json"
    )
    assert response.status_code == 404
    assert set(response.json()) == {"detail", "problems"}
