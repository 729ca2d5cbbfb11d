"""Issue 18, failure 6: every export escapes everything it prints, headings included.

A hostile campaign name, team name, reason, flag note and rater name go through every download
(Table 6 in JSON, CSV, Markdown and LaTeX; ratings; rater quality; crowd sessions; agreement) and
the organizer's pages that show them. Before the fix (commit a7b981f) the campaign name went
unescaped into the first line of ``table6.markdown``, and a line break in it ended the LaTeX
comment line that carries it.
"""

import csv
import io
import json

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from core import engine, flags
from core.models import Campaign, System
from evalapp.options.table6 import Table6Options
from evalapp.services import exports
from tests.engine.builders import build_dataset
from tests.screens.conftest import make_rater

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

SCRIPT = "<script>alert(1)</script>"
# Markup, Markdown table and emphasis syntax, LaTeX specials, a formula and a line break that would
# start a row of its own (Markdown) or end a comment and run LaTeX (\input).
HOSTILE = f"=cmd|{SCRIPT}*x*_[a](b)`c`&\\input{{x}}%$#^~\n| injected | row |\n\\input{{y}}"
HOSTILE_TEAM = f"{SCRIPT}|*T*_\\def{{z}}"


@pytest.fixture
def hostile(db, django_user_model):
    dataset = build_dataset(
        name="ds-hostile",
        instances=4,
        systems=(HOSTILE_TEAM, "plain"),
        outputs=lambda system, index: f"{HOSTILE} reason {index}",
    )
    from evalapp.services.campaigns import create_campaign

    campaign = create_campaign(dataset, "Hostile", seed=7, raters_per_item=1)
    Campaign.objects.filter(pk=campaign.pk).update(name=HOSTILE)  # past the form's checks, as an old row could be
    campaign.refresh_from_db()
    rater_user = make_rater(django_user_model, SCRIPT[:20] + "&x")
    rater = rater_user.rater
    flagged = engine.next_assignment(campaign, rater)
    flags.flag_item(flagged.pk, rater, campaign, note=HOSTILE)
    while (lease := engine.next_assignment(campaign, rater)) is not None:
        engine.submit_rating(lease.pk, rater, 2)
    return campaign


def every_download(campaign):
    for kind, formats in exports.FORMATS.items():
        if kind == exports.METRIC_REPORT:
            continue  # a finished metric run's report: tests/metrics hold its escaping
        for fmt in formats:
            if kind == exports.TABLE6:
                yield f"{kind}.{fmt}", exports.table6(campaign, fmt).text
                if fmt == "latex":
                    yield f"{kind}.{fmt} halves", exports.table6(campaign, fmt, Table6Options(halves=True)).text
            else:
                export = {
                    exports.AGREEMENT: exports.agreement,
                    exports.RATINGS: exports.ratings,
                    exports.QUALITY: exports.rater_quality,
                    exports.CROWD_SESSIONS: exports.crowd_sessions,
                }[kind]
                yield f"{kind}.{fmt}", export(campaign, fmt).text


def check_markdown(text):
    assert "<script" not in text and "<" not in text.replace("&lt;", "")
    for line in text.splitlines():
        assert not line.startswith("| injected"), line
        assert not line.startswith("\\input"), line


def check_latex(text):
    for line in text.splitlines():
        # Every line is a comment, a tabular command, or a row: nothing of a name runs as a command.
        assert "\\input" not in line.replace("\\textbackslash{}input", ""), line
        assert "\\def" not in line.replace("\\textbackslash{}def", ""), line
        assert not line.startswith("| injected"), line


def check_csv(text):
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell


def test_hostile_names_go_through_every_export_escaped(hostile):
    seen = {}
    for label, text in every_download(hostile):
        fmt = label.split(".", 1)[1].split()[0]
        seen[label] = text
        {"markdown": check_markdown, "latex": check_latex, "csv": check_csv, "json": json.loads}[fmt](text)
    assert seen["table6.markdown"].splitlines()[0].startswith("Table 6: =cmd\\|&lt;script&gt;alert(1)")
    assert "[a]\\(b)" in seen["table6.markdown"], "no link"
    assert seen["table6.latex"].splitlines()[0].endswith("\\textbackslash{}input\\{y\\}")
    assert json.loads(seen["table6.json"])["campaign"] == HOSTILE, "JSON keeps the name exactly"
    teams = {row["team"] for row in json.loads(seen["table6.json"])["rows"]}
    assert HOSTILE_TEAM in teams
    assert HOSTILE_TEAM in [row[1] for row in csv.reader(io.StringIO(seen["ratings.csv"]))]


def test_hostile_names_are_escaped_on_the_organizers_pages(hostile, django_user_model):
    organizer = django_user_model.objects.create_user(username="org-h", password="pw-org-h")
    organizer.groups.add(Group.objects.get_or_create(name="organizer")[0])
    client = Client()
    client.force_login(organizer)
    pages = [
        f"/campaigns/{hostile.pk}/",
        f"/campaigns/{hostile.pk}/quality/",
        f"/results/{hostile.pk}/",
        f"/campaigns/{hostile.pk}/crowd/",
        "/campaigns/",
        "/results/",
    ]
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        assert SCRIPT not in response.content.decode(), page
    assert System.objects.filter(name=HOSTILE_TEAM).exists()
