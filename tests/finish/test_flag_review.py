"""The organizer's decisions on reported items (core.flags) and why a campaign stalls (core.progress).

The issue's scenario: 3 raters, 3 ratings per item, one report. The reporter never gets the item
again, so it waits for a rater who has not seen it: the stall says so; a dismissal keeps the item in
the pool, and a fourth rater completes the campaign. Retiring an instance takes it out of every
system's mean and of N, with a footnote under Table 6 in every format.
"""

from datetime import timedelta

import pytest
from django.db.models import Q

from core import engine, flags
from core.engine import SubmissionRefused
from core.models import Assignment, CampaignInstance, Item, ItemFlag, Rating
from core.progress import campaign_progress, campaign_stall, rater_progress
from evalapp.formats import table6 as table6_format
from evalapp.services import results
from evalapp.services.campaigns import create_campaign
from tests.engine.builders import build_dataset
from tests.finish.conftest import T0, new_rater

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def test_one_report_stalls_the_campaign_and_the_stall_says_why(stalled):
    campaign, raters, flagged = stalled
    progress = campaign_progress(campaign)
    assert (progress.ratings, progress.expected, progress.flagged_items) == (17, 18, 1)
    assert all(rater_progress(campaign, rater).finished for rater in raters)
    stall = campaign_stall(campaign)
    assert (stall.waiting, stall.raters, stall.reported, stall.with_room, stall.leased) == (1, 3, 1, 1, 0)
    assert stall.stuck
    assert stall.explanation == (
        "1 item needs a rater who has not seen it: 3 of 3 raters have rated or reported it. "
        "It is reported as broken and waiting for your review."
    )


def test_the_review_queue_shows_the_item_its_text_the_reporter_and_note(stalled):
    campaign, raters, flagged = stalled
    [entry] = flags.review_queue(campaign)
    assert (entry.item_id, entry.instance_id, entry.reason, entry.systems) == (
        flagged.pk,
        "2",
        "alpha reason 2.",
        ("alpha",),
    )
    assert entry.statement == "He put elephant number 2 into the fridge."
    assert [(r.rater, r.note, r.status) for r in entry.reports] == [("site:a", "the reason is cut off", "open")]
    assert (entry.ratings, entry.needed, entry.open) == (2, 3, True)


def test_dismissal_keeps_the_item_for_a_new_rater_never_for_its_reporter(stalled):
    campaign, raters, flagged = stalled
    decision = flags.dismiss_reports(campaign, flagged.pk)
    assert (decision.reports_resolved, decision.already) == (1, False)
    flag = ItemFlag.objects.get(item=flagged)
    assert flag.status == ItemFlag.Status.DISMISSED and flag.resolved_at is not None
    assert flags.review_queue(campaign) == []
    assert flags.dismiss_reports(campaign, flagged.pk).already
    # The reporter still never gets it; the stall remains, without a report to review.
    assert engine.next_assignment(campaign, raters[0], T0) is None
    stall = campaign_stall(campaign)
    assert (stall.waiting, stall.reported) == (1, 0) and "reported as broken" not in stall.explanation
    # A fourth rater (a lab account listed on the campaign) completes it.
    fourth = new_rater("d")
    campaign.lab_raters.add(fourth)
    assignment = engine.next_assignment(campaign, fourth, T0)
    assert assignment.item_id == flagged.pk
    engine.submit_rating(assignment.pk, fourth, 3, now=T0)
    assert campaign_progress(campaign).complete and campaign_stall(campaign) is None


def test_a_listed_lab_rater_who_has_not_started_unblocks_the_stall(stalled):
    campaign, _, _ = stalled
    campaign.lab_raters.add(new_rater("listed"))
    assert campaign_stall(campaign) is None


def test_not_stuck_while_a_rater_can_progress_and_no_stall_when_closed():
    dataset = build_dataset(instances=2, systems=("alpha",))
    campaign = create_campaign(dataset, "fresh", sample=2, seed=1, raters_per_item=2)
    stall = campaign_stall(campaign)
    assert (stall.waiting, stall.raters) == (
        2,
        0,
    ) and stall.explanation == "2 items need a rater, and no rater has taken part yet."
    rater = new_rater("x")
    engine.next_assignment(campaign, rater, T0)
    # The item x holds needs a second rater no one can be yet, but x can go on: not stuck.
    stall = campaign_stall(campaign)
    assert (stall.waiting, stall.raters, stall.leased, stall.stuck) == (1, 1, 1, False)
    campaign.status = campaign.Status.CLOSED
    assert campaign_stall(campaign) is None


