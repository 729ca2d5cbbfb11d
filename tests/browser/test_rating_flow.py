"""Part 6 of the issue: a rater's whole session in headless Chromium, with screenshots."""

import re

import pytest

from tests.browser.conftest import PHONE, log_in, no_horizontal_scroll

pytestmark = pytest.mark.browser

KEYBOARD_ITEMS = 10
AUTO_SUBMIT_ITEMS = 2  # the last keyboard items: the score key alone submits
TAPPED_ITEMS = 5


def progress_text(page):
    return page.locator("#progress-label").inner_text()


def shortcuts_ready(page):
    """The script has run: it reveals the shortcut hint (hidden without JavaScript)."""
    page.get_by_text("choose, Enter submits").wait_for()


def test_rater_session_keyboard_then_phone_flag_and_completion(
    live_server, new_context, browser_campaign, browser_rater, artifacts_dir
):
    from core.models import Item, ItemFlag, Rating

    total = Item.objects.filter(campaign=browser_campaign).count()
    assert total == KEYBOARD_ITEMS + TAPPED_ITEMS + 1
    desktop = new_context()
    page = desktop.new_page()
    log_in(page, live_server, "lab-rater", "/rate/")
    page.screenshot(path=artifacts_dir / "rate-01-campaigns.png", full_page=True)

    page.get_by_role("link", name="Browser campaign").click()
    page.get_by_role("heading", name="The scores").wait_for()
    assert page.get_by_text("He put an elephant into the fridge.").is_visible()
    page.screenshot(path=artifacts_dir / "rate-02-instructions.png", full_page=True)
    page.get_by_role("button", name="Start rating").click()
    shortcuts_ready(page)

    # Ten items with the keyboard: the score key, then Enter; the last two submit on the key alone.
    scores = []
    for number in range(1, KEYBOARD_ITEMS + 1):
        assert progress_text(page) == f"Item {number} of {total}"
        score = number % 4
        if number == KEYBOARD_ITEMS - AUTO_SUBMIT_ITEMS + 1:
            page.get_by_label("Submit as soon as I choose").check()
        with page.expect_navigation():
            page.keyboard.press(str(score))
            if number <= KEYBOARD_ITEMS - AUTO_SUBMIT_ITEMS:
                assert page.get_by_role("radio", name=re.compile(f"^{score} ")).is_checked()
                page.keyboard.press("Enter")
        scores.append(score)
        if number == 1:
            page.screenshot(path=artifacts_dir / "rate-03-after-first-item.png", full_page=True)
    assert page.get_by_label("Submit as soon as I choose").is_checked(), "the preference is remembered"

    # Five items by tapping at phone width (same login), then one flagged.
    phone = new_context(viewport=PHONE, has_touch=True, is_mobile=True, storage_state=desktop.storage_state())
    page = phone.new_page()
    page.goto(f"{live_server.url}/rate/{browser_campaign.pk}/item/")
    # The preference came along with the storage state; here a tap chooses and Submit submits.
    page.get_by_label("Submit as soon as I choose").uncheck()
    assert no_horizontal_scroll(page)
    page.screenshot(path=artifacts_dir / "rate-04-phone-item.png", full_page=True)
    for number in range(KEYBOARD_ITEMS + 1, KEYBOARD_ITEMS + TAPPED_ITEMS + 1):
        assert progress_text(page) == f"Item {number} of {total}"
        score = 3 - number % 4
        page.locator(f"label[for=score-{score}]").tap()
        assert page.locator(f"#score-{score}").is_checked()
        with page.expect_navigation():
            page.get_by_role("button", name="Submit score").tap()
        scores.append(score)
        assert no_horizontal_scroll(page)

    page.get_by_text("Report a problem with this item").tap()
    page.get_by_label("What is wrong with it? (optional)").fill("The reason is cut off.")
    page.screenshot(path=artifacts_dir / "rate-05-phone-flag.png", full_page=True)
    with page.expect_navigation():
        page.get_by_role("button", name="This item is broken: report and skip").tap()

    page.get_by_role("heading", name="Thank you!").wait_for()
    assert no_horizontal_scroll(page)
    page.screenshot(path=artifacts_dir / "rate-06-phone-done.png", full_page=True)

    ratings = list(Rating.objects.filter(campaign=browser_campaign).order_by("assignment__sequence"))
    assert [rating.score for rating in ratings] == scores
    assert all(rating.seconds is not None and rating.seconds >= 0 for rating in ratings)
    assert ItemFlag.objects.get().note == "The reason is cut off."


def test_item_screen_works_without_javascript(live_server, new_context, browser_campaign, browser_rater, artifacts_dir):
    from core.models import Rating

    page = new_context(java_script_enabled=False).new_page()
    log_in(page, live_server, "lab-rater", f"/rate/{browser_campaign.pk}/")
    page.get_by_role("button", name="Start rating").click()
    page.wait_for_selector(".submit-score")
    assert not page.get_by_label("Submit as soon as I choose").is_visible(), "shortcut controls need the script"
    page.locator("label[for=score-1]").click()
    page.get_by_role("button", name="Submit score").click()
    page.get_by_text("Saved: 1.").wait_for()
    assert progress_text(page).startswith("Item 2 of ")
    page.screenshot(path=artifacts_dir / "rate-07-no-javascript.png", full_page=True)
    rating = Rating.objects.get()
    assert rating.score == 1 and rating.seconds is not None


def test_stale_token_and_expired_session_keep_the_choice(
    live_server, new_context, browser_campaign, browser_rater, artifacts_dir
):
    from core.models import Rating

    context = new_context()
    page = context.new_page()
    log_in(page, live_server, "lab-rater", f"/rate/{browser_campaign.pk}/")
    page.get_by_role("button", name="Start rating").click()
    shortcuts_ready(page)

    # The CSRF cookie changed under the open page (as after a login in another tab).
    cookies = {cookie["name"]: cookie for cookie in context.cookies()}
    context.add_cookies([{**cookies["csrftoken"], "value": "A" * 32}])
    page.keyboard.press("2")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.get_by_text("security token had expired").wait_for()
    assert page.locator("#score-2").is_checked()
    page.screenshot(path=artifacts_dir / "rate-08-stale-token-kept.png", full_page=True)
    assert not Rating.objects.exists()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert [rating.score for rating in Rating.objects.all()] == [2]

    # The session ran out: log in again and find the choice waiting.
    context.clear_cookies(name="sessionid")
    page.keyboard.press("0")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.get_by_text("Your session had expired").wait_for()
    page.get_by_label("Username").fill("lab-rater")
    page.get_by_label("Password").fill("browser-pass-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("Your choice, 0, was kept").wait_for()
    assert page.locator("#score-0").is_checked()
    with page.expect_navigation():
        page.get_by_role("button", name="Submit score").click()
    assert sorted(rating.score for rating in Rating.objects.all()) == [0, 2]
