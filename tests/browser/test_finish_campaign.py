"""Issue 20's organizer scenarios in headless Chromium, with screenshots in test-artifacts/:

- 3 raters, 3 ratings per item, one report: the dashboard says why the campaign is stuck below 100%;
  the organizer dismisses the report, adds a lab rater, and that rater's rating completes the campaign;
- an organizer creates 5 lab raters from a CSV, and one of them signs in with the printed password and
  rates an item.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PASSWORD, PHONE, log_in, no_horizontal_scroll

pytestmark = pytest.mark.browser

STALL = "1 item needs a rater who has not seen it: 3 of 3 raters have rated or reported it."
FIVE = (
    "name,email\nAda Lovelace,ada@example.org\nAlan Turing,alan@example.org\nGrace Hopper,grace@example.org\n"
    "Edsger Dijkstra,edsger@example.org\nBarbara Liskov,barbara@example.org\n"
)


@pytest.fixture
def small_campaign(transactional_db, django_user_model):
    """2 instances x 1 system, 3 ratings per item; raters a, b, c (lab accounts listed on it); an organizer."""
    from django.contrib.auth.models import Group

    from core import engine
    from core.models import Rater
    from evalapp.services.campaigns import create_campaign
    from tests.engine.builders import build_dataset

    campaign = create_campaign(
        build_dataset(instances=2, systems=("alpha",)), "Lab study", sample=2, seed=1, raters_per_item=3
    )
    organizer = django_user_model.objects.create_user(username="boss", password=PASSWORD)
    organizer.groups.add(Group.objects.get_or_create(name="organizer")[0])
    for name in "abc":
        user = django_user_model.objects.create_user(username=f"rater-{name}", password=PASSWORD)
        rater = Rater.objects.create(user=user, order_seed=engine.new_order_seed())
        campaign.lab_raters.add(rater)
    return campaign


def rate_rest(campaign, username, score):
    from core import engine
    from core.models import Rater

    rater = Rater.objects.get(user__username=username)
    while (assignment := engine.next_assignment(campaign, rater)) is not None:
        engine.submit_rating(assignment.pk, rater, score, seconds=4.0)


def rate_one_item(page, campaign_name, score):
    page.get_by_role("link", name=campaign_name).click()
    page.get_by_role("button", name="Start rating").click()
    page.locator(f"label[for=score-{score}]").click()
    with page.expect_navigation():
        page.get_by_role("button", name="Submit score").click()


def test_one_report_stalls_the_campaign_the_organizer_dismisses_and_a_new_rater_completes_it(
    live_server, new_context, small_campaign, artifacts_dir
):
    from core.models import ItemFlag
    from core.progress import campaign_progress

    campaign = small_campaign
    # Rater a reports the first item they get, in the browser, then rates the rest; b and c rate everything.
    page = new_context().new_page()
    log_in(page, live_server, "rater-a", "/rate/")
    page.get_by_role("link", name="Lab study").click()
    page.get_by_role("button", name="Start rating").click()
    page.get_by_text("Report a problem with this item").click()
    page.get_by_label("What is wrong with it? (optional)").fill("The reason is cut off.")
    with page.expect_navigation():
        page.get_by_role("button", name="This item is broken: report and skip").click()
    rate_rest(campaign, "rater-a", 1)
    rate_rest(campaign, "rater-b", 2)
    rate_rest(campaign, "rater-c", 3)
    assert (campaign_progress(campaign).ratings, campaign_progress(campaign).expected) == (5, 6)

    # The dashboard says why, in words, and offers the actions.
    organizer = new_context()
    page = organizer.new_page()
    log_in(page, live_server, "boss", f"/results/{campaign.pk}/")
    notice = page.get_by_role("note")
    assert STALL in notice.inner_text() and "It is reported as broken" in notice.inner_text()
    page.screenshot(path=artifacts_dir / "finish-01-dashboard-stalled.png", full_page=True)

    # The review queue: the item's text and the note, the system hidden; dismiss.
    notice.get_by_role("link", name=re.compile("Review the 1 reported item")).click()
    expect(page.get_by_text("The reason is cut off.")).to_be_visible()
    assert page.get_by_text("He put elephant number").first.is_visible()
    assert page.locator("dt", has_text="System").count() == 0
    page.screenshot(path=artifacts_dir / "finish-02-review-queue.png", full_page=True)
    with page.expect_navigation():
        page.get_by_role("button", name="Dismiss: rate it as it stands").click()
    assert page.get_by_text("No report is waiting for review.").is_visible()
    assert ItemFlag.objects.get().status == ItemFlag.Status.DISMISSED
    # Still stuck (every rater has seen the item): the notice now points at adding raters.
    assert STALL in page.get_by_role("note").inner_text()

    # Add a lab rater with a printed password.
    page.get_by_role("note").get_by_role("link", name="Add raters").click()
    page.get_by_label("Name").fill("Dora New")
    page.get_by_label("Email").fill("dora@example.org")
    page.get_by_label("a printed password").first.check()
    with page.expect_navigation():
        page.get_by_role("button", name="Create this account").click()
    password = page.locator("code.credential").inner_text().strip()
    page.screenshot(path=artifacts_dir / "finish-03-rater-added.png", full_page=True)

    # Dora's one rating, on a phone, completes the campaign.
    phone = new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    phone.goto(f"{live_server.url}/accounts/login/")
    phone.get_by_label("Username").fill("dora@example.org")
    phone.get_by_label("Password").fill(password)
    phone.get_by_role("button", name="Log in").click()
    rate_one_item(phone, "Lab study", 2)
    phone.get_by_role("heading", name="Thank you!").wait_for()
    assert no_horizontal_scroll(phone)

    page.goto(f"{live_server.url}/results/{campaign.pk}/")
    assert page.get_by_text("Overall: 6 of 6 ratings").is_visible()
    assert page.get_by_role("note").count() == 0
    page.screenshot(path=artifacts_dir / "finish-04-dashboard-complete.png", full_page=True)
    assert campaign_progress(campaign).complete


def test_an_organizer_adds_five_lab_raters_from_a_csv_and_one_rates_an_item(
    live_server, new_context, small_campaign, artifacts_dir, tmp_path
):
    from core.models import Rating

    campaign = small_campaign
    listing = tmp_path / "lab-raters.csv"
    listing.write_text(FIVE, encoding="utf-8")
    page = new_context().new_page()
    log_in(page, live_server, "boss", f"/campaigns/{campaign.pk}/")
    page.get_by_role("link", name="Rater accounts (lab)").click()
    page.get_by_label("CSV of raters").set_input_files(str(listing))
    page.locator("#id_list_sign_in_1").check()  # a printed password
    with page.expect_navigation():
        page.get_by_role("button", name="Create the accounts of the file").click()
    credentials = page.locator("section.credentials tbody tr")
    assert credentials.count() == 5
    page.screenshot(path=artifacts_dir / "finish-05-five-raters.png", full_page=True)
    assert campaign.lab_raters.count() == 3 + 5
    grace = credentials.filter(has_text="grace@example.org")
    password = grace.locator("code.credential").inner_text().strip()

    rater = new_context().new_page()
    rater.goto(f"{live_server.url}/accounts/login/")
    rater.get_by_label("Username").fill("grace@example.org")
    rater.get_by_label("Password").fill(password)
    rater.get_by_role("button", name="Log in").click()
    rate_one_item(rater, "Lab study", 3)
    assert Rating.objects.get(rater__user__username="grace@example.org").score == 3

    page.reload()
    row = page.locator("tbody tr", has_text="grace@example.org")
    assert row.locator("td.num").inner_text() == "1"
