"""The campaign's rating order of its instances (issue 23): drawn from the seed, stored, followed by the
engine (every prefix of the order a simple random sample), and given to existing campaigns by migration."""

from collections import Counter
from importlib import import_module

import pytest
from django.apps import apps as django_apps
from scipy import stats

from core import engine
from core.item_order import SHUFFLE_MODULUS, instance_rating_order, ordered_shuffle_keys
from core.models import CampaignInstance, Item, Rating
from evalapp.services.campaigns import create_campaign
from tests.engine.builders import build_dataset
from tests.engine.test_engine import T0, check_counters, new_raters

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def test_the_order_is_a_seeded_permutation_and_keys_follow_it():
    assert instance_rating_order(50, 7) == instance_rating_order(50, 7) != instance_rating_order(50, 8)
    assert sorted(instance_rating_order(50, 7)) == list(range(50))
    places = [3, 0, 0, 2, 1, 3]
    keys = ordered_shuffle_keys(places, 4, 9)
    assert all(0 <= key < SHUFFLE_MODULUS for key in keys)
    assert sorted(range(6), key=keys.__getitem__)[:2] in ([1, 2], [2, 1])
    assert [places[i] for i in sorted(range(6), key=keys.__getitem__)] == sorted(places)


def test_a_uniform_permutation_over_seeds():
    """Each place is equally likely for the first instance (chi-square over 2,000 seeds)."""
    firsts = Counter(instance_rating_order(10, seed)[0] for seed in range(2000))
    assert stats.chisquare([firsts[place] for place in range(10)]).pvalue > 0.001


def test_campaign_stores_the_order_and_its_item_keys_follow_it():
    dataset = build_dataset(instances=12, systems=("alpha", "beta", "gamma"))
    campaign = create_campaign(
        dataset, "ordered", sample=10, seed=4, raters_per_item=2, control_rate=0.2, human_reference=1
    )
    links = list(CampaignInstance.objects.filter(campaign=campaign).order_by("position"))
    assert [link.rating_order for link in links] == instance_rating_order(10, 4)
    place = {link.instance_id: link.rating_order for link in links}
    items = list(Item.objects.filter(campaign=campaign).order_by("shuffle_key"))
    assert [place[item.instance_id] for item in items] == sorted(place[item.instance_id] for item in items)


def test_the_engine_completes_instances_in_about_the_rating_order():
    """Four raters in turns, 3 systems, 2 raters per item: the instances complete in the rating order."""
    dataset = build_dataset(instances=30, systems=("alpha", "beta", "gamma"))
    campaign = create_campaign(dataset, "front first", seed=11, raters_per_item=2)
    place = dict(CampaignInstance.objects.filter(campaign=campaign).values_list("instance_id", "rating_order"))
    items_of = Counter(Item.objects.filter(campaign=campaign).values_list("instance_id", flat=True))
    raters = new_raters(4)
    done, completed = Counter(), []
    active = list(raters)
    while active:
        for rater in list(active):
            assignment = engine.next_assignment(campaign, rater, T0)
            if assignment is None:
                active.remove(rater)
                continue
            engine.submit_rating(assignment.pk, rater, 2, now=T0)
            instance = assignment.item.instance_id
            done[instance] += 1
            if done[instance] == items_of[instance] * 2:
                completed.append(place[instance])
    assert sorted(completed) == list(range(30))
    assert completed == list(range(30))
    check_counters(campaign)
    assert Rating.objects.filter(campaign=campaign).count() == 30 * 3 * 2


def test_migration_gives_existing_campaigns_an_order():
    dataset = build_dataset(instances=8, systems=("alpha", "beta"))
    campaign = create_campaign(dataset, "old", sample=6, seed=21)
    CampaignInstance.objects.filter(campaign=campaign).update(rating_order=None)
    Item.objects.filter(campaign=campaign).update(shuffle_key=0)
    migration = import_module("core.migrations.0008_rating_order_for_existing_campaigns")
    migration.order_existing(django_apps, None)
    links = list(CampaignInstance.objects.filter(campaign=campaign).order_by("position"))
    assert [link.rating_order for link in links] == instance_rating_order(6, 21)
    place = {link.instance_id: link.rating_order for link in links}
    items = list(Item.objects.filter(campaign=campaign).order_by("shuffle_key"))
    assert len({item.shuffle_key for item in items}) == len(items)
    assert [place[item.instance_id] for item in items] == sorted(place[item.instance_id] for item in items)
