"""Headless Chromium (Debian's, installed by scripts/system-deps.sh) driven by Playwright.

Playwright's sync API keeps an event loop in the test thread, which makes Django refuse ORM
calls there ("async unsafe"); the tests only read and set up data between page loads, so
the check is switched off for this directory.
"""

import os
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path(os.environ.get("COMVE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}
# Page loads on the live server take milliseconds; this bounds a hang, it is not a speed target.
TIMEOUT_MS = 10_000
PASSWORD = "browser-pass-1"


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}; run `bash scripts/system-deps.sh`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def new_context(browser):
    """Open browser contexts (desktop by default); all closed at the end of the test."""
    contexts = []

    def open_context(**options):
        options.setdefault("viewport", DESKTOP)
        context = browser.new_context(**options)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context

    yield open_context
    for context in contexts:
        context.close()


@pytest.fixture
def browser_campaign(transactional_db):
    """16 items (12 system, 4 control) for one rater: 10 by keyboard, 5 by tapping, 1 flagged."""
    from tests.screens.conftest import make_campaign

    return make_campaign(name="Browser campaign", raters_per_item=1, control_rate=1 / 3)


@pytest.fixture
def browser_rater(transactional_db, django_user_model):
    from core.models import Rater

    user = django_user_model.objects.create_user(username="lab-rater", password=PASSWORD)
    Rater.objects.create(user=user, order_seed=4242)
    return user


def log_in(page, live_server, username, next_url):
    page.goto(f"{live_server.url}/accounts/login/?next={next_url}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}{next_url}")


def no_horizontal_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
