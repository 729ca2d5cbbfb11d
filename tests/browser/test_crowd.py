"""Crowd platforms end to end in Chromium, against a fake Mechanical Turk and a fake Prolific.

The fakes are one local HTTP server: its ``/hit`` page frames the rater screens as MTurk's
worker site does, ``/mturk/externalSubmit`` records what the HIT's form posts, and
``/prolific/complete`` records the completion code. No request leaves the machine.
"""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest

from tests.browser.conftest import PASSWORD, PHONE, log_in, no_horizontal_scroll
from tests.browser.test_accessibility import assert_all_named

pytestmark = pytest.mark.browser

COMPLETION_CODE = "C0MPL3TE"
SCREENING_CODE = "SCR33N3D"
HIT_ITEMS = 3
FRAME_HEIGHT_PX = 700
FRAME_POLLS, FRAME_POLL_MS = 50, 100  # bounds a hang; the frame settles in milliseconds
WORKER = {"workerId": "A1BROWSERWORKER", "assignmentId": "3BROWSERASSIGNMENT", "hitId": "3BROWSERHIT"}
PARTICIPANT = {
    "PROLIFIC_PID": "5f0c0ffee0c0ffee0c0ffee1",
    "STUDY_ID": "60a1study0000000000000002",
    "SESSION_ID": "60b2session00000000000002",
}


class FakePlatform(BaseHTTPRequestHandler):
    """MTurk's worker page with the HIT's frame, its submit endpoint, and Prolific's completion page."""

    def _reply(self, html):
        body = f"<!DOCTYPE html><html><head><title>Fake platform</title></head><body>{html}</body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        address = urlsplit(self.path)
        query = parse_qs(address.query)
        if address.path == "/hit":
            src = query["src"][0].replace('"', "%22")
            self._reply(
                f'<h1>Fake MTurk</h1><iframe id="hit" title="HIT" src="{src}" '
                f'style="width:100%;height:{FRAME_HEIGHT_PX}px"></iframe>'
            )
        elif address.path == "/prolific/complete":
            self.server.completions.append(query)
            self._reply("<h1>Prolific: study complete</h1>")
        else:
            self.send_error(404)

    def do_POST(self):
        if self.path != "/mturk/externalSubmit":
            self.send_error(404)
            return
        length = int(self.headers.get("Content-Length", 0))
        self.server.submissions.append(parse_qs(self.rfile.read(length).decode()))
        self._reply("<h1>HIT submitted</h1>")

    def log_message(self, *args):
        """Quiet: the test asserts on what was received."""


@pytest.fixture
def platform(settings):
    """The fake platform on localhost (same site as the live server), allowed as an MTurk host."""
    server = ThreadingHTTPServer(("localhost", 0), FakePlatform)
    server.submissions, server.completions = [], []
    server.origin = f"http://localhost:{server.server_address[1]}"
    settings.COMVE_MTURK_SUBMIT_HOSTS = [server.origin]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def crowd_campaign(transactional_db):
    """15 items (12 system, 3 control), one rater per item."""
    from tests.screens.conftest import make_campaign

    return make_campaign(name="Crowd browser campaign", raters_per_item=1, mturk_enabled=True, prolific_enabled=True)


def hit_page(platform, live_server, campaign, **params):
    src = f"{live_server.url}/rate/mturk/{campaign.pk}/{campaign.crowd_key}/?{urlencode(params)}"
    return f"{platform.origin}/hit?src={quote(src, safe='')}"


def choose_and_submit(frame, assignment_score):
    """Tap the score that ``assignment_score(assignment id)`` gives, then Submit."""
    assignment = int(frame.locator("input[name=assignment]").first.get_attribute("value"))
    frame.locator(f"label[for=score-{assignment_score(assignment)}]").click()
    frame.get_by_role("button", name="Submit score").click()


def passing(assignment):
    from tests.crowd.helpers import score_for

    return score_for(assignment, pass_controls=True)


