"""Roles are said the same way everywhere (issue 12, deliverable 8): the roles module, the demo's
login banner and the manual. Before, the banner called a researcher "read-only" although a
researcher starts metric runs and imports scores."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from core.roles import ORGANIZER, RATER, RESEARCHER, ROLE_DESCRIPTIONS

MANUAL = Path(__file__).resolve().parents[2] / "docs" / "index.md"


def test_the_manual_quotes_every_role():
    manual = MANUAL.read_text()
    for role, description in ROLE_DESCRIPTIONS.items():
        assert f"| {role} | {description} |" in manual, role


@pytest.mark.django_db
def test_the_demo_banner_says_the_same(settings):
    settings.DEBUG = True
    out = io.StringIO()
    call_command("demo", stdout=out)
    banner = out.getvalue()
    for role in (ORGANIZER, RESEARCHER, RATER):
        assert f"({role}: {ROLE_DESCRIPTIONS[role]})" in banner
    assert "read-only" not in banner


@pytest.mark.django_db
def test_a_researcher_may_do_what_the_description_says_and_no_more(client, researcher):
    """Reads results and starts metric runs (API matrix: tests/api/test_auth_matrix.py); never changes
    campaigns, ratings or raters: every organizer write is 403."""
    from tests.metrics.builders import build_study_campaign

    campaign = build_study_campaign(n_instances=3, n_systems=2, raters=2)
    client.force_login(researcher)
    assert client.get(f"/results/{campaign.pk}/").status_code == 200
    for path in [
        f"/campaigns/{campaign.pk}/status/",
        f"/campaigns/{campaign.pk}/thresholds/",
        f"/campaigns/{campaign.pk}/crowd/",
        "/campaigns/new/",
        "/data/import/",
    ]:
        assert client.post(path, {}).status_code == 403, path
