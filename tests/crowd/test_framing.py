"""The rater screens may be framed by Mechanical Turk only; cookies follow the iframe setting."""

import os
import subprocess
import sys

import pytest
from django.test import Client

from annotators import pending
from tests.conftest import REPO
from tests.crowd.conftest import entry, mturk_params, screen

pytestmark = pytest.mark.django_db

FRAME_ANCESTORS = (
    "frame-ancestors 'self' https://worker.mturk.com https://www.mturk.com https://workersandbox.mturk.com"
)


def frame_directive(response):
    """The frame-ancestors directive of the response's Content-Security-Policy."""
    directives = [part.strip() for part in response["Content-Security-Policy"].split(";")]
    return next(part for part in directives if part.startswith("frame-ancestors"))


def test_rater_screens_allow_mturk_frames_only(client, campaign):
    responses = [
        client.get(entry("mturk", campaign)),
        client.get(entry("mturk", campaign), mturk_params()),
        client.get(entry("prolific", campaign)),
    ]
    client.post(entry("mturk", campaign), mturk_params())
    responses += [client.get(screen(name, campaign)) for name in ("instructions", "item", "done")]
    responses.append(client.get("/rate/"))
    for response in responses:
        assert response.status_code in (200, 400), response
        assert frame_directive(response) == FRAME_ANCESTORS
        assert "script-src 'self'" in response["Content-Security-Policy"], "the rest of the policy stays"
        assert "X-Frame-Options" not in response


def test_a_test_host_joins_the_frame_ancestors_through_the_setting(client, campaign, settings):
    settings.COMVE_MTURK_SUBMIT_HOSTS = ["http://127.0.0.1:8765"]
    response = client.get(entry("mturk", campaign))
    assert frame_directive(response) == FRAME_ANCESTORS + " http://127.0.0.1:8765"


def test_other_pages_still_refuse_frames(client, campaign, organizer):
    client.force_login(organizer)
    for address in (screen("crowd", campaign), screen("quality", campaign), "/accounts/login/"):
        response = client.get(address)
        assert response["X-Frame-Options"] == "DENY" and frame_directive(response) == "frame-ancestors 'none'"


def test_kept_choice_cookie_follows_the_session_cookie_samesite(campaign, rater_user, settings):
    settings.SESSION_COOKIE_SAMESITE = "None"
    settings.SESSION_COOKIE_SECURE = True
    client = Client(enforce_csrf_checks=True)
    client.force_login(rater_user)
    client.post(screen("next", campaign))
    response = client.post(screen("item", campaign), {"assignment": "1", "score": "2"})
    cookie = response.cookies[pending.COOKIE_NAME]
    assert cookie["samesite"] == "None" and cookie["secure"]


def iframe_cookie_settings(flag):
    env = {**os.environ, "COMVE_CROWD_IFRAME_COOKIES": flag, "DJANGO_SETTINGS_MODULE": "config.settings"}
    # The settings alone (read lazily from config.settings), without django.setup()'s import of every app:
    # what is checked is what the settings module makes of the variable (1.5 -> 0.05 CPU s a process).
    code = (
        "from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_SAMESITE, s.CSRF_COOKIE_SAMESITE, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE)"
    )
    return subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()


def test_iframe_cookies_setting():
    assert iframe_cookie_settings("1") == ["None", "None", "True", "True"]
    assert iframe_cookie_settings("0") == ["Lax", "Lax", "False", "False"]


def test_checks_warn_about_insecure_iframe_cookies_and_test_hosts(settings):
    from annotators import checks

    assert checks.iframe_cookies_need_secure() == [] and checks.mturk_test_hosts() == []
    settings.SESSION_COOKIE_SAMESITE = "None"
    settings.SESSION_COOKIE_SECURE = False
    assert [warning.id for warning in checks.iframe_cookies_need_secure()] == ["annotators.W001"]
    settings.COMVE_MTURK_SUBMIT_HOSTS = ["http://127.0.0.1:8765"]
    settings.DEBUG = False
    assert [warning.id for warning in checks.mturk_test_hosts()] == ["annotators.W003"]
