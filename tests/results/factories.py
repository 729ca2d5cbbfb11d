"""Campaigns with fixed ratings built straight with the ORM, reusable by every test area.

``rated_campaign({"A": [[3, 2, 2], [1, 1, 0]], ...})`` builds a dataset, the systems, one item
per (system, instance) and the given ratings (rows = instances, columns = raters; ``None``
leaves a rating out), with the item counters the engine would have left.
"""

import csv
from datetime import timedelta

from django.utils import timezone

from core.models import (
    Assignment,
    Campaign,
    CampaignInstance,
    Dataset,
    Instance,
    Item,
    ItemOutput,
    Rater,
    Rating,
    Reference,
    System,
    SystemOutput,
)
from evalapp.models import Submission
from evalapp.services.ratings_import import import_ratings


def make_dataset(name="test", n_instances=3):
    dataset = Dataset.objects.create(name=name)
    Instance.objects.bulk_create(
        Instance(dataset=dataset, external_id=str(100 + i), position=i, false_sent=f"Statement {i} makes no sense.")
        for i in range(n_instances)
    )
    return dataset


def make_system(dataset, name, marker="", bleu=None, partial=False, human_reference=None):
    """A system with one output per instance ("<name> reason <id>") and, unless bleu is None, a submission."""
    is_human = human_reference is not None
    system = System.objects.create(
        dataset=dataset,
        name=System.HUMAN_NAME if is_human else name,
        marker=marker,
        is_human=is_human,
        human_reference=human_reference,
    )
    instances = list(dataset.instances.all())
    if is_human:
        Reference.objects.bulk_create(
            Reference(instance=i, position=human_reference, text=f"Reference for {i.external_id}.") for i in instances
        )
    SystemOutput.objects.bulk_create(
        SystemOutput(system=system, instance=i, text=f"{system.name} reason {i.external_id}.") for i in instances
    )
    if bleu is not None or partial:
        Submission.objects.create(
            system=system,
            filename=f"{name}.csv",
            sha256="0" * 64,
            rows=len(instances),
            partial=partial,
            official_bleu=None if partial else bleu,
        )
    return system


def make_campaign(dataset, systems, name="campaign", raters_per_item=3, instances=None, share_identical_outputs=False):
    """A campaign over ``instances`` (default: all) with one item per system output (none shared)."""
    instances = list(dataset.instances.all()) if instances is None else instances
    campaign = Campaign.objects.create(
        name=name,
        dataset=dataset,
        raters_per_item=raters_per_item,
        sample_size=len(instances),
        seed=2020,
        share_identical_outputs=share_identical_outputs,
    )
    campaign.systems.set(systems)
    CampaignInstance.objects.bulk_create(
        CampaignInstance(campaign=campaign, instance=instance, position=p) for p, instance in enumerate(instances)
    )
    outputs = list(
        SystemOutput.objects.filter(system__in=systems, instance__in=instances)
        .select_related("instance")
        .order_by("system_id", "instance__position")
    )
    items = Item.objects.bulk_create(
        Item(campaign=campaign, instance=o.instance, text=o.text, needed=raters_per_item) for o in outputs
    )
    ItemOutput.objects.bulk_create(
        ItemOutput(campaign=campaign, item=item, output=o) for item, o in zip(items, outputs)
    )
    return campaign


def item_for(campaign, system, instance_id):
    return Item.objects.get(campaign=campaign, item_outputs__output__system=system, instance__external_id=instance_id)


def make_raters(count, prefix="w"):
    return Rater.objects.bulk_create(
        Rater(platform=Rater.Platform.IMPORT, external_id=f"{prefix}{i}") for i in range(count)
    )


