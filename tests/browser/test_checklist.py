"""The organizer's way through the demo, from the home page's checklists, in Chromium."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_every_page import log_in

pytestmark = [pytest.mark.browser]


def test_the_demo_organizer_follows_the_checklist(live_server, new_context, transactional_db):
    from evalapp.services.demo import load_demo

    campaign = load_demo().campaign
    page = new_context().new_page()
    log_in(page, live_server.url, "organizer")
    page.goto(f"{live_server.url}/")
    setup = page.locator(".checklist").first.locator("li")
    assert setup.count() == 3
    texts = [setup.nth(n).inner_text() for n in range(3)]
    assert texts[0].startswith("✓") and "Load the data" in texts[0] and "(done)" in texts[0] and "1 dataset" in texts[0]
    assert "4 systems, 4 with a submission" in texts[1]
    assert "2 campaigns" in texts[2]
    demo = page.locator(".campaign-checklist").filter(has=page.get_by_role("heading", name="demo open"))
    steps = demo.locator("li")
    assert steps.count() == 4
    assert "0% rated" in steps.nth(2).inner_text() and steps.nth(2).inner_text().startswith("○")
    for number, heading in (
        (1, "Lab rater accounts: demo"),
        (2, "Items reported as broken: demo"),
        (3, "Results and Table 6: demo"),
    ):
        page.goto(f"{live_server.url}/")
        demo.locator("li").nth(number - 1).get_by_role("link").click()
        # expect() waits for the step's page: reading at once could still see the home page's heading.
        expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("^" + re.escape(heading)))
    expect(page).to_have_url(f"{live_server.url}/results/{campaign.pk}/")
