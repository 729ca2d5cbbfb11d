"""Every control has an accessible name (Chromium's own accessibility tree), and Tab follows the page."""

import pytest

from tests.browser.conftest import DESKTOP, PHONE, log_in, no_horizontal_scroll

pytestmark = pytest.mark.browser

# Roles of the Chromium accessibility tree that a user operates (summary = DisclosureTriangle).
INTERACTIVE_ROLES = {
    "button",
    "link",
    "radio",
    "checkbox",
    "textbox",
    "searchbox",
    "combobox",
    "listbox",
    "spinbutton",
    "slider",
    "switch",
    "tab",
    "menuitem",
    "DisclosureTriangle",
}
VISIBLE_CONTROLS_JS = """() => Array.from(document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex="-1"])'
)).filter(el => el.checkVisibility()).length"""
FOCUSED_JS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const box = el.getBoundingClientRect();
  const middle = box.top + box.height / 2;
  return {key: el.id || el.innerText.trim(), x: box.left + window.scrollX, y: middle + window.scrollY};
}"""
# Two controls whose vertical centres are this close sit on one line, read left to right.
SAME_LINE_PX = 12
MAX_TABS = 40


def named_controls(page):
    """(role, accessible name) of every operable node Chromium exposes to assistive technology."""
    session = page.context.new_cdp_session(page)
    try:
        nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    controls = []
    for node in nodes:
        role = node.get("role", {}).get("value")
        focusable = any(
            prop.get("name") == "focusable" and prop.get("value", {}).get("value")
            for prop in node.get("properties", [])
        )
        # A wide table's scroll region takes keyboard focus so it can be scrolled with the arrow keys.
        if (role in INTERACTIVE_ROLES or (role == "region" and focusable)) and not node.get("ignored"):
            controls.append((role, (node.get("name") or {}).get("value", "").strip()))
    return controls


def assert_all_named(page, where):
    controls = named_controls(page)
    assert controls, f"{where}: no control found"
    unnamed = [role for role, name in controls if not name]
    assert not unnamed, f"{where}: controls without an accessible name: {unnamed}"
    assert len(controls) == page.evaluate(VISIBLE_CONTROLS_JS), f"{where}: a visible control is not exposed"


def test_every_control_has_an_accessible_name(
    live_server, new_context, browser_campaign, browser_rater, django_user_model
):
    from django.contrib.auth.models import Group

    from core.models import Rater

    page = new_context().new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    assert_all_named(page, "login")
    log_in(page, live_server, "lab-rater", "/rate/")
    assert_all_named(page, "campaign list")
    page.get_by_role("link", name="Browser campaign").click()
    # The click starts a navigation; read the tree only once the instructions page has replaced the list.
    page.get_by_role("button", name="Start rating").wait_for()
    assert_all_named(page, "instructions")
    page.get_by_role("button", name="Start rating").click()
    page.get_by_text("choose, Enter submits").wait_for()
    assert_all_named(page, "item")
    page.get_by_text("Report a problem with this item").click()
    assert_all_named(page, "item with the flag form open")
    page.goto(f"{live_server.url}/rate/{browser_campaign.pk}/done/")
    assert_all_named(page, "completion")

    organizer = django_user_model.objects.create_user(username="organizer-1", password="browser-pass-1")
    organizer.groups.add(Group.objects.get_or_create(name="organizer")[0])
    rater = Rater.objects.get(user=browser_rater)
    page = new_context().new_page()
    log_in(page, live_server, "organizer-1", f"/campaigns/{browser_campaign.pk}/quality/")
    assert_all_named(page, "rater quality")
    page.get_by_text("Change the thresholds").click()
    assert_all_named(page, "rater quality with the thresholds form open")
    page.set_viewport_size(PHONE)
    assert no_horizontal_scroll(page), "the wide table scrolls inside its box, not the page"
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server.url}/campaigns/{browser_campaign.pk}/exclude/{rater.pk}/")
    assert_all_named(page, "exclude confirmation")


def tab_order(page):
    """The focused control after each Tab from the top of the page, until focus leaves the page."""
    seen = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_JS)
        if focused is None or (seen and focused["key"] == seen[0]["key"]):
            break
        seen.append(focused)
    return seen


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_tab_order_follows_the_page(live_server, new_context, browser_campaign, browser_rater, viewport):
    page = new_context(viewport=viewport).new_page()
    log_in(page, live_server, "lab-rater", f"/rate/{browser_campaign.pk}/")
    page.get_by_role("button", name="Start rating").click()
    page.get_by_text("choose, Enter submits").wait_for()
    order = tab_order(page)
    # On a phone the rubric's sentences are one tap away, under their own disclosure.
    rubric = ["What do the scores mean?"] if viewport == PHONE else []
    assert [control["key"] for control in order] == [
        "Skip to content",
        "ComVE-Eval",
        "Rate",
        "Log out lab-rater",
        "score-0",
        "Submit score",
        "auto-submit",
        *rubric,
        "Report a problem with this item",
        "Instructions and examples",
    ]
    for before, after in zip(order, order[1:]):
        if abs(after["y"] - before["y"]) <= SAME_LINE_PX:
            assert after["x"] > before["x"], f"{after['key']} is left of {before['key']} on one line"
        else:
            assert after["y"] > before["y"], f"{after['key']} comes before {before['key']} on the page"
