"""Every page type as people see it: axe-core finds no serious or critical accessibility problem,
at 1280 x 800 and at 360 x 740, and a screenshot of each is written to test-artifacts/pages/.

The pages are those of the demo (``manage.py demo``) after some rating, with a finished metric
study: what each role sees first. axe-core is the copy that axe-playwright-python ships,
injected into each page.
"""
import json

import pytest
from django.contrib.auth import get_user_model

from tests.browser.conftest import DESKTOP, PHONE, TIMEOUT_MS

pytestmark = [pytest.mark.browser]

BLOCKING_IMPACTS = {"serious", "critical"}
VIEWPORTS = {"1280": DESKTOP, "360": PHONE}


@pytest.fixture
def demo_world(transactional_db):
    """The demo with a few ratings by rater1 and rater2, a crowd session and a finished metric study."""
    from core import engine, flags
    from core.models import CrowdSession, Rater
    from evalapp.formats.rater_list import RaterEntry
    from evalapp.services import lab_raters
    from evalapp.models import MetricRun
    from evalapp.services import metric_study
    from evalapp.services.demo import load_demo

    campaign = load_demo().campaign
    users = get_user_model().objects
    for username, count in (("rater1", 12), ("rater2", 8)):
        rater = Rater.objects.get(user=users.get(username=username))
        for step in range(count):
            assignment = engine.next_assignment(campaign, rater)
            engine.submit_rating(assignment.pk, rater, (step + len(username)) % 4, seconds=5.0)
    # A report waiting for review, and a lab account listed on the campaign.
    rater2 = Rater.objects.get(user=users.get(username="rater2"))
    flags.flag_item(engine.next_assignment(campaign, rater2).pk, rater2, campaign, note="The reason is cut off.")
    lab_raters.add_lab_raters(campaign, [RaterEntry(None, "Lab Rater", "lab@example.org")], lab_raters.PASSWORD)
    CrowdSession.objects.create(campaign=campaign, rater=Rater.objects.get(user=users.get(username="rater2")),
                                platform=Rater.Platform.PROLIFIC, session_id="5f0c0ffee0c0ffee0c0ffee1",
                                task_id="STUDY1")
    report = metric_study.build_report(campaign, ["comve_bleu", "chrf", "sentbleu"], bootstrap=20, permutations=20)
    run = MetricRun.objects.create(campaign=campaign, metrics=["comve_bleu", "chrf", "sentbleu"], progress=1.0,
                                   status=MetricRun.Status.DONE, report=report)
    return campaign, run


def pages(campaign, run):
    """(name, account, path) of every page type; account None: not logged in."""
    c, d = campaign.pk, campaign.dataset_id
    from evalapp.services.lab_raters import sign_in_path

    rater2 = get_user_model().objects.get(username="rater2").rater.pk
    link = sign_in_path(get_user_model().objects.get(username="lab@example.org"))
    return [
        ("login", None, "/accounts/login/"),
        ("home-organizer", "organizer", "/"),
        ("home-researcher", "researcher", "/"),
        ("data", "organizer", "/data/"),
        ("dataset", "organizer", f"/data/{d}/"),
        ("import-dataset", "organizer", "/data/import/"),
        ("campaigns", "organizer", "/campaigns/"),
        ("campaign", "organizer", f"/campaigns/{c}/"),
        ("new-campaign", "organizer", f"/campaigns/new/?dataset={d}"),
        ("quality", "organizer", f"/campaigns/{c}/quality/"),
        ("exclude", "organizer", f"/campaigns/{c}/exclude/{rater2}/"),
        ("crowd", "organizer", f"/campaigns/{c}/crowd/"),
        ("reported-items", "organizer", f"/campaigns/{c}/flags/?systems=show&resolved=1"),
        ("lab-raters", "organizer", f"/campaigns/{c}/raters/"),
        ("sign-in-link", None, link),
        ("sign-in-link-invalid", None, "/accounts/link/MQ/used-token/"),
        ("results", "researcher", "/results/"),
        ("dashboard-table6", "researcher", f"/results/{c}/"),
        ("table6-page", "researcher", f"/results/{c}/table6/"),
        ("study-plan", "researcher", f"/results/{c}/plan/"),
        ("metrics", "researcher", "/metrics/"),
        ("metric-report", "researcher", f"/metrics/campaign/{c}/"),
        ("metric-run", "researcher", f"/metrics/run/{run.pk}/"),
        ("rater-campaigns", "rater3", "/rate/"),
        ("instructions", "rater3", f"/rate/{c}/"),
        ("item", "rater3", f"/rate/{c}/item/"),
        ("completion", "rater3", f"/rate/{c}/done/"),
        ("error-403", "researcher", "/data/"),
        ("error-404", "organizer", "/no-such-page/"),
    ]


def log_in(page, base, account):
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(account)
    page.get_by_label("Password").fill(f"demo-{account}")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/**")


def open_page(page, base, path):
    """Go to ``path``; the item page needs the rater's item leased first (the instructions' Start button)."""
    if path.endswith("/item/"):
        page.goto(base + path.removesuffix("item/"))
        page.get_by_role("button", name="Start rating").click()
        page.wait_for_selector(".submit-score")
    page.goto(base + path)


def test_no_serious_accessibility_problem_on_any_page(live_server, browser, demo_world, artifacts_dir):
    from axe_playwright_python.sync_playwright import Axe

    campaign, run = demo_world
    axe, found, shots = Axe(), {}, artifacts_dir / "pages"
    shots.mkdir(exist_ok=True)
    contexts = {}
    for name, account, path in pages(campaign, run):
        for label, viewport in VIEWPORTS.items():
            context = contexts.get((account, label))
            if context is None:
                context = contexts[(account, label)] = browser.new_context(viewport=viewport)
                context.set_default_timeout(TIMEOUT_MS)
                if account:
                    log_in(context.new_page(), live_server.url, account)
            page = context.new_page()
            open_page(page, live_server.url, path)
            page.screenshot(path=str(shots / f"{name}-{label}.png"), full_page=True)
            violations = axe.run(page).response["violations"]
            blocking = [{"id": v["id"], "impact": v["impact"], "help": v["help"],
                         "where": [node["target"] for node in v["nodes"]][:5]}
                        for v in violations if v["impact"] in BLOCKING_IMPACTS]
            if blocking:
                found[f"{name}@{label}"] = blocking
            page.close()
    for context in contexts.values():
        context.close()
    (artifacts_dir / "axe-violations.json").write_text(json.dumps(found, indent=2))
    assert not found, json.dumps(found, indent=2)
