"""Issue 20, the rater in Chromium: the last score changed from the next item, a dark page for a dark
preference, no keyboard hint on a touch screen."""

import pytest

from tests.browser.conftest import PHONE, log_in

pytestmark = pytest.mark.browser


def start(page, live_server, campaign):
    log_in(page, live_server, "lab-rater", f"/rate/{campaign.pk}/")
    page.get_by_role("button", name="Start rating").click()
    page.wait_for_selector(".submit-score")


def test_the_last_score_is_changed_from_the_next_item(
    live_server, new_context, browser_campaign, browser_rater, artifacts_dir
):
    from core.models import Rating, RatingCorrection

    page = new_context(viewport=PHONE).new_page()
    start(page, live_server, browser_campaign)
    page.locator("label[for=score-1]").click()
    page.get_by_role("button", name="Submit score").click()
    page.get_by_text("Saved: 1.").wait_for()
    change = page.get_by_role("button", name="Change your previous score to 3")
    assert change.is_visible()
    box = change.bounding_box()
    assert box["x"] + box["width"] <= PHONE["width"] and box["height"] >= 44, "on screen, a full-size tap target"
    assert page.get_by_role("button", name="Submit score").bounding_box()["y"] < PHONE["height"], "Submit still in view"
    page.screenshot(path=str(artifacts_dir / "rate-undo-360.png"))
    progress = page.locator("#progress-label").inner_text()
    change.click()
    page.get_by_text("Your last score was changed from 1 to 3.").wait_for()
    assert page.locator("#progress-label").inner_text() == progress, "still on the same next item"
    rating = Rating.objects.get()
    assert rating.score == 3 and RatingCorrection.objects.get().old_score == 1


def test_a_dark_preference_gets_a_dark_page_and_a_touch_screen_no_keyboard_hint(
    live_server, new_context, browser_campaign, browser_rater
):
    dark = new_context(color_scheme="dark").new_page()
    start(dark, live_server, browser_campaign)
    background = dark.evaluate("getComputedStyle(document.body).backgroundColor")
    text = dark.evaluate("getComputedStyle(document.body).color")
    assert background == "rgb(13, 17, 23)" and text == "rgb(230, 237, 243)"
    dark.get_by_text("choose, Enter submits").wait_for()  # a mouse and a keyboard: the hint is there

    touch = new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    start(touch, live_server, browser_campaign)
    touch.locator(".auto-submit:not([hidden])").wait_for(state="attached")  # the script has run (no eval: CSP)
    assert not touch.locator(".shortcut-hint").is_visible()
    light = new_context().new_page()
    start(light, live_server, browser_campaign)
    assert light.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
