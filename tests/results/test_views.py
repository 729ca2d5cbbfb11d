"""Roles on the results pages and downloads: organizers and researchers read, raters never."""

import csv
import io
import json

import pytest
from django.urls import reverse

from core.models import Item, ItemFlag
from tests.results.factories import lease, make_raters, rated_campaign

SCORES = {"alpha": [[3, 2, 3], [2, 2, 1]], "=cmd": [[0, 1, None], [1, 1, 1]]}


@pytest.fixture
def campaign(db):
    campaign, _ = rated_campaign(SCORES, name="views", bleu={"alpha": 12.34, "=cmd": 5.0}, human=[[3, 3, 3], [2, 3, 3]])
    return campaign


def urls(campaign):
    return [
        reverse("results:index"),
        reverse("results:dashboard", args=[campaign.pk]),
        reverse("results:agreement", args=[campaign.pk, "json"]),
        reverse("results:ratings", args=[campaign.pk, "csv"]),
        reverse("results:table6_page", args=[campaign.pk]),
        reverse("results:plan", args=[campaign.pk]),
    ] + [reverse("results:table6", args=[campaign.pk, fmt]) for fmt in ("csv", "json", "markdown", "latex")]


def test_rater_gets_403_everywhere_and_anonymous_is_sent_to_login(client, campaign, rater_user):
    for url in urls(campaign):
        assert client.get(url).status_code == 302
    client.force_login(rater_user)
    for url in urls(campaign):
        assert client.get(url).status_code == 403, url


@pytest.mark.parametrize("account", ["organizer", "researcher"])
def test_results_viewers_get_every_page_and_download(client, campaign, account, request):
    client.force_login(request.getfixturevalue(account))
    for url in urls(campaign):
        response = client.get(url)
        assert response.status_code == 200, url
    body = client.get(reverse("results:dashboard", args=[campaign.pk])).content.decode()
    assert "Table 6 (live)" in body and "12.3" in body and "2.17" in body and "2.83" in body


def test_post_is_refused_for_researchers_and_organizers(client, campaign, researcher, organizer):
    for user in (researcher, organizer):
        client.force_login(user)
        for url in urls(campaign):
            assert client.post(url).status_code == 405, url


def test_dashboard_shows_progress_incomplete_mark_and_active_raters(client, campaign, organizer):
    item = Item.objects.filter(campaign=campaign, active_count__lt=3).first()
    lease(campaign, item, make_raters(1, prefix="live")[0])
    client.force_login(organizer)
    response = client.get(reverse("results:dashboard", args=[campaign.pk]))
    progress = response.context["progress"]
    assert progress.active_raters == 1
    assert (progress.ratings, progress.expected, progress.fraction) == (17, 18, 17 / 18)
    body = response.content.decode()
    assert "0.80†" in body and "incomplete (ratings present of expected): " in body and " 5 of 6 (83%)" in body


def test_flagged_items_are_listed(client, campaign, organizer):
    item = Item.objects.filter(campaign=campaign).first()
    ItemFlag.objects.create(item=item, rater=make_raters(1, prefix="flagger")[0], note="statement is cut off")
    client.force_login(organizer)
    body = client.get(reverse("results:dashboard", args=[campaign.pk])).content.decode()
    assert "statement is cut off" in body


def test_ratings_export_is_pseudonymous_and_neutralised(client, campaign, researcher):
    client.force_login(researcher)
    text = client.get(reverse("results:ratings", args=[campaign.pk, "csv"])).content.decode()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["instance_id", "system", "rater", "score", "seconds", "source", "shared_item"]
    assert len(rows) == 1 + 17
    assert {r[1] for r in rows[1:]} == {"alpha", "'=cmd", "Human"}
    assert all(r[2].startswith("rater-") for r in rows[1:])
    assert "views-w" not in text  # the raters' external ids never leave the database


def test_table6_json_download_with_intervals(client, campaign, organizer):
    client.force_login(organizer)
    response = client.get(reverse("results:table6", args=[campaign.pk, "json"]), {"bootstrap": "200", "seed": "7"})
    assert response["Content-Disposition"].endswith('.json"')
    document = json.loads(response.content)
    assert "rater" in document["significance"]["test"] and "rater" in document["intervals"]["method"]
    assert document["significance"]["rule"] == "holm"
    assert document["rows"][1]["ci"]["level"] == 0.95 and document["rows"][1]["ci"]["low"] is not None
    assert client.get(reverse("results:table6", args=[campaign.pk, "json"]), {"bootstrap": "x"}).status_code == 400
    wmt = json.loads(
        client.get(reverse("results:table6", args=[campaign.pk, "json"]), {"bootstrap": "1", "clusters": "wmt"}).content
    )
    assert wmt["significance"]["rule"] == "wmt"
    refused = client.get(reverse("results:table6", args=[campaign.pk, "json"]), {"bootstrap": "1", "clusters": "x"})
    assert refused.status_code == 400 and b"clusters" in refused.content
    assert client.get(reverse("results:table6_page", args=[campaign.pk]), {"clusters": "bogus"}).status_code == 400
    assert client.get(reverse("results:table6", args=[campaign.pk, "xlsx"])).status_code == 404


@pytest.mark.parametrize("name", ["results:dashboard", "results:table6_page", "results:plan"])
def test_pages_of_a_campaign_without_ratings(client, organizer, name, db):
    empty, _ = rated_campaign({"a": [[None, None]] * 2, "b": [[None, None]] * 2}, name="empty", bleu={"a": 3.0})
    client.force_login(organizer)
    response = client.get(reverse(name, args=[empty.pk]))
    assert response.status_code == 200
    if name == "results:dashboard":
        assert not response.context["sequential"].settled
        assert "no two systems have a complete instance yet" in response.content.decode()