def failing(assignment):
    from tests.crowd.helpers import score_for

    return score_for(assignment, pass_controls=False)


def test_mturk_preview_then_hit_in_the_frame_posts_back_to_turk_submit_to(
    live_server, new_context, platform, crowd_campaign, artifacts_dir
):
    from core.models import Rater, Rating

    crowd_campaign.items_per_session = HIT_ITEMS
    crowd_campaign.save()
    page = new_context().new_page()

    page.goto(
        hit_page(
            platform, live_server, crowd_campaign, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId=WORKER["hitId"]
        )
    )
    frame = page.frame_locator("#hit")
    frame.get_by_text("This is a preview").wait_for()
    assert frame.get_by_role("heading", name="What an item looks like").is_visible()
    page.screenshot(path=artifacts_dir / "crowd-01-mturk-preview.png", full_page=True)
    assert not Rater.objects.exists(), "a preview creates no account"

    page.goto(hit_page(platform, live_server, crowd_campaign, **WORKER, turkSubmitTo=platform.origin))
    frame.get_by_role("button", name="Start rating").click()
    for number in range(1, HIT_ITEMS + 1):
        frame.get_by_text(f"Item {number} of {HIT_ITEMS}").wait_for()
        choose_and_submit(frame, passing)
    frame.get_by_role("heading", name="Thank you!").wait_for()
    page.screenshot(path=artifacts_dir / "crowd-02-mturk-submit.png", full_page=True)
    frame.get_by_role("button", name="Submit the HIT").click()
    frame.get_by_role("heading", name="HIT submitted").wait_for()

    assert platform.submissions == [{"assignmentId": [WORKER["assignmentId"]], "ratings": [str(HIT_ITEMS)]}]
    rater = Rater.objects.get()
    assert (rater.platform, rater.external_id) == ("mturk", WORKER["workerId"])
    assert Rating.objects.filter(rater=rater).count() == HIT_ITEMS


def test_only_mturk_hosts_may_frame_the_rater_screens(live_server, new_context, platform, crowd_campaign):
    page = new_context().new_page()
    # The same fake page under another origin (127.0.0.1 is not localhost) is not on the list.
    elsewhere = hit_page(platform, live_server, crowd_campaign).replace("localhost", "127.0.0.1", 1)
    with page.expect_response(lambda response: "/rate/mturk/" in response.url):
        page.goto(elsewhere)
    framed = page.frames[1]
    for _ in range(FRAME_POLLS):  # the refused frame commits its error page just after the response
        if framed.url:
            break
        page.wait_for_timeout(FRAME_POLL_MS)
    assert framed.url.startswith("chrome-error://"), f"the frame shows {framed.url!r}"


def prolific_link(live_server, campaign):
    return f"{live_server.url}/rate/prolific/{campaign.pk}/{campaign.crowd_key}/?{urlencode(PARTICIPANT)}"


def test_without_the_key_or_the_platform_a_participant_is_turned_away(
    live_server, new_context, crowd_campaign, artifacts_dir
):
    from core.models import CrowdSession, Rater
    from evalapp.services import crowd

    page = new_context().new_page()
    wrong_key = prolific_link(live_server, crowd_campaign).replace(crowd_campaign.crowd_key, "guessed-key")
    assert page.goto(wrong_key).status == 404
    assert page.get_by_role("heading", name="Page not found").is_visible()
    page.screenshot(path=artifacts_dir / "crowd-06-refused-entry.png", full_page=True)
    crowd.save_settings(crowd_campaign, prolific_enabled=False)
    assert page.goto(prolific_link(live_server, crowd_campaign)).status == 404, "the platform is shut"
    assert not (Rater.objects.exists() or CrowdSession.objects.exists())


