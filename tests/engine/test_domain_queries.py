"""The domain queries every interface shares, as manager methods and core/progress functions (issue 21,
item 4): the campaign lookup of the commands, the dataset and assignment queries, a crowd session's
progress and cap, and the background-job registry the services queue through."""

from datetime import timedelta

import pytest
from django.core.management.base import CommandError
from django.utils import timezone

from core import engine
from core.models import Assignment, Campaign, CrowdSession, Dataset, Rater
from core.progress import RaterProgress, in_session, rater_progress, session_full
from evalapp.management.cli import campaign_named
from evalapp.services import background
from tests.engine.builders import build_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def worker(name, platform=Rater.Platform.PROLIFIC):
    return Rater.objects.create(external_id=name, platform=platform, order_seed=engine.new_order_seed())


def test_a_campaign_is_found_by_name_and_a_missing_one_lists_the_others(campaign):
    assert Campaign.objects.named("c") == campaign
    with pytest.raises(Campaign.DoesNotExist, match=r"no campaign named 'nope' \(campaigns: c\)"):
        Campaign.objects.named("nope")
    with pytest.raises(CommandError, match=r"no campaign named 'nope' \(campaigns: c\)"):
        campaign_named("nope")
    Campaign.objects.all().delete()
    with pytest.raises(Campaign.DoesNotExist, match=r"\(campaigns: none yet\)"):
        Campaign.objects.named("c")


def test_campaigns_are_listed_newest_first_with_their_dataset(campaign):
    newer = Campaign.objects.create(name="newer", dataset=campaign.dataset)
    listed = list(Campaign.objects.listed())
    assert listed == [newer, campaign]
    assert "dataset" in Campaign.objects.listed().query.select_related


def test_datasets_are_counted_once_per_instance_and_system(campaign):
    build_dataset(name="another", instances=3, systems=("one", "two", "three"))
    counts = {(d.name, d.instance_count, d.system_count) for d in Dataset.objects.with_counts()}
    assert counts == {("ds", 4, 2), ("another", 3, 3)}


def test_a_rater_sees_only_their_own_assignments_and_the_live_leases(campaign):
    ann, bob = worker("ann"), worker("bob")
    now = timezone.now()
    mine = engine.next_assignment(campaign, ann, now)
    theirs = engine.next_assignment(campaign, bob, now)
    assert list(Assignment.objects.of_rater(ann)) == [mine]
    assert not Assignment.objects.of_rater(None).exists()
    assert set(Assignment.objects.filter(campaign=campaign).live(now)) == {mine, theirs}
    assert set(Assignment.objects.filter(campaign=campaign).live(now + timedelta(days=1))) == set()
    engine.submit_rating(mine.pk, ann, 2, now=now)
    assert list(Assignment.objects.of_rater(ann).unfinished()) == []
    assert list(Assignment.objects.of_rater(bob).unfinished()) == [theirs]


def test_a_crowd_sessions_progress_counts_its_own_ratings_up_to_the_cap(campaign):
    """8 items, 2 raters each; a session capped at 3 items: 0 of 3, 2 of 3, then full at 3 of 3."""
    campaign.items_per_session = 3
    campaign.save()
    rater = worker("A1WORKER", Rater.Platform.MTURK)
    session = CrowdSession.objects.create(
        campaign=campaign, rater=rater, platform=rater.platform, session_id="3ASSIGNMENT", task_id="3HIT"
    )
    assert rater_progress(campaign, rater) == RaterProgress(0, 8)
    assert rater_progress(campaign, rater, session) == RaterProgress(0, 3)
    for expected in (1, 2, 3):
        assert not session_full(campaign, session)
        assignment = engine.next_assignment(campaign, rater, crowd_session_id=session.pk)
        engine.submit_rating(assignment.pk, rater, 1, crowd_session_id=session.pk)
        assert session.rating_count() == expected
    assert rater_progress(campaign, rater, session) == RaterProgress(3, 3)
    assert rater_progress(campaign, rater, session).completed
    assert session_full(campaign, session)
    assert not session_full(campaign, None)
    # The same figures from the overall progress the engine read with the lease.
    assert in_session(campaign, session, rater_progress(campaign, rater)) == RaterProgress(3, 3)
    assert rater_progress(campaign, rater) == RaterProgress(3, 8)
    reviewed = CrowdSession.objects.filter(pk=session.pk).with_ratings().get()
    assert reviewed.ratings == 3


def test_finished_and_completed_differ_only_with_nothing_rated():
    assert RaterProgress(0, 0).finished and not RaterProgress(0, 0).completed
    assert RaterProgress(2, 2).finished and RaterProgress(2, 2).completed
    assert not RaterProgress(1, 2).finished and not RaterProgress(1, 2).completed
    assert RaterProgress(1, 2).as_dict() == {"done": 1, "total": 2, "finished": False}


def test_the_background_jobs_are_registered_by_the_tasks_and_an_unknown_one_is_refused():
    from evalapp import tasks

    assert background._jobs[background.METRIC_RUN] is tasks.run_metric_study
    assert background._jobs[background.RATER_EFFECTS_FIT] is tasks.fit_rater_effects_task
    with pytest.raises(background.NoSuchJob, match="no background job 'nothing'"):
        background.enqueue("nothing")