def add_ratings(campaign, item_scores, raters, source=Rating.Source.APP):
    """Store ``[(item, [score per rater or None])]``; counters of each item follow the ratings."""
    ratings, touched = [], []
    for item, scores in item_scores:
        given = [(rater, score) for rater, score in zip(raters, scores) if score is not None]
        ratings += [
            Rating(item=item, rater=rater, campaign=campaign, score=score, seconds=5.0, source=source)
            for rater, score in given
        ]
        item.active_count = item.done_count = item.done_count + len(given)
        touched.append(item)
    Rating.objects.bulk_create(ratings)
    Item.objects.bulk_update(touched, ["active_count", "done_count"])
    return ratings


def rated_campaign(
    scores_by_system, name="campaign", markers=None, bleu=None, human=None, partial=(), raters_per_item=None
):
    """Dataset + systems + campaign + ratings from ``{system: [[score per rater] per instance]}``.

    ``human`` (same shape) adds the Human pseudo-system (reference 1). The same raters w0..w(M-1)
    rate column by column. Returns (campaign, {name: System}).
    """
    markers, bleu = markers or {}, bleu or {}
    first = next(iter(scores_by_system.values()))
    n_instances, width = len(first), max(len(row) for row in first)
    dataset = make_dataset(name + "-data", n_instances)
    systems = {
        n: make_system(dataset, n, markers.get(n, ""), bleu.get(n), partial=n in partial) for n in scores_by_system
    }
    table = dict(scores_by_system)
    if human is not None:
        systems[System.HUMAN_NAME] = make_system(dataset, System.HUMAN_NAME, human_reference=1)
        table[System.HUMAN_NAME] = human
    campaign = make_campaign(dataset, list(systems.values()), name, raters_per_item or width)
    raters = make_raters(width, prefix=name + "-w")
    instances = list(dataset.instances.order_by("position"))
    items = {
        (io.output.system_id, io.output.instance_id): io.item
        for io in ItemOutput.objects.filter(campaign=campaign).select_related("item", "output")
    }
    add_ratings(
        campaign,
        [(items[systems[n].pk, inst.pk], rows[p]) for n, rows in table.items() for p, inst in enumerate(instances)],
        raters,
    )
    return campaign, systems


def lease(campaign, item, rater, minutes=30):
    """A live assignment (the rater holds the item now)."""
    now = timezone.now()
    Item.objects.filter(pk=item.pk).update(active_count=item.active_count + 1)
    return Assignment.objects.create(
        item=item, rater=rater, campaign=campaign, leased_at=now, lease_expires_at=now + timedelta(minutes=minutes)
    )


def butfit_campaign(shared_file):
    """The real BUT-FIT internal ratings (one rater, four systems, the first 100 test instances) imported as
    long form into a campaign of those systems' real outputs: (campaign, the file's rows, import summary)."""
    path = shared_file("ratings", "butfit_internal_ratings_test100.csv")
    dataset = make_dataset("comve-test", 0)
    with open(shared_file("test_statements.csv"), encoding="utf-8") as handle:
        statements = list(csv.reader(handle))[1:101]
    dataset.instances.bulk_create(
        dataset.instances.model(dataset=dataset, external_id=i, position=p, false_sent=s)
        for p, (i, s) in enumerate(statements)
    )
    with open(path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    systems = []
    for name in sorted({row["system"] for row in rows}):
        system = make_system(dataset, name, bleu=10.0)
        with open(shared_file("systems", f"{name}_test.csv"), encoding="utf-8") as handle:
            reasons = dict(csv.reader(handle))
        outputs = list(system.outputs.select_related("instance"))
        for output in outputs:
            output.text = reasons[output.instance.external_id]
        SystemOutput.objects.bulk_update(outputs, ["text"])
        systems.append(system)
    campaign = make_campaign(dataset, systems, name="butfit", raters_per_item=1)
    summary = import_ratings(
        campaign,
        path.read_bytes(),
        str(path),
        "long",
        columns={"instance": "id", "score": "rating_0to3", "reason": "reason"},
    ).as_json()
    return campaign, rows, summary
