"""The organizer's way through the demo, from the home page's checklist, in Chromium."""
import pytest

from tests.browser.test_every_page import log_in

pytestmark = [pytest.mark.browser]


def test_the_demo_organizer_follows_the_checklist(live_server, new_context, transactional_db):
    from evalapp.services.demo import load_demo

    campaign = load_demo().campaign
    page = new_context().new_page()
    log_in(page, live_server.url, "organizer")
    page.goto(f"{live_server.url}/")
    steps = page.locator(".checklist").first.locator("li")
    assert steps.count() == 6
    texts = [steps.nth(n).inner_text() for n in range(6)]
    assert texts[0].startswith("✓") and "Load the data" in texts[0] and "(done)" in texts[0] and "1 dataset" in texts[0]
    assert "4 systems, 4 with a submission" in texts[1]
    assert "the newest is 'demo'" in texts[2]
    assert "campaign 'demo' 0% rated" in texts[4] and texts[4].startswith("○") and "(to do)" in texts[4]
    for number, heading in ((1, "Datasets and submissions"), (4, "Crowd platforms"), (5, "Results and Table 6: demo")):
        page.goto(f"{live_server.url}/")
        page.locator(".checklist").first.locator("li").nth(number - 1).get_by_role("link").click()
        assert page.get_by_role("heading", level=1).inner_text().startswith(heading)
    assert page.url == f"{live_server.url}/results/{campaign.pk}/"
