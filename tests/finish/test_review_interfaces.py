"""The flag review through its three doors (web page, API, ``manage.py review_flags``) and the stall on the
dashboard, the campaign page and the progress endpoint."""

import io

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from core.models import CampaignInstance, ItemFlag

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

STALL = "1 item needs a rater who has not seen it: 3 of 3 raters have rated or reported it."


def test_the_dashboard_and_campaign_page_explain_the_stall_and_offer_the_actions(
    stalled, client, organizer, researcher
):
    campaign, _, _ = stalled
    client.force_login(organizer)
    for url in (f"/results/{campaign.pk}/", f"/campaigns/{campaign.pk}/", f"/campaigns/{campaign.pk}/flags/"):
        text = client.get(url).content.decode()
        assert STALL in text, url
        assert f'href="/campaigns/{campaign.pk}/flags/"' in text and f'href="/campaigns/{campaign.pk}/raters/"' in text
        assert "Close the campaign" in text
    client.force_login(researcher)
    text = client.get(f"/results/{campaign.pk}/").content.decode()
    assert STALL in text and "Add raters" not in text  # the reason, but no organizer action


def test_the_queue_page_is_blind_by_choice_and_decides_by_post(stalled, client, organizer, rater_user):
    campaign, _, flagged = stalled
    url = f"/campaigns/{campaign.pk}/flags/"
    client.force_login(rater_user)
    assert client.get(url).status_code == 403
    assert client.post(f"{url}{flagged.pk}/dismiss/").status_code == 403
    client.force_login(organizer)
    blind = client.get(url).content.decode()
    assert "He put elephant number 2 into the fridge." in blind and "alpha reason 2." in blind
    assert "site:a" in blind and "the reason is cut off" in blind
    assert "<dt>System</dt>" not in blind
    assert "<dt>System</dt><dd>alpha</dd>" in client.get(url + "?systems=show").content.decode()
    assert client.get(f"{url}{flagged.pk}/dismiss/").status_code == 405
    response = client.post(f"{url}{flagged.pk}/dismiss/", {"systems": "show"})
    assert response.status_code == 302 and response["Location"] == url + "?systems=show"
    assert ItemFlag.objects.get(item=flagged).status == "dismissed"
    assert "No report is waiting for review." in client.get(url).content.decode()
    assert "dismissed" in client.get(url + "?resolved=1").content.decode()
    response = client.post(f"{url}{flagged.pk}/retire/", {"reason": "nonsense <script>"}, follow=True)
    assert "Retired instance 2" in response.content.decode()
    assert CampaignInstance.objects.get(campaign=campaign, instance__external_id="2").retired
    table = client.get(f"/results/{campaign.pk}/table6.markdown")
    assert b"Retired instances" in table.content and b"<script>" not in table.content


def test_the_api_lists_dismisses_and_retires(stalled, organizer):
    campaign, _, flagged = stalled
    api = APIClient()
    api.force_authenticate(organizer)
    base = f"/api/campaigns/{campaign.pk}/"
    [entry] = api.get(base + "flags/").json()["results"]
    assert (entry["item"], entry["flags"], entry["systems"], entry["open"]) == (flagged.pk, 1, None, True)
    assert entry["reports"][0]["note"] == "the reason is cut off"
    assert api.get(base + "flags/?systems=true").json()["results"][0]["systems"] == ["alpha"]
    progress = api.get(base + "progress/").json()
    assert progress["stall"]["explanation"].startswith(STALL) and progress["stall"]["stuck"] is True
    dismissed = api.post(base + f"flags/{flagged.pk}/dismissal/", format="json")
    assert dismissed.status_code == 200 and dismissed.json()["reports_resolved"] == 1
    assert api.get(base + "flags/").json()["results"] == []
    assert len(api.get(base + "flags/?resolved=true").json()["results"]) == 1
    retired = api.post(base + f"flags/{flagged.pk}/retirement/", {"reason": "makes sense"}, format="json")
    assert retired.status_code == 201 and retired.json()["items_retired"] == 2
    assert api.post(base + f"flags/{flagged.pk}/retirement/", {}, format="json").status_code == 200
    assert api.get(base + "progress/").json()["retired_instances"] == 1
    table = api.get(base + "table6/").json()
    assert table["instances"] == 2 and table["retired_instances"] == [{"instance": "2", "reason": "makes sense"}]
    assert api.post(base + "flags/999999/dismissal/", format="json").status_code == 404


def test_the_command_lists_dismisses_and_retires(stalled):
    campaign, _, flagged = stalled
    out = io.StringIO()
    call_command("review_flags", campaign="stall", systems=True, stdout=out)
    assert out.getvalue().splitlines()[:4] == [
        f"Item {flagged.pk} (instance 2, system, open; 2 of 3 ratings) [alpha]",
        "  statement: He put elephant number 2 into the fridge.",
        "  reason:    alpha reason 2.",
        "  reported by site:a (open): the reason is cut off",
    ]
    out = io.StringIO()
    call_command("review_flags", campaign="stall", dismiss=flagged.pk, stdout=out)
    assert "dismissed 1 report(s)" in out.getvalue()
    out = io.StringIO()
    call_command("review_flags", campaign="stall", retire=flagged.pk, reason="makes sense", stdout=out)
    assert out.getvalue().startswith("Retired instance 2: 2 item(s) take no more ratings")
    with pytest.raises(CommandError, match="is not an item of campaign 'stall'"):
        call_command("review_flags", campaign="stall", dismiss=999999)
    with pytest.raises(CommandError, match="--reason goes with --retire"):
        call_command("review_flags", campaign="stall", reason="x")
