"""The home page: each role's checklist, with each step's link and its state."""
import pytest
from django.urls import reverse

from evalapp.services.demo import load_demo
from tests.results.factories import rated_campaign

pytestmark = pytest.mark.django_db


def steps(response, name):
    return [(step.title, step.url, step.state, step.done) for step in response.context[name]]


def test_an_empty_site_tells_the_organizer_where_to_start(client, organizer):
    client.force_login(organizer)
    response = client.get("/")
    organizer_steps = steps(response, "organizer_steps")
    assert [title for title, *_ in organizer_steps] == [
        "Load the data", "Import the teams' submissions", "Create a campaign", "Recruit raters",
        "Watch progress and rater quality", "Export Table 6"]
    assert organizer_steps[0][2].startswith("no dataset yet") and not any(done for *_, done in organizer_steps)


def test_the_demo_checklist_states_where_each_step_stands(client, organizer):
    campaign = load_demo().campaign
    client.force_login(organizer)
    page = client.get("/")
    organizer_steps = steps(page, "organizer_steps")
    assert organizer_steps[0][2:] == ("1 dataset", True)
    assert organizer_steps[1][2:] == ("4 systems, 4 with a submission", True)
    assert organizer_steps[2][2:] == ("2 campaigns; the newest is 'demo'", True)  # and the rated 'demo-study'
    assert organizer_steps[4][1] == reverse("results:dashboard", args=(campaign.pk,))
    assert organizer_steps[4][2].startswith("campaign 'demo' 0% rated (0 of ")
    body = page.content.decode()
    assert "Your way through a campaign" in body and "The metric study" in body


def test_a_researcher_sees_the_metric_study_steps_only(client, researcher):
    campaign, _ = rated_campaign({"A": [[3, 2, 2], [1, 1, 0]]}, name="home")
    client.force_login(researcher)
    response = client.get("/")
    assert response.context["organizer_steps"] is None
    researcher_steps = steps(response, "researcher_steps")
    assert researcher_steps[0][1:] == (reverse("results:dashboard", args=(campaign.pk,)),
                                       "1 campaign with ratings; 'home' is 100% rated", True)
    assert researcher_steps[1][2:] == ("no run of 'home' yet", False)


def test_a_rater_goes_to_their_campaigns(client, rater_user):
    client.force_login(rater_user)
    assert client.get("/")["Location"] == reverse("annotators:campaigns")
