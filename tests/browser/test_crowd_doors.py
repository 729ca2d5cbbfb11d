"""Issue 18 in a real browser: the crowd page's lab-access and reconciliation fields, and the page a
throttled crowd worker sees, at desktop and phone widths (screenshots with COMVE_SCREENSHOT_DIR)."""

import os
from pathlib import Path

import pytest
from django.contrib.auth.models import Group

from tests.browser.conftest import DESKTOP, PASSWORD, PHONE, log_in, no_horizontal_scroll
from tests.crowd.conftest import mturk_params

pytestmark = pytest.mark.browser


def shot(page, name):
    folder = os.environ.get("COMVE_SCREENSHOT_DIR")
    if folder:
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_organizer_sets_lab_access_and_reads_the_reconciliation_option(
    live_server, new_context, browser_campaign, browser_rater, django_user_model, viewport
):
    organizer = django_user_model.objects.create_user(username="org-doors", password=PASSWORD)
    organizer.groups.add(Group.objects.get_or_create(name="organizer")[0])
    page = new_context(viewport=viewport).new_page()
    url = f"/campaigns/{browser_campaign.pk}/crowd/"
    log_in(page, live_server, "org-doors", url)
    page.get_by_label("Lab raters who may rate").select_option("listed")
    page.get_by_label("Lab raters this campaign lists").select_option(label="lab-rater")
    assert page.get_by_label("This file is the whole record").is_visible()
    assert no_horizontal_scroll(page)
    shot(page, f"crowd-settings-{viewport['width']}")
    page.get_by_role("button", name="Save crowd settings").click()
    page.wait_for_url(f"{live_server.url}{url}")
    browser_campaign.refresh_from_db()
    assert browser_campaign.lab_access == "listed"
    assert list(browser_campaign.lab_raters.values_list("user__username", flat=True)) == ["lab-rater"]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_throttled_worker_sees_a_clear_page(live_server, new_context, browser_campaign, settings, viewport):
    settings.COMVE_CROWD_ENTRY_RATE_PER_ADDRESS = "0/minute"
    browser_campaign.mturk_enabled = True
    browser_campaign.save()
    page = new_context(viewport=viewport).new_page()
    query = "&".join(f"{name}={value}" for name, value in mturk_params().items())
    page.goto(f"{live_server.url}/rate/mturk/{browser_campaign.pk}/{browser_campaign.crowd_key}/?{query}")
    with page.expect_response(lambda response: response.request.method == "POST") as answer:
        page.get_by_role("button", name="Start").click()
    assert answer.value.status == 429
    assert page.get_by_role("heading", name="Please wait a moment").is_visible()
    assert no_horizontal_scroll(page)
    shot(page, f"crowd-throttled-{viewport['width']}")
