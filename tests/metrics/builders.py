"""A small rated campaign for the metric study tests, built with the results area's factories."""

import numpy as np

from core.models import Item, Reference, System
from tests.results.factories import add_ratings, make_campaign, make_dataset, make_raters, make_system

WORDS = ["elephant", "fridge", "big", "small", "sun", "east", "cat", "read", "fish", "water", "ice", "cold"]


def build_study_campaign(
    n_instances=8, n_systems=5, raters=3, human_reference=None, seed=4, name="study", sampled=None
):
    """Systems whose outputs get better with their index, rated accordingly (with seeded noise).

    Every instance has three references; with ``human_reference`` the Human pseudo-system
    (reference k) is in the campaign too. ``sampled``: only the first that many instances are
    in the campaign (default all).
    """
    rng = np.random.default_rng(seed)
    dataset = make_dataset(name=f"{name}-data", n_instances=n_instances)
    instances = list(dataset.instances.order_by("position"))
    for instance in instances:
        words = [WORDS[(int(instance.external_id) + j) % len(WORDS)] for j in range(6)]
        for position in (1, 2, 3):
            if position != human_reference:
                Reference.objects.create(
                    instance=instance, position=position, text=" ".join(words[position - 1 : position + 3]) + " ."
                )
    systems = []
    for k in range(n_systems):
        system = make_system(dataset, f"sys{k}", bleu=10.0 + k)
        for output in system.outputs.select_related("instance"):
            words = [WORDS[(int(output.instance.external_id) + j) % len(WORDS)] for j in range(6)]
            kept = words[: k + 1] + ["noise"] * (n_systems - k)
            output.text = " ".join(kept) + " ."
            output.save()
        systems.append(system)
    if human_reference is not None:
        human = make_system(dataset, System.HUMAN_NAME, human_reference=human_reference)
        for output in human.outputs.select_related("instance"):
            output.text = Reference.objects.get(instance=output.instance, position=human_reference).text
            output.save()
        systems.insert(0, human)
    campaign = make_campaign(dataset, systems, name=name, raters_per_item=raters, instances=instances[:sampled])
    if human_reference is not None:
        campaign.human_reference = human_reference
        campaign.save()
    pool = make_raters(raters, prefix=f"{name}-r")
    scored = []
    for item in Item.objects.filter(campaign=campaign).prefetch_related("item_outputs__output__system"):
        system = item.item_outputs.all()[0].output.system
        quality = 3.0 if system.is_human else 3.0 * int(system.name[3:]) / max(n_systems - 1, 1)
        scores = np.clip(np.rint(quality + rng.normal(0, 0.8, raters)), 0, 3).astype(int).tolist()
        scored.append((item, scores))
    add_ratings(campaign, scored, pool)
    return campaign
