"""The metric report made for reading, in Chromium: summary first, plots in a grid, tables that fit
1280 px with numbers on one line, details folded; screenshots at 1280 and 360 px in test-artifacts/."""

import pytest

from tests.browser.conftest import DESKTOP, PHONE, no_horizontal_scroll

pytestmark = [pytest.mark.browser]
EVERY_METRIC = ["comve_bleu", "sacrebleu", "chrf", "sentbleu", "bertscore"]

OVERFLOWING_TABLES = """() => Array.from(document.querySelectorAll('.metric-report table')).filter(
    t => t.scrollWidth > t.parentElement.clientWidth + 1).map(t => t.querySelector('caption').textContent)"""
WRAPPED_NUMBERS = """() => Array.from(document.querySelectorAll('.metric-report td.num > span')).filter(s => {
    const lines = s.getClientRects().length; const h = s.getBoundingClientRect().height;
    return lines > 1 || h > parseFloat(getComputedStyle(s).lineHeight) * 1.5 + 1; }).map(s => s.textContent)"""


@pytest.fixture
def report_run(transactional_db):
    from evalapp.services.metric_study import runs as metric_runs
    from tests.metrics.builders import build_study_campaign

    campaign = build_study_campaign(n_instances=10, n_systems=8, name="reading")
    run, _ = metric_runs.report_for(
        campaign, EVERY_METRIC, {"bootstrap": 50, "permutations": 50, "corpus_scope": "campaign"}
    )
    return campaign, run


def log_in(page, base, user):
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill("pw-" + user.username)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/**")


def test_the_report_reads_at_1280_and_360_px(live_server, new_context, report_run, researcher, artifacts_dir):
    campaign, run = report_run
    for name, viewport in (("1280", DESKTOP), ("360", PHONE)):
        page = new_context(viewport=viewport).new_page()
        log_in(page, live_server.url, researcher)
        page.goto(f"{live_server.url}/metrics/campaign/{campaign.pk}/")
        headings = page.locator("main h2").all_inner_texts()
        assert headings[:3] == ["Summary", "Metric against human score", "Statistics per metric"]
        assert page.locator(".plot-grid").first.locator("svg").count() == 7  # one scatter per metric output
        assert page.locator(".metric-report details").count() == 5
        assert all(not d for d in page.locator(".metric-report details").evaluate_all("ds => ds.map(d => d.open)"))
        page.screenshot(path=str(artifacts_dir / f"metric-report-{name}.png"), full_page=True)
        page.locator("section[aria-labelledby=summary-title]").screenshot(
            path=str(artifacts_dir / f"metric-report-summary-{name}.png")
        )
        assert no_horizontal_scroll(page)
        if name == "1280":
            assert page.evaluate(OVERFLOWING_TABLES) == []  # every column visible without scrolling
            assert page.evaluate(WRAPPED_NUMBERS) == []
            scatter_boxes = [
                box["y"]
                for box in page.locator(".plot-grid")
                .first.locator("figure")
                .evaluate_all("fs => fs.map(f => f.getBoundingClientRect())")
            ]
            assert len({round(y) for y in scatter_boxes}) <= 3  # a grid, not one column of seven
            assert "bertscore_f1" in page.locator("table").nth(1).inner_text()
