"""The dashboard's "Stopping early" section in Chromium at 1280 x 800 and 360 x 740: the adjacent pairs and
the list of every pair, the settled banner with its close button, nothing scrolls the page sideways;
screenshots land in test-artifacts/sequential-*.png.

The campaign is the task paper's Table 6 (tests/results/paper.py): ratings whose means are the paper's
human scores, 100 instances x 3 raters, the Human pseudo-system included (18 systems, 153 pairs).
"""

import pytest

from tests.browser.conftest import DESKTOP, PASSWORD, PHONE, log_in, no_horizontal_scroll
from tests.results.factories import rated_campaign
from tests.results.paper import HUMAN_SCORE, TABLE6, ratings_with_mean

pytestmark = [pytest.mark.browser]


@pytest.fixture
def paper_campaign(transactional_db, django_user_model):
    from django.contrib.auth.models import Group

    scores = {team: ratings_with_mean(human, 100, 3) for team, _, _, _, human, _ in TABLE6}
    campaign, _ = rated_campaign(scores, name="semeval2020", human=ratings_with_mean(HUMAN_SCORE, 100, 3))
    user = django_user_model.objects.create_user(username="sequential-organizer", password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name="organizer")[0])
    return campaign


@pytest.mark.parametrize("label, viewport", [("1280", DESKTOP), ("360", PHONE)])
def test_the_decisions_section(live_server, new_context, paper_campaign, artifacts_dir, label, viewport):
    from evalapp.services.sequential import sequential_status

    status = sequential_status(paper_campaign)
    page = new_context(viewport=viewport).new_page()
    path = f"/results/{paper_campaign.pk}/"
    log_in(page, live_server, "sequential-organizer", path)
    section = page.get_by_role("region", name="Decisions on adjacent systems")
    assert section.get_by_role("row").count() == 1 + len(status.order) - 1
    first = status.adjacent()[0]
    assert section.get_by_role("row").nth(1).get_by_role("rowheader").inner_text() == first.upper
    page.locator("section[aria-labelledby=sequential-title]").screenshot(
        path=str(artifacts_dir / f"sequential-section-{label}.png")
    )
    page.get_by_text(f"All {len(status.pairs)} pairs").click()
    every = page.get_by_role("region", name="Decisions on every pair")
    assert every.get_by_role("row").count() == 1 + len(status.pairs)
    if status.settled:
        assert page.get_by_role("button", name="Close the campaign now", exact=False).is_visible()
    else:
        assert page.get_by_text("Not settled yet").is_visible()
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / f"sequential-{label}.png"), full_page=True)