def prolific_campaign(campaign, platform, items_per_session=None):
    campaign.completion_url = f"{platform.origin}/prolific/complete"
    campaign.completion_code, campaign.screening_code = COMPLETION_CODE, SCREENING_CODE
    campaign.items_per_session = items_per_session
    campaign.save()
    return campaign


def test_prolific_study_ends_at_the_completion_url_with_the_code(
    live_server, new_context, platform, crowd_campaign, artifacts_dir
):
    campaign = prolific_campaign(crowd_campaign, platform, items_per_session=HIT_ITEMS)
    page = new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    page.goto(prolific_link(live_server, campaign))
    assert_all_named(page, "prolific instructions")
    page.get_by_role("button", name="Start rating").click()
    for number in range(1, HIT_ITEMS + 1):
        page.get_by_text(f"Item {number} of {HIT_ITEMS}").wait_for()
        choose_and_submit(page, passing)
    page.get_by_text(COMPLETION_CODE).wait_for()
    assert no_horizontal_scroll(page)
    assert_all_named(page, "prolific completion")
    page.screenshot(path=artifacts_dir / "crowd-03-prolific-complete.png", full_page=True)
    page.get_by_role("link", name="Return to Prolific").click()
    page.get_by_role("heading", name="Prolific: study complete").wait_for()
    assert platform.completions == [{"cc": [COMPLETION_CODE]}]


def test_prolific_participant_who_fails_the_controls_gets_the_screening_code(
    live_server, new_context, platform, crowd_campaign, artifacts_dir
):
    from core import engine
    from core.models import CrowdSession, Item, Rater

    campaign = prolific_campaign(crowd_campaign, platform)
    page = new_context().new_page()
    page.goto(prolific_link(live_server, campaign))
    page.get_by_role("button", name="Start rating").click()
    page.get_by_text("Item 1 of").wait_for()
    # All but the last item rated behind the scenes, every control failed; the browser rates the last.
    rater = Rater.objects.get()
    session = CrowdSession.objects.get(rater=rater).pk
    for _ in range(Item.objects.filter(campaign=campaign).count() - 1):
        assignment = engine.next_assignment(campaign, rater, crowd_session_id=session)
        engine.submit_rating(assignment.pk, rater, failing(assignment.pk), crowd_session_id=session)
    page.goto(f"{live_server.url}/rate/{campaign.pk}/")
    page.get_by_role("button", name="Continue rating").click()
    choose_and_submit(page, failing)
    page.get_by_text(SCREENING_CODE).wait_for()
    assert COMPLETION_CODE not in page.content()
    page.screenshot(path=artifacts_dir / "crowd-04-prolific-screened.png", full_page=True)
    page.get_by_role("link", name="Return to Prolific").click()
    page.get_by_role("heading", name="Prolific: study complete").wait_for()
    assert platform.completions == [{"cc": [SCREENING_CODE]}]


def test_organizer_crowd_page_is_accessible_at_phone_width(
    live_server, new_context, crowd_campaign, django_user_model, artifacts_dir
):
    from django.contrib.auth.models import Group

    organizer = django_user_model.objects.create_user(username="crowd-organizer", password=PASSWORD)
    organizer.groups.add(Group.objects.get_or_create(name="organizer")[0])
    page = new_context(viewport=PHONE).new_page()
    log_in(page, live_server, "crowd-organizer", f"/campaigns/{crowd_campaign.pk}/crowd/")
    assert_all_named(page, "crowd settings")
    page.screenshot(path=artifacts_dir / "crowd-05-organizer-page.png", full_page=True)
    assert no_horizontal_scroll(page)
    page.get_by_label("Items per HIT or study session (empty: no cap)").fill("10")
    page.get_by_role("button", name="Save crowd settings").click()
    page.get_by_text("Crowd settings saved.").wait_for()
    page.screenshot(path=artifacts_dir / "crowd-05-organizer-page.png", full_page=True)
    crowd_campaign.refresh_from_db()
    assert crowd_campaign.items_per_session == 10
