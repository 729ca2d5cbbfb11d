"""manage.py demo: the repository's own demo data, accounts for every role, a campaign."""

import csv
from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import RequestFactory

from core import roles
from core.models import Campaign, Item, System
from evalapp.models import Submission
from evalapp.services.demo import ACCOUNTS, DEMO_DATA, STUDY_CAMPAIGN_NAME, SYSTEMS
from evalapp.services.results import human_scores, ratings_records
from tests.data.helpers import db_counts

pytestmark = pytest.mark.django_db

DEMO_INSTANCES = 20


def test_demo_data_files_are_complete():
    with open(DEMO_DATA / "references.csv", encoding="utf-8", newline="") as handle:
        references = list(csv.reader(handle))
    assert len(references) == DEMO_INSTANCES and all(len(row) == 4 and all(row) for row in references)


def test_demo_loads_everything_and_is_idempotent(settings):
    settings.DEBUG = True
    out = StringIO()
    call_command("demo", stdout=out)
    text = out.getvalue()
    assert "http://127.0.0.1:8000/" in text
    for account in ACCOUNTS:
        assert f"{account.username:<11} password {account.password}" in text
        user = authenticate(
            RequestFactory().post("/accounts/login/"), username=account.username, password=account.password
        )
        assert user is not None
        assert {
            roles.ORGANIZER: roles.is_organizer,
            roles.RESEARCHER: roles.is_researcher,
            roles.RATER: roles.is_rater,
        }[account.role](user)
    campaign = Campaign.objects.get(name="demo")
    assert campaign.sampled.count() == DEMO_INSTANCES and campaign.raters_per_item == 3
    assert campaign.human_reference == 1 and 0 < campaign.control_rate < 1
    assert Item.objects.filter(campaign=campaign, kind=Item.Kind.CONTROL).exists()
    bleu = {s.system.name: s.official_bleu for s in Submission.objects.select_related("system")}
    assert [name for name, _, _ in SYSTEMS] == ["demo-good", "demo-fair", "demo-negation", "demo-poor"]
    assert bleu["demo-good"] > bleu["demo-negation"] > bleu["demo-poor"]
    assert bleu["demo-fair"] < bleu["demo-negation"]  # BLEU misjudges the ungrammatical but relevant system
    assert System.objects.filter(dataset=campaign.dataset, is_human=True).count() == 1
    study = Campaign.objects.get(name=STUDY_CAMPAIGN_NAME)  # rated, for the metric study
    assert study.status == Campaign.Status.CLOSED and study.sampled.count() == DEMO_INSTANCES
    scores = human_scores(study, ratings_records(study))
    assert all(s["complete"] and s["ratings"] == DEMO_INSTANCES * 3 for s in scores.values())
    assert (
        scores["Human"]["human"]
        > scores["demo-good"]["human"]
        > scores["demo-fair"]["human"]
        > scores["demo-negation"]["human"]
        > scores["demo-poor"]["human"]
    )

    before = db_counts()
    out = StringIO()
    call_command("demo", stdout=out)
    assert "nothing (already loaded)" in out.getvalue()
    assert db_counts() == before and Campaign.objects.count() == 2


def test_demo_refuses_without_debug_unless_forced(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="--force"):
        call_command("demo", stdout=StringIO())
    assert Campaign.objects.count() == 0
    call_command("demo", "--force", stdout=StringIO())
    assert Campaign.objects.count() == 2
