"""Existing campaigns get a rating order of their instances and item keys that follow it (issue 23).

The order is drawn from the campaign's seed as a new campaign's is (``core.item_order``); a campaign
made without a stored seed uses its id. Items keep their ids, ratings and counters; only their
``shuffle_key`` changes, so the engine completes the instances in the new order from now on.
"""

from django.db import migrations

from core.item_order import instance_rating_order, ordered_shuffle_keys

BATCH = 1000


def order_existing(apps, schema_editor):
    Campaign = apps.get_model("core", "Campaign")
    CampaignInstance = apps.get_model("core", "CampaignInstance")
    Item = apps.get_model("core", "Item")
    for campaign in Campaign.objects.order_by("pk").iterator():
        seed = campaign.seed if campaign.seed is not None else campaign.pk
        sampled = list(CampaignInstance.objects.filter(campaign=campaign).order_by("position"))
        places = instance_rating_order(len(sampled), seed)
        place_of = {}
        for link, place in zip(sampled, places):
            link.rating_order = place
            place_of[link.instance_id] = place
        CampaignInstance.objects.bulk_update(sampled, ["rating_order"], batch_size=BATCH)
        items = list(Item.objects.filter(campaign=campaign).order_by("pk"))
        # An item of an instance outside the sample (made by hand) joins the last instance's band.
        last = max(len(sampled) - 1, 0)
        keys = ordered_shuffle_keys([place_of.get(item.instance_id, last) for item in items], len(sampled), seed)
        for item, key in zip(items, keys):
            item.shuffle_key = key
        Item.objects.bulk_update(items, ["shuffle_key"], batch_size=BATCH)
        if campaign.sample_size != len(sampled):  # the engine reads the instances' key bands from it
            Campaign.objects.filter(pk=campaign.pk).update(sample_size=len(sampled))


class Migration(migrations.Migration):
    dependencies = [("core", "0007_sequential_stopping")]

    operations = [migrations.RunPython(order_existing, migrations.RunPython.noop)]
