"""Issue 18, failures 1-4: every account confined to its door, on the screens and the API alike.

Each test reproduces a probe of the issue. Before the fix (commit a7b981f) failures 1-3 passed
through the API and the screens, and failure 4 left several leases on PostgreSQL.
"""

import json

import pytest
from django.test import Client
from django.urls import reverse

from core import doors, engine
from core.models import Assignment, Campaign, CrowdSession, Rating
from evalapp.formats.comve import SourceFile
from evalapp.services import crowd as crowd_service
from evalapp.services.results import table6
from tests.crowd.conftest import entry, mturk_params, screen
from tests.crowd.helpers import rate_items, shown_assignment
from tests.engine.threads import require_threadable_database, run_in_threads
from tests.screens.conftest import make_campaign, make_rater

pytestmark = [pytest.mark.django_db(transaction=False), pytest.mark.postgres]


@pytest.fixture
def lab(db):
    """A lab campaign: no crowd platform enabled."""
    return make_campaign(name="Lab", raters_per_item=3)


def human_scores(campaign):
    return [(row.team, row.human, row.ratings) for row in table6(campaign).rows]


def enter(client, campaign, worker="A1WORKERTEST", assignment="3ASSIGNMENTTEST1"):
    response = client.post(entry("mturk", campaign), mturk_params(worker=worker, assignment=assignment))
    assert response.status_code == 302, response
    return CrowdSession.objects.get(session_id=assignment)


def api_next(client, campaign):
    return client.post(f"/api/rate/campaigns/{campaign.pk}/next/")


def test_a_crowd_account_cannot_rate_in_a_lab_campaign_web_or_api(campaign, lab):
    """Failure 1: three invented workers, entered through a crowd campaign, rated a lab campaign with 0."""
    before = human_scores(lab)
    for n in range(3):
        worker = Client()
        enter(worker, campaign, worker=f"A1INVENTED{n}", assignment=f"3ASSIGNMENTINV{n}")
        assert worker.post(screen("next", lab)).status_code == 404
        assert worker.get(screen("item", lab)).status_code == 404
        assert worker.post(screen("item", lab), {"assignment": 1, "score": 0}).status_code == 404
        assert worker.get(screen("instructions", lab)).status_code == 404
        assert api_next(worker, lab).status_code == 404
        assert worker.get(f"/api/rate/campaigns/{lab.pk}/current/").status_code == 404
    assert not Assignment.objects.filter(campaign=lab).exists()
    assert human_scores(lab) == before


def test_a_crowd_rating_in_a_lab_campaign_never_counts(lab):
    """Counting follows the doors: a crowd account's rating made outside any crowd session does not count,
    even if it got into the database by some other road."""
    crowd_rater = make_rater_crowd()
    before = human_scores(lab)
    while (lease := engine.next_assignment(lab, crowd_rater)) is not None:
        engine.submit_rating(lease.pk, crowd_rater, 0)
    assert Rating.objects.filter(campaign=lab).count() > 0
    assert Rating.objects.counted(lab).count() == 0
    assert human_scores(lab) == before


def make_rater_crowd():
    from annotators import crowd

    return crowd.crowd_rater(crowd.MTURK, "A1ROGUE")


def test_the_campaign_list_shows_a_crowd_account_only_its_own_campaign(campaign, lab):
    """Failure 1: GET /api/rate/campaigns/ showed crowd accounts the name and instructions of every campaign."""
    worker = Client()
    enter(worker, campaign)
    listed = [row["name"] for row in worker.get("/api/rate/campaigns/").json()["results"]]
    assert listed == [campaign.name]
    page = worker.get(reverse("annotators:campaigns")).content.decode()
    assert campaign.name in page and lab.name not in page


def test_crowd_api_ratings_belong_to_the_crowd_session(campaign):
    """Failure 2: with their session cookie, crowd workers leased and rated outside any crowd session;
    a platform file rejecting the session then excluded nothing."""
    worker = Client()
    session = enter(worker, campaign)
    for _ in range(3):
        body = api_next(worker, campaign).json()
        rated = worker.post(
            f"/api/rate/assignments/{body['assignment_id']}/rating/",
            data=json.dumps({"score": 1}),
            content_type="application/json",
        )
        assert rated.status_code == 201, rated.content
    assert not Assignment.objects.filter(campaign=campaign, crowd_session__isnull=True).exists()
    csv = (
        f"WorkerId,AssignmentId,HITId,AssignmentStatus\nA1WORKERTEST,{session.session_id},{session.task_id},Rejected\n"
    ).encode()
    result = crowd_service.import_crowd_submissions(campaign, "mturk", SourceFile("batch.csv", csv))
    assert result.ratings_excluded == Rating.objects.filter(campaign=campaign).count() >= 3


