"""The researcher's job on the embedded default, end to end: ``scripts/demo.sh`` (SQLite, one
command) serves the app and runs metric jobs; in Chromium the researcher starts a run, watches
the bar move without a reload and lands on the report; SIGTERM stops the server and the worker."""

import os
import signal
import socket
import subprocess
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.conftest import REPO

pytestmark = [pytest.mark.browser]
START_SECONDS = 180  # migrate + demo + server start on a busy machine; a bound, not a speed target
RUN_SECONDS = 300


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, deadline, process):
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            time.sleep(1)
    return False


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def start_demo(folder):
    port = free_port()
    log = open(folder / "demo.log", "w+")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{folder / 'demo.sqlite3'}",
        "COMVE_DEMO_ADDR": f"127.0.0.1:{port}",
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    process = subprocess.Popen(
        ["bash", "scripts/demo.sh"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    if not wait_for(f"{url}/accounts/login/", time.monotonic() + START_SECONDS, process):
        log.seek(0)
        text = log.read()
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()
        pytest.fail(f"scripts/demo.sh did not serve {url}:\n{text}")
    return url, process, log


@pytest.fixture(scope="module")
def demo_servers(tmp_path_factory):
    """The demo's start (migrate, the demo data, the server and the worker) is most of these tests' time,
    so the tests of this module share one: each asks ``demo_server`` for it, which starts a new one in a
    fresh folder when a test before stopped it (the SIGTERM test does, and runs last in the file)."""
    started = []

    def running():
        if not started or started[-1][1].poll() is not None:
            started.append(start_demo(tmp_path_factory.mktemp("demo")))
        return started[-1]

    yield running
    for _, process, log in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()


@pytest.fixture
def demo_server(demo_servers):
    return demo_servers()


def test_demo_sh_shows_the_sites_own_error_pages(demo_server, new_context):
    """DEBUG is off in the demo: a 404 is the site's page (layout, one sentence, the way home), not
    Django's debug page that lists every URL pattern."""
    url, process, log = demo_server
    page = new_context().new_page()
    response = page.goto(f"{url}/no-such-page/")
    assert response.status == 404
    assert page.get_by_role("heading", name="Page not found").is_visible()
    assert "URLconf" not in page.content() and "DEBUG = True" not in page.content()
    assert page.locator("link[rel=stylesheet]").count() >= 1
    assert page.evaluate("getComputedStyle(document.body).fontFamily").startswith("system-ui")  # static files served


def test_demo_sh_serves_and_runs_a_metric_study(demo_server, new_context, artifacts_dir):
    url, process, log = demo_server
    page = new_context().new_page()
    page.goto(f"{url}/accounts/login/?next=/metrics/")
    page.get_by_label("Username").fill("researcher")
    page.get_by_label("Password").fill("demo-researcher")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{url}/metrics/")
    page.get_by_role("link", name="demo-study").click()
    expect(page.get_by_text("No finished metric study")).to_be_visible()
    for metric in ("comve_bleu", "chrf", "bertscore"):
        page.locator(f'input[name="metrics"][value="{metric}"]').check()
    page.get_by_label("Bootstrap resamples").fill("200")
    # The first polls get scripted states, so the bar must move however fast this machine runs the
    # study (its scores may be cached); every later poll reaches the real API, which ends the run.
    scripted = [
        {"status": "running", "progress": 0.25, "status_line": "Running: ComVE BLEU", "time_left": ""},
        {"status": "running", "progress": 0.5, "status_line": "Running: BERTScore", "time_left": "About 1 min left"},
    ]
    answered = []

    def poll(route):
        if scripted:
            state = scripted.pop(0)
            answered.append(state)
            route.fulfill(json=state)
            return
        response = route.fetch()
        answered.append(response.json())
        route.fulfill(response=response)

    page.route("**/api/metric-runs/*/", poll)
    page.get_by_role("button", name="Start the computation").click()
    page.wait_for_url("**/metrics/run/*/")
    page.locator("#run-status-line").wait_for()
    page.evaluate("window.sameDocument = true")  # gone if the page reloads
    for state in ("Running: ComVE BLEU", "Running: BERTScore"):
        expect(page.locator("#run-status-line")).to_have_text(state, timeout=10_000)
        expect(page.locator("#run-progress")).to_have_attribute("value", "25" if "BLEU" in state else "50")
        expect(page.locator("#run-time-left")).to_be_visible(visible="BERTScore" in state)
        assert page.evaluate("window.sameDocument === true"), "the page reloaded instead of updating in place"
    page.wait_for_url(f"{url}/metrics/campaign/*/", timeout=RUN_SECONDS * 1000)
    assert page.get_by_role("heading", name="Metric study: demo-study").is_visible()
    assert page.locator("table").count() >= 3 and "bertscore_f1" in page.content()
    page.screenshot(path=str(artifacts_dir / "demo-metric-study-report.png"), full_page=False)
    # the real run's own answers: it ended done, and each status line said one thing once
    real = answered[2:]
    assert real and real[-1]["status"] == "done", real
    lines = {state["status_line"] for state in real}
    assert all(line.count(":") <= 2 for line in lines), lines
    assert not any("queued" in line.lower() and "running" in line.lower() for line in lines), lines

    process.send_signal(signal.SIGTERM)  # to the script alone: its trap stops the server and the worker
    process.wait(timeout=30)
    deadline = time.monotonic() + 30
    while group_alive(process.pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not group_alive(process.pid), "a process of scripts/demo.sh survived SIGTERM"
    log.seek(0)
    assert "shutting down" in log.read()
