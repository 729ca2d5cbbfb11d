"""The Table 6 page in Chromium at 1280 x 800 and 360 x 740: the intervals, the clusters and the charts are
drawn, nothing scrolls the page sideways, and screenshots land in test-artifacts/table6-page-*.png.

The campaign is the task paper's Table 6 (tests/results/paper.py): ratings whose means are the paper's
human scores, 100 instances x 3 raters, the Human pseudo-system first.
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
    campaign, _ = rated_campaign(
        scores,
        name="semeval2020",
        markers={t: m for t, m, *_ in TABLE6},
        bleu={t: bleu for t, _, bleu, *_ in TABLE6},
        human=ratings_with_mean(HUMAN_SCORE, 100, 3),
    )
    user = django_user_model.objects.create_user(username="table6-viewer", password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name="researcher")[0])
    return campaign


@pytest.mark.parametrize("label, viewport", [("1280", DESKTOP), ("360", PHONE)])
def test_table6_page_shows_intervals_clusters_and_charts(
    live_server, new_context, paper_campaign, artifacts_dir, label, viewport
):
    page = new_context(viewport=viewport).new_page()
    path = f"/results/{paper_campaign.pk}/table6/"
    log_in(page, live_server, "table6-viewer", path)
    table = page.get_by_role("region", name="Table 6 with intervals and clusters")
    assert table.get_by_role("row").count() == 1 + 1 + len(TABLE6)
    but_fit = table.get_by_role("row", name="BUT-FIT")
    cells = but_fit.get_by_role("cell").all_inner_texts()
    assert cells[2] == "1.84" and cells[4].startswith("[") and cells[5].isdigit()
    assert page.get_by_text("t test of the difference of formula (1) means", exact=False).first.is_visible()
    for name in (
        "Human scores (formula (1)) with 95% intervals",
        "Official BLEU against human score",
        "Share of each score (0-3)",
    ):
        chart = page.get_by_role("img", name=name, exact=False)
        assert chart.is_visible(), name
        box = chart.bounding_box()
        assert box["width"] > 300 and box["height"] > 100
    # The chart drawn for this width (the other one is display: none): every point, bar and cluster
    # label on screen, inside the window (issue 20: at 360 px the axis stopped at 1.5).
    size = "narrow" if viewport == PHONE else "wide"
    for selector in (
        f"svg.intervals.chart-{size} line.interval",
        f"svg.intervals.chart-{size} circle.point",
        f"svg.intervals.chart-{size} text.cluster-label",
        f"svg.scatter.chart-{size} circle.point",
        f"svg.scatter.chart-{size} text.point-label",
    ):
        marks = page.locator(selector)
        expected = 1 + len(TABLE6) if "intervals" in selector and "cluster" not in selector else len(TABLE6)
        if selector.endswith("point-label"):  # a label with no room is left out and the team named below
            note = page.locator(f"p.chart-note.chart-{size}")
            expected -= len(note.inner_text().split("): ", 1)[1].split(", ")) if note.count() else 0
            assert marks.count() >= len(TABLE6) // 2, "most teams are labelled"
        assert marks.count() == expected, selector
        for box in (marks.nth(i).bounding_box() for i in range(marks.count())):
            assert box is not None and 0 <= box["x"] and box["x"] + box["width"] <= viewport["width"], selector
    assert page.locator(f"svg.chart-{'wide' if size == 'narrow' else 'narrow'}:visible").count() == 0
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts_dir / f"table6-page-{label}.png"), full_page=True)
    page.locator("#clusters-rule").select_option("wmt")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(f"{live_server.url}{path}?clusters=wmt")
    assert page.get_by_text("mt-metrics-eval's AssignRanks", exact=False).first.is_visible()
    assert no_horizontal_scroll(page)
