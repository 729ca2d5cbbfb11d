"""Synthetic campaigns for the benchmarks: any number of systems, instances, raters and ratings.

The data set, its systems and outputs are bulk-inserted (COPY on PostgreSQL, ``executemany``
on SQLite); the campaign itself is made by the product's own ``create_campaign`` service, so
the benchmarks measure the items the product makes. Ratings for the aggregation benchmark are
drawn with NumPy from a simple model (system quality + instance difficulty + rater bias +
noise, rounded and clipped to 0-3), so Table 6 has a clear order and agreement is moderate.

Needs a configured Django (``django.setup()``); the command line sets it up:

    python -m bench.synthetic --systems 200 --instances 1000 --raters-per-item 5 --ratings
"""

import argparse
import json
import time
from dataclasses import dataclass

import numpy as np

DEFAULT_SEED = 2020
# Quality of the synthetic systems on the 0-3 scale: the range the paper's Table 6 spans.
SYSTEM_QUALITY_RANGE = (0.8, 2.6)
INSTANCE_DIFFICULTY_SD = 0.4
RATER_BIAS_SD = 0.3
RATING_NOISE_SD = 0.6
SECONDS_PER_ITEM_RANGE = (4.0, 40.0)
BLEU_RANGE = (1.0, 25.0)
REFERENCES_PER_INSTANCE = 3
INSERT_BATCH = 10_000
DEFAULT_RATER_POOL = 100
RATER_PASSWORD = "bench-rater-password"


@dataclass
class SyntheticCampaign:
    campaign: object
    raters: list  # Rater objects, each with a site account whose password is RATER_PASSWORD
    seconds: dict  # phase -> wall seconds


def bulk_insert(model, columns, rows):
    """Insert tuples into ``model``'s table: COPY on PostgreSQL, batched ``executemany`` elsewhere."""
    from django.db import connection

    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(model._meta.get_field(c).column) for c in columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        sql = f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"
        batch = []
        for row in rows:
            batch.append(row)
            if len(batch) == INSERT_BATCH:
                cursor.executemany(sql, batch)
                batch = []
        if batch:
            cursor.executemany(sql, batch)


def make_dataset(name, n_systems, n_instances, seed=DEFAULT_SEED):
    """A data set of ``n_instances`` statements with references, and ``n_systems`` full submissions."""
    from django.db import transaction
    from django.utils import timezone

    from core.models import Dataset, Instance, Reference, System, SystemOutput
    from evalapp.models import Submission

    rng = np.random.default_rng(seed)
    now = timezone.now()
    with transaction.atomic():
        dataset = Dataset.objects.create(name=name)
        bulk_insert(
            Instance,
            ["dataset", "external_id", "position", "false_sent", "true_sent"],
            (
                (dataset.pk, f"s{i}", i, f"Synthetic statement {i} against common sense.", "")
                for i in range(n_instances)
            ),
        )
        instance_ids = list(Instance.objects.filter(dataset=dataset).order_by("position").values_list("pk", flat=True))
        bulk_insert(
            Reference,
            ["instance", "position", "text"],
            (
                (pk, k, f"Reference {k} for statement {i}.")
                for i, pk in enumerate(instance_ids)
                for k in range(1, REFERENCES_PER_INSTANCE + 1)
            ),
        )
        bulk_insert(
            System,
            ["dataset", "name", "marker", "is_human", "created_at"],
            ((dataset.pk, f"system-{k:04d}", "", False, now) for k in range(n_systems)),
        )
        system_ids = list(System.objects.filter(dataset=dataset).order_by("name").values_list("pk", flat=True))
        bleu = rng.uniform(*BLEU_RANGE, size=n_systems).round(4)
        bulk_insert(
            Submission,
            ["system", "filename", "sha256", "rows", "partial", "official_bleu", "warnings", "created_at"],
            (
                (pk, f"system-{k:04d}.csv", "0" * 64, n_instances, False, float(bleu[k]), "[]", now)
                for k, pk in enumerate(system_ids)
            ),
        )
        bulk_insert(
            SystemOutput,
            ["system", "instance", "text"],
            (
                (spk, ipk, f"Reason of system {k} for statement {i}.")
                for k, spk in enumerate(system_ids)
                for i, ipk in enumerate(instance_ids)
            ),
        )
    return dataset


