"""The rater screen on a phone (360 x 740): statement, reason, the four choices and Submit on one screen.

Measured on the real ComVE test items: every test statement with every real test-set system's
reason (17 systems x 1,000 statements), typed into one live item page, and Submit's position read
for each. "Typical" items are those whose statement and reason are both under 120 characters.
"""

import csv
import json

import pytest

from tests.browser.conftest import DESKTOP, PHONE, log_in
from tests.conftest import SHARED_COMVE, shared_file

pytestmark = [pytest.mark.browser, pytest.mark.shared]

TYPICAL_CHARS = 120
TARGET_SHARE = 0.95
MEASURE_JS = """pairs => {
  const statement = document.querySelector('.statement'), reason = document.querySelector('.reason');
  const submit = document.querySelector('.submit-score');
  return pairs.map(([s, r]) => {
    statement.textContent = s; reason.textContent = r;
    return submit.getBoundingClientRect().bottom;
  });
}"""


def real_items():
    """(statement, reason) for every test statement and every real test-set system's reason."""
    with open(shared_file("test_statements.csv"), encoding="utf-8") as handle:
        statements = {row["id"]: row["FalseSent"] for row in csv.DictReader(handle)}
    items = []
    for path in sorted((SHARED_COMVE / "systems").glob("*_test.csv")):
        with open(path, encoding="utf-8") as handle:
            items += [(statements[row[0]], row[1]) for row in csv.reader(handle) if row and row[0] in statements]
    return items


def test_submit_is_above_the_fold_for_typical_items(
    live_server, new_context, browser_campaign, browser_rater, artifacts_dir
):
    items = real_items()
    assert len(items) >= 10_000
    page = new_context(viewport=PHONE).new_page()
    log_in(page, live_server, "lab-rater", f"/rate/{browser_campaign.pk}/")
    page.get_by_role("button", name="Start rating").click()
    page.wait_for_selector(".submit-score")
    bottoms = page.evaluate(MEASURE_JS, items)
    typical = [
        bottom
        for (statement, reason), bottom in zip(items, bottoms)
        if len(statement) < TYPICAL_CHARS and len(reason) < TYPICAL_CHARS
    ]
    share_typical = sum(bottom <= PHONE["height"] for bottom in typical) / len(typical)
    share_all = sum(bottom <= PHONE["height"] for bottom in bottoms) / len(bottoms)
    longest = max(
        (pair for pair in items if all(len(text) < TYPICAL_CHARS for text in pair)), key=lambda p: sum(map(len, p))
    )
    page.evaluate(MEASURE_JS, [longest])
    page.screenshot(path=str(artifacts_dir / "phone-item-longest-typical-360.png"))
    figures = {
        "viewport": PHONE,
        "items": len(items),
        "typical_items": len(typical),
        "submit_above_the_fold_typical": share_typical,
        "submit_above_the_fold_all": share_all,
        "lowest_submit_bottom_px": max(bottoms),
    }
    (artifacts_dir / "phone-layout.json").write_text(json.dumps(figures, indent=2))
    assert share_typical >= TARGET_SHARE, figures


def test_the_full_rubric_is_one_tap_away_on_a_phone_and_inline_on_a_desktop(
    live_server, new_context, browser_campaign, browser_rater
):
    page = new_context(viewport=PHONE).new_page()
    log_in(page, live_server, "lab-rater", f"/rate/{browser_campaign.pk}/")
    page.get_by_role("button", name="Start rating").click()
    page.wait_for_selector(".submit-score")
    description = page.locator(".choice-description").first
    assert description.bounding_box()["width"] <= 1, "the sentence is hidden on a phone"
    label = page.get_by_role("radio", name="0 Not a reason The reason is not grammatically correct", exact=False)
    assert label.count() == 1, "screen readers still read the sentence with the choice"
    details = page.locator(".rubric-box")
    assert details.is_visible() and not details.locator("dd").first.is_visible()
    details.locator("summary").click()
    assert details.locator("dd").first.is_visible()
    page.set_viewport_size(DESKTOP)
    assert not details.is_visible() and description.bounding_box()["width"] > 100
