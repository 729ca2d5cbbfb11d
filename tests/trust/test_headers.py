"""Issue 12, deliverable 4: passwords, sessions and headers, and the Markdown export's escaping.

Before: no Content-Security-Policy, pages of signed-in users cacheable, DEBUG on unless set, no
password validators, sessions without an idle limit, and a system named with HTML ran it in a
Markdown viewer of Table 6.
"""

import os
import re
import subprocess
import sys
import time

import pytest
from django.contrib.auth.password_validation import get_default_password_validators, validate_password
from django.core.exceptions import ValidationError

from core.middleware import LAST_ACTIVITY_KEY
from evalapp.services import exports
from tests.metrics.builders import build_study_campaign
from tests.trust.test_crowd_entry import REPO_ROOT

pytestmark = [pytest.mark.django_db]

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
STYLE_ATTRIBUTE = re.compile(r"<[^>]+\sstyle=", re.IGNORECASE)
EVENT_HANDLER = re.compile(r"<[^>]+\son[a-z]+=", re.IGNORECASE)


def csp(response):
    return dict(part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";") if part.strip())


@pytest.fixture
def study(db):
    return build_study_campaign(n_instances=4, n_systems=2, raters=2)


def organizer_pages(campaign):
    return [
        "/",
        "/campaigns/",
        f"/campaigns/{campaign.pk}/",
        f"/campaigns/{campaign.pk}/quality/",
        f"/campaigns/{campaign.pk}/crowd/",
        f"/results/{campaign.pk}/",
        "/results/",
        "/data/",
        "/metrics/",
        f"/metrics/campaign/{campaign.pk}/",
        "/api/docs/",
        "/api/",
    ]


def test_every_page_has_a_strict_policy_and_no_inline_script_or_style(client, organizer, study):
    client.force_login(organizer)
    for path in organizer_pages(study) + ["/accounts/login/"]:
        response = client.get(path)
        assert response.status_code == 200, path
        policy = csp(response)
        assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'", path
        assert policy["frame-ancestors"] == "'none'" and policy["form-action"] == "'self'", path
        assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'", path
        if response["Content-Type"].startswith("text/html"):
            page = response.content.decode()
            assert not INLINE_SCRIPT.search(page), f"inline script on {path}"
            assert not STYLE_ATTRIBUTE.search(page), f"style attribute on {path}"
            assert not EVENT_HANDLER.search(page), f"inline event handler on {path}"


def test_signed_in_pages_and_downloads_are_never_stored(client, organizer, study):
    client.force_login(organizer)
    for path in [
        f"/campaigns/{study.pk}/",
        f"/api/campaigns/{study.pk}/table6/?format=csv",
        f"/results/{study.pk}/table6.csv",
    ]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert "no-store" in response["Cache-Control"], path


def test_debug_is_off_unless_set_even_in_the_demo():
    environment = {key: value for key, value in os.environ.items() if key != "DJANGO_DEBUG"}
    printed = subprocess.run(
        [sys.executable, "-c", "import config.settings as s; print(s.DEBUG)"],
        env=environment,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert printed == "False"
    # Issue 20: the demo shows the site's own error pages, so it no longer turns DEBUG on.
    assert "export DJANGO_DEBUG" not in (REPO_ROOT / "scripts" / "demo.sh").read_text()
    assert "DJANGO_DEBUG" not in (REPO_ROOT / "scripts" / "serve-production.sh").read_text()


def test_the_four_password_validators_refuse_weak_passwords(organizer):
    names = {type(validator).__name__ for validator in get_default_password_validators()}
    assert names == {
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    }
    for weak in ["org", "short", "password", "12345678901234"]:
        with pytest.raises(ValidationError):
            validate_password(weak, organizer)
    validate_password("a-long-Passphrase-for-2026", organizer)


def test_a_session_idle_for_longer_than_the_limit_ends(client, organizer, settings):
    client.force_login(organizer)
    assert client.get("/campaigns/").status_code == 200
    session = client.session
    session[LAST_ACTIVITY_KEY] = int(time.time()) - settings.SESSION_IDLE_SECONDS - 1
    session.save()
    response = client.get("/campaigns/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert settings.SESSION_IDLE_SECONDS == 120 * 60


def test_an_active_session_stays(client, organizer, settings):
    client.force_login(organizer)
    client.get("/campaigns/")
    session = client.session
    session[LAST_ACTIVITY_KEY] = int(time.time()) - settings.SESSION_IDLE_SECONDS + 60
    session.save()
    assert client.get("/campaigns/").status_code == 200


def test_the_markdown_export_escapes_html_in_system_names(study):
    system = study.systems.exclude(name="Human").first()
    system.name = '<img src=x onerror="alert(1)">|*bold*'
    system.save()
    markdown = exports.table6(study, "markdown").text
    assert "<img" not in markdown
    assert (
        r"&lt;img src=x onerror=\"alert(1)\"&gt;\|\*bold\*" in markdown
        or '&lt;img src=x onerror="alert(1)"&gt;\\|\\*bold\\*' in markdown
    )