def make_raters(prefix, count):
    """``count`` raters with site accounts ``<prefix>-<n>`` (password :data:`RATER_PASSWORD`)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import transaction

    from core.models import Rater

    user_model = get_user_model()
    password = make_password(RATER_PASSWORD)  # hashed once: hashing is deliberately slow
    with transaction.atomic():
        users = user_model.objects.bulk_create(
            [user_model(username=f"{prefix}-{n}", password=password) for n in range(count)]
        )
        return Rater.objects.bulk_create(
            [Rater(user=user, order_seed=DEFAULT_SEED + n) for n, user in enumerate(users)]
        )


def add_ratings(campaign, raters, seed=DEFAULT_SEED):
    """Give every system item of ``campaign`` its M ratings from M distinct raters of ``raters``.

    Inserted as imported long-form ratings (no assignment), vectorised; items are marked full.
    """
    from django.db import transaction
    from django.db.models import F
    from django.utils import timezone

    from core.defaults import SCORE_MAX, SCORE_MIN
    from core.models import Item, ItemOutput, Rating

    m = campaign.raters_per_item
    if len(raters) < m:
        raise ValueError(f"{len(raters)} raters cannot give each item {m} distinct ratings")
    rng = np.random.default_rng(seed)
    links = np.array(
        ItemOutput.objects.filter(campaign=campaign, item__kind=Item.Kind.SYSTEM)
        .order_by("item_id")
        .values_list("item_id", "output__system_id", "item__instance_id"),
        dtype=np.int64,
    ).reshape(-1, 3)
    item_ids, first = np.unique(links[:, 0], return_index=True)
    system_ids, instance_ids = links[first, 1], links[first, 2]
    quality = _per_key(system_ids, rng.uniform(*SYSTEM_QUALITY_RANGE, size=len(np.unique(system_ids))))
    difficulty = _per_key(instance_ids, rng.normal(0, INSTANCE_DIFFICULTY_SD, size=len(np.unique(instance_ids))))
    rater_ids = np.array([rater.pk for rater in raters], dtype=np.int64)
    bias = rng.normal(0, RATER_BIAS_SD, size=len(rater_ids))
    # Rater j of item t is pool[(base_t + j * stride) % R]: M distinct raters per item.
    stride = len(rater_ids) // m
    slots = (rng.integers(0, len(rater_ids), size=len(item_ids))[:, None] + stride * np.arange(m)) % len(rater_ids)
    latent = (quality + difficulty)[:, None] + bias[slots] + rng.normal(0, RATING_NOISE_SD, size=slots.shape)
    scores = np.clip(np.rint(latent), SCORE_MIN, SCORE_MAX).astype(np.int64)
    seconds = rng.uniform(*SECONDS_PER_ITEM_RANGE, size=slots.shape).round(1)
    now = timezone.now()
    items = np.repeat(item_ids, m)
    with transaction.atomic():
        bulk_insert(
            Rating,
            ["item", "rater", "campaign", "score", "seconds", "source", "excluded", "created_at"],
            zip(
                items.tolist(),
                rater_ids[slots].ravel().tolist(),
                [campaign.pk] * len(items),
                scores.ravel().tolist(),
                seconds.ravel().tolist(),
                [Rating.Source.LONG] * len(items),
                [False] * len(items),
                [now] * len(items),
            ),
        )
        Item.objects.filter(campaign=campaign, kind=Item.Kind.SYSTEM).update(
            active_count=F("needed"), done_count=F("needed")
        )
    return len(items)


def _per_key(keys, values):
    """``values[rank of key among the sorted distinct keys]`` for every entry of ``keys``."""
    _, index = np.unique(keys, return_inverse=True)
    return values[index]


def analyze_postgres():
    """Refresh PostgreSQL's planner statistics, as autovacuum does a minute after a bulk insert.

    Without them the planner takes a freshly filled table for an empty one and answers the
    engine's anti-joins with nested loops (tens of ms per lease instead of one).
    """
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def make_campaign(
    name, n_systems, n_instances, raters_per_item, n_raters, seed=DEFAULT_SEED, with_ratings=False, analyze=True
):
    """Data set, campaign (through the product's ``create_campaign``), raters, optional ratings;
    then (``analyze``) fresh planner statistics on PostgreSQL."""
    from evalapp.services.campaigns import create_campaign

    seconds = {}
    started = time.perf_counter()
    dataset = make_dataset(name, n_systems, n_instances, seed)
    seconds["dataset"] = time.perf_counter() - started
    started = time.perf_counter()
    campaign = create_campaign(
        dataset=dataset, name=name, sample=n_instances, seed=seed, raters_per_item=raters_per_item
    )
    seconds["campaign"] = time.perf_counter() - started
    started = time.perf_counter()
    raters = make_raters(name, n_raters)
    seconds["raters"] = time.perf_counter() - started
    if with_ratings:
        started = time.perf_counter()
        add_ratings(campaign, raters, seed)
        seconds["ratings"] = time.perf_counter() - started
    if analyze:
        analyze_postgres()
    return SyntheticCampaign(campaign, raters, seconds)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--name", default="synthetic")
    parser.add_argument("--systems", type=int, default=17)
    parser.add_argument("--instances", type=int, default=100)
    parser.add_argument("--raters-per-item", type=int, default=3)
    parser.add_argument("--raters", type=int, default=DEFAULT_RATER_POOL, help="rater accounts to create")
    parser.add_argument("--ratings", action="store_true", help="also insert every item's M ratings")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument(
        "--lease-seconds", type=int, help="shorten the campaign's lease below the product's minimum (fault tests only)"
    )
    parser.add_argument("--json", action="store_true", help="print the campaign id and rater names as JSON")
    args = parser.parse_args(argv)
    import django

    django.setup()
    from core.models import Campaign

    made = make_campaign(
        args.name, args.systems, args.instances, args.raters_per_item, args.raters, args.seed, args.ratings
    )
    if args.lease_seconds:
        Campaign.objects.filter(pk=made.campaign.pk).update(lease_seconds=args.lease_seconds)
    if args.json:
        print(
            json.dumps(
                {
                    "campaign": made.campaign.name,
                    "id": made.campaign.pk,
                    "password": RATER_PASSWORD,
                    "raters": [rater.user.username for rater in made.raters],
                    "seconds": made.seconds,
                }
            )
        )
        return
    print(
        f"campaign {made.campaign.name!r} (id {made.campaign.pk}): {args.systems} systems x {args.instances} "
        f"instances x {args.raters_per_item} raters; {len(made.raters)} rater accounts "
        f"{args.name}-0..{args.raters - 1} (password {RATER_PASSWORD!r})"
    )
    print("seconds: " + ", ".join(f"{phase} {value:.1f}" for phase, value in made.seconds.items()))


if __name__ == "__main__":
    main()
