"""The finishing tests' campaign: one report stalls it (3 raters, 3 ratings per item)."""

import pytest
from django.utils import timezone

from core import engine, flags
from core.models import Item, Rater
from evalapp.services.campaigns import create_campaign
from tests.engine.builders import build_dataset

T0 = timezone.now()


def new_rater(name):
    return Rater.objects.create(external_id=name, platform=Rater.Platform.SITE, order_seed=engine.new_order_seed())


def rate_all(campaign, rater, score=2, now=T0):
    """Rate every item the engine hands ``rater``."""
    while (assignment := engine.next_assignment(campaign, rater, now)) is not None:
        engine.submit_rating(assignment.pk, rater, score, seconds=2.0, now=now)


@pytest.fixture
def stalled():
    """3 instances x 2 systems, M = 3, three raters; rater a reports instance 2's alpha item."""
    dataset = build_dataset(instances=3, systems=("alpha", "beta"))
    campaign = create_campaign(dataset, "stall", sample=3, seed=1, raters_per_item=3)
    raters = [new_rater(name) for name in "abc"]
    flagged = Item.objects.get(campaign=campaign, instance__external_id="2", item_outputs__output__system__name="alpha")
    while (assignment := engine.next_assignment(campaign, raters[0], T0)) is not None:
        if assignment.item_id == flagged.pk:
            flags.flag_item(assignment.pk, raters[0], campaign, note="the reason is cut off", now=T0)
        else:
            engine.submit_rating(assignment.pk, raters[0], 1, seconds=2.0, now=T0)
    for rater in raters[1:]:
        rate_all(campaign, rater, score=2)
    return campaign, raters, flagged
