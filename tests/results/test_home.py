"""The home page: each role's checklists, one per campaign, with each step's link and its state."""

import pytest
from django.urls import reverse

from core import engine, flags
from core.models import Campaign, Rater
from evalapp.models import MetricRun
from evalapp.services.campaigns import set_campaign_status
from evalapp.services.demo import load_demo
from tests.results.factories import rated_campaign

pytestmark = pytest.mark.django_db


def steps(listed):
    return [(step.title, step.url, step.state, step.done) for step in listed]


def by_name(home):
    return {campaign.name: campaign for campaign in home.campaigns}


def test_an_empty_site_tells_the_organizer_where_to_start(client, organizer):
    client.force_login(organizer)
    home = client.get("/").context["organizer_home"]
    assert [title for title, *_ in steps(home.setup)] == [
        "Load the data",
        "Import the teams' submissions",
        "Create a campaign",
    ]
    assert home.setup[0].state.startswith("no dataset yet") and not any(step.done for step in home.setup)
    assert home.campaigns == ()


def test_every_campaign_has_its_own_steps_in_its_own_state(client, organizer):
    demo = load_demo().campaign
    study = Campaign.objects.get(name="demo-study")
    client.force_login(organizer)
    page = client.get("/")
    home = page.context["organizer_home"]
    assert steps(home.setup)[:2] == [
        ("Load the data", reverse("data:index"), "1 dataset", True),
        ("Import the teams' submissions", reverse("data:index"), "4 systems, 4 with a submission", True),
    ]
    assert home.setup[2].state == "2 campaigns (each has its steps below)"
    assert [campaign.name for campaign in home.campaigns] == ["demo", "demo-study"]  # the open one first
    demo_steps = steps(by_name(home)["demo"].steps)
    assert [title for title, *_ in demo_steps] == [
        "Recruit raters",
        "Review reported items",
        "Watch progress and rater quality",
        "Export Table 6",
    ]
    assert demo_steps[2][1] == reverse("results:dashboard", args=(demo.pk,))
    assert demo_steps[2][2].startswith("0% rated (0 of ") and not demo_steps[2][3]
    assert demo_steps[3][2:] == ("a preview until every rating is in or you close the campaign", False)
    study_steps = steps(by_name(home)["demo-study"].steps)
    assert study_steps[2][2].startswith("closed, 100% rated") and study_steps[3][2:] == (
        "every rating is in: Table 6 is final; not exported yet",
        False,
    )
    assert study_steps[2][1] == reverse("results:dashboard", args=(study.pk,))
    body = page.content.decode()
    assert "Your way through a campaign" in body and "The metric study" in body

    # Reports, raters and closing early move the demo's own steps.
    rater = Rater.objects.get(user__username="rater1")
    flags.flag_item(engine.next_assignment(demo, rater).pk, rater, demo)
    set_campaign_status(demo, Campaign.Status.CLOSED)
    demo_steps = steps(by_name(client.get("/").context["organizer_home"])["demo"].steps)
    assert demo_steps[0][2:] == ("3 raters (3 lab accounts; or Mechanical Turk, Prolific)", True)
    assert demo_steps[1][1:] == (reverse("campaigns:flags", args=(demo.pk,)), "1 item waiting for your review", False)
    assert demo_steps[2][2].startswith("closed, 0% rated") and demo_steps[2][3]
    assert demo_steps[3][2:] == ("closed at 0%: Table 6 is final, incomplete systems marked †; not exported yet", False)
    # Exporting Table 6 (here through the API; the web and the command share the export path) ticks the step.
    client.get(f"/api/campaigns/{demo.pk}/table6/?format=csv")
    state, done = steps(by_name(client.get("/").context["organizer_home"])["demo"].steps)[3][2:]
    assert done and state.startswith("closed at 0%: Table 6 is final, incomplete systems marked †; exported 20")


def test_a_researcher_gets_the_steps_of_each_campaign_with_ratings(client, researcher):
    rated, _ = rated_campaign({"A": [[3, 2, 2], [1, 1, 0]]}, name="home")
    other, _ = rated_campaign({"B": [[1, 2, 2], [1, 1, 0]]}, name="other")
    MetricRun.objects.create(campaign=other, metrics=["chrf"], status=MetricRun.Status.DONE, progress=1.0)
    MetricRun.objects.create(campaign=other, metrics=["chrf"], status=MetricRun.Status.RUNNING)
    client.force_login(researcher)
    response = client.get("/")
    assert response.context["organizer_home"] is None
    home = response.context["researcher_home"]
    assert home.setup[0].state == "2 campaigns with ratings (each has its steps below)"
    home_steps, other_steps = steps(by_name(home)["home"].steps), steps(by_name(home)["other"].steps)
    assert home_steps[0][1:] == (reverse("metrics:campaign", args=(rated.pk,)), "no run yet", False)
    assert other_steps[0][2:] == ("2 runs, 1 finished, 1 running", True)
    assert other_steps[1][2:] == ("0 metrics of your own imported", True)
    assert by_name(home)["home"].url == reverse("results:dashboard", args=(rated.pk,))


def test_a_campaign_without_ratings_is_no_researcher_step(client, researcher):
    load_demo()
    client.force_login(researcher)
    home = client.get("/").context["researcher_home"]
    assert [campaign.name for campaign in home.campaigns] == ["demo-study"]


def test_a_rater_goes_to_their_campaigns(client, rater_user):
    client.force_login(rater_user)
    assert client.get("/")["Location"] == reverse("annotators:campaigns")