def test_a_crowd_account_outside_its_session_gets_nothing(campaign):
    """A crowd account whose browser did not enter the campaign (or whose session was rejected) has no door."""
    worker = Client()
    session = enter(worker, campaign)
    other = make_campaign(name="Other crowd", raters_per_item=1, mturk_enabled=True)
    assert api_next(worker, other).status_code == 404
    CrowdSession.objects.filter(pk=session.pk).update(status=CrowdSession.Status.REJECTED)
    assert api_next(worker, campaign).status_code == 404
    assert worker.post(screen("next", campaign)).status_code == 404


def test_a_stranger_with_a_known_worker_id_cannot_flag_the_victims_item(campaign):
    """Failure 3: a stranger entering with the victim's worker id flagged the victim's item through the API."""
    victim, stranger = Client(), Client()
    enter(victim, campaign, assignment="3ASSIGNMENTVICTIM")
    rate_items(victim, campaign, 1)
    held = shown_assignment(victim.get(screen("item", campaign)))
    enter(stranger, campaign, assignment="3ASSIGNMENTSTRANGE")
    response = stranger.post(
        f"/api/rate/assignments/{held}/flag/", data=json.dumps({"note": "x"}), content_type="application/json"
    )
    assert response.status_code == 404
    response = stranger.post(
        f"/api/rate/assignments/{held}/rating/", data=json.dumps({"score": 0}), content_type="application/json"
    )
    assert response.status_code == 404
    assert Assignment.objects.get(pk=held).status == Assignment.Status.LEASED
    assert not Rating.objects.filter(assignment_id=held).exists()


def test_lab_access_lists_or_closes_the_lab_door(lab, django_user_model):
    listed_user, unlisted_user = (make_rater(django_user_model, name) for name in ("listed", "unlisted"))
    crowd_service.save_settings(lab, lab_access=Campaign.LabAccess.LISTED, lab_raters=[listed_user.rater])
    listed, unlisted = Client(), Client()
    listed.force_login(listed_user)
    unlisted.force_login(unlisted_user)
    assert api_next(listed, lab).json()["assignment_id"] is not None
    assert api_next(unlisted, lab).status_code == 404
    assert unlisted.post(screen("next", lab)).status_code == 404
    assert [c.name for c in doors.campaigns_open_to(unlisted_user.rater)] == []
    assert [c.name for c in doors.campaigns_open_to(listed_user.rater)] == [lab.name]
    for _ in range(4):
        rating = listed.post(
            screen("item", lab), {"assignment": engine.live_lease(lab, listed_user.rater).pk, "score": 3}
        )
        assert rating.status_code == 302
    system_ratings = Rating.objects.filter(campaign=lab, item__kind="system")
    assert system_ratings.exists() and Rating.objects.counted(lab).count() == system_ratings.count()
    crowd_service.save_settings(lab, lab_access=Campaign.LabAccess.NONE)
    assert api_next(listed, lab).status_code == 404
    assert Rating.objects.counted(lab).count() == 0, "the lab door closed: lab ratings stop counting"


def test_the_organizer_sets_lab_access_on_the_web_and_the_api(lab, django_user_model):
    from django.contrib.auth.models import Group

    organizer = django_user_model.objects.create_user(username="org", password="pw-org")
    organizer.groups.add(Group.objects.get_or_create(name="organizer")[0])
    rater = make_rater(django_user_model, "labrater").rater
    web, api = Client(), Client()
    web.force_login(organizer)
    api.force_login(organizer)
    form = {"lab_access": "listed", "lab_raters": [rater.pk], "count_reconciled_only": "on"}
    assert web.post(reverse("campaigns:crowd", kwargs={"campaign_id": lab.pk}), form).status_code == 302
    lab.refresh_from_db()
    assert lab.lab_access == "listed" and list(lab.lab_raters.all()) == [rater]
    response = api.patch(
        f"/api/campaigns/{lab.pk}/crowd/",
        data=json.dumps({"lab_access": "none", "lab_raters": []}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    lab.refresh_from_db()
    assert lab.lab_access == "none" and not lab.lab_raters.exists()


@pytest.mark.django_db(transaction=True)
def test_one_rater_gets_one_lease_from_concurrent_requests(lab, django_user_model):
    """Failure 4: eight concurrent POST next from one rater left 2-7 live leases on PostgreSQL."""
    require_threadable_database()
    user = make_rater(django_user_model, "hoarder")
    rater = user.rater
    leases = run_in_threads([lambda: engine.next_assignment(Campaign.objects.get(pk=lab.pk), rater).pk] * 8)
    assert len(set(leases)) == 1
    assert Assignment.objects.filter(rater=rater, campaign=lab, status="leased").count() == 1