def test_deciding_on_an_item_of_another_campaign_is_refused(stalled):
    campaign, _, flagged = stalled
    other = create_campaign(build_dataset(name="other", instances=1, systems=("x",)), "other", sample=1, seed=1)
    with pytest.raises(flags.ReviewRefused, match="not an item of campaign 'other'"):
        flags.dismiss_reports(other, flagged.pk)
    with pytest.raises(flags.ReviewRefused):
        flags.retire_instance(other, flagged.pk)
    assert ItemFlag.objects.get(item=flagged).status == ItemFlag.Status.OPEN


def test_retiring_an_instance_takes_it_out_of_every_mean_and_of_n(stalled):
    campaign, raters, flagged = stalled
    before = results.table6(campaign, secondary=False)
    assert before.instances == 3
    # Rater a scored 1 everywhere they rated, b and c 2: per system, instance 2 has other ratings than 1 and 3.
    lease = engine.next_assignment(campaign, new_rater("late"), T0)  # a live lease on the flagged item
    assert lease.item_id == flagged.pk
    decision = flags.retire_instance(campaign, flagged.pk, reason="the statement makes sense")
    assert (decision.items_retired, decision.leases_released, decision.reports_resolved) == (2, 1, 1)
    assert flags.retire_instance(campaign, flagged.pk).already
    sampled = CampaignInstance.objects.get(campaign=campaign, instance__external_id="2")
    assert sampled.retired and sampled.retired_reason == "the statement makes sense"
    for item in Item.objects.filter(campaign=campaign, instance__external_id="2"):
        assert item.retired and item.active_count == item.needed
    # The late lease's submit is refused; nothing is stored.
    with pytest.raises(SubmissionRefused):
        engine.submit_rating(lease.pk, lease.rater, 3, now=T0 + timedelta(seconds=1))
    progress = campaign_progress(campaign)
    assert (progress.ratings, progress.expected, progress.retired_instances, progress.flagged_items) == (12, 12, 1, 0)
    assert progress.complete and campaign_stall(campaign) is None
    table = results.table6(campaign, secondary=False)
    assert table.instances == 2
    expected = {}
    for name in ("alpha", "beta"):
        scores = list(
            Rating.objects.filter(item__item_outputs__output__system__name=name, campaign=campaign)
            .exclude(item__instance__external_id="2")
            .values_list("score", flat=True)
        )
        expected[name] = sum(scores) / len(scores)
        assert len(scores) == 6
    assert {row.team: row.human for row in table.rows} == pytest.approx(expected)
    assert all(row.complete for row in table.rows)
    note = (
        "Retired instances (statement broken; their ratings count for no system and N excludes them): "
        "2 (the statement makes sense)"
    )
    assert note in table6_format.notes(table)
    for fmt in ("markdown", "latex"):
        assert "Retired instances" in table6_format.render(table, fmt)
    assert '"retired_instances": [' in table6_format.render(table, "json")


def test_excluding_a_rater_of_a_retired_item_keeps_it_full(stalled):
    campaign, raters, flagged = stalled
    flags.retire_instance(campaign, flagged.pk)
    result = engine.exclude_rater(campaign, raters[1])
    assert result.ratings_excluded == 6
    for item in Item.objects.filter(campaign=campaign, retired=True):
        assert item.active_count == item.needed
    assert Item.objects.filter(Q(retired=False), campaign=campaign, active_count__lt=3).count() == 4
    assert Assignment.objects.filter(item__retired=True, status=Assignment.Status.LEASED).count() == 0


def test_a_retired_instance_leaves_the_metric_study_too(stalled):
    from evalapp.services.metric_study.texts import CAMPAIGN_DOMAIN, load_corpus

    campaign, _, flagged = stalled
    assert len(load_corpus(campaign).campaign_columns) == 3
    flags.retire_instance(campaign, flagged.pk)
    assert len(load_corpus(campaign).campaign_columns) == 2  # the segment level: the instances that count
    corpus = load_corpus(campaign, CAMPAIGN_DOMAIN)
    assert [external for _, external in corpus.instances] == ["1", "3"]


def test_a_lease_that_outlives_the_retirement_expires_without_reopening_the_item(stalled):
    """Whatever the interleaving, a retired item stays full: an expiry or a report never gives a slot back."""
    campaign, _, flagged = stalled
    late = new_rater("late")
    lease = engine.next_assignment(campaign, late, T0)
    flags.retire_instance(campaign, flagged.pk)
    # As if the lease had been taken in the instant between the retirement's two steps.
    Assignment.objects.filter(pk=lease.pk).update(status=Assignment.Status.LEASED)
    assert engine.expire_leases(campaign, T0 + timedelta(days=1)) == 1
    item = Item.objects.get(pk=flagged.pk)
    assert item.retired and item.active_count == item.needed
