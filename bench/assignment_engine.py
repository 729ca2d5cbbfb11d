"""Benchmark of the assignment engine alone (no HTTP): K threads leasing and submitting.

    python bench/assignment_engine.py                        # SQLite file, K = 1, 16, 64
    DATABASE_URL=postgres://comve@127.0.0.1:54329/comve python bench/assignment_engine.py --raters 1,16,64

For each K: a fresh campaign (default 17 systems x 100 instances x 3 raters = 5,100 ratings)
made by ``create_campaign`` in a throw-away test database, then K threads, each its own
Rater and database connection, call ``next_assignment`` and ``submit_rating`` until nothing
is left. Printed per K: ratings/s, p50/p95/p99 latency of each call, SQL queries per call
(measured single-threaded), and the rating invariants (protocol.md#invariants) checked afterwards. The HTTP-level load
test of the whole stack is ``bench/rater_load.py``.
"""

import argparse
import os
import sys
import threading
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PERCENTILES = (50, 95, 99)
MILLISECONDS = 1000


def percentile(values, share):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(share / 100 * (len(ordered) - 1))))]


def build_campaign(name, systems, instances, raters_per_item):
    from core.models import Dataset, Instance, Reference, System, SystemOutput
    from evalapp.services.campaigns import create_campaign

    dataset = Dataset.objects.create(name=name)
    made = Instance.objects.bulk_create(
        Instance(dataset=dataset, external_id=str(index), position=index, false_sent=f"Statement {index}.")
        for index in range(instances)
    )
    Reference.objects.bulk_create(Reference(instance=instance, position=1, text="A reference.") for instance in made)
    for number in range(systems):
        system = System.objects.create(dataset=dataset, name=f"system{number:03d}")
        SystemOutput.objects.bulk_create(
            SystemOutput(system=system, instance=instance, text=f"Reason {number}.") for instance in made
        )
    return create_campaign(dataset, name, seed=1, raters_per_item=raters_per_item)


def queries_per_call(campaign):
    """SQL statements of one next_assignment and one submit_rating, on a fresh rater."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from core import engine
    from core.models import Rater

    rater = Rater.objects.create(
        external_id="probe", platform=Rater.Platform.IMPORT, order_seed=engine.new_order_seed()
    )
    with CaptureQueriesContext(connection) as leased:
        lease = engine.next_assignment(campaign, rater)
    with CaptureQueriesContext(connection) as submitted:
        engine.submit_rating(lease.pk, rater, 2)
    return len(leased.captured_queries), len(submitted.captured_queries)


def run_raters(campaign, k):
    from django.db import connections

    from core import engine
    from core.models import Rater

    raters = Rater.objects.bulk_create(
        Rater(external_id=f"bench{k}-{index}", platform=Rater.Platform.IMPORT, order_seed=engine.new_order_seed())
        for index in range(k)
    )
    timings = {"next_assignment": [], "submit_rating": []}
    lock, errors = threading.Lock(), []
    barrier = threading.Barrier(k)

    def rate(rater):
        leases, submits = [], []
        try:
            barrier.wait()
            while True:
                started = time.perf_counter()
                lease = engine.next_assignment(campaign, rater)
                leases.append(time.perf_counter() - started)
                if lease is None:
                    break
                started = time.perf_counter()
                engine.submit_rating(lease.pk, rater, 2, seconds=1.0)
                submits.append(time.perf_counter() - started)
        except Exception as exc:  # reported, not hidden
            errors.append(repr(exc))
        finally:
            with lock:
                timings["next_assignment"] += leases
                timings["submit_rating"] += submits
            connections.close_all()

    threads = [threading.Thread(target=rate, args=(rater,)) for rater in raters]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, timings, errors


def invariants(campaign):
    from django.db.models import Count, F

    from core.models import Assignment, Item, Rating

    items = Item.objects.filter(campaign=campaign)
    over = items.filter(done_count__gt=0).annotate(n=Count("ratings")).exclude(n=F("needed")).count()
    repeated = (
        Assignment.objects.filter(campaign=campaign)
        .values("item", "rater")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
        .count()
    )
    incomplete = items.exclude(done_count=F("needed")).count()
    return {
        "items": items.count(),
        "ratings": Rating.objects.filter(campaign=campaign).count(),
        "items_with_wrong_rating_count": over,
        "repeated_rater_item": repeated,
        "incomplete_items": incomplete,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raters", default="1,16,64", help="Comma-separated K values (default 1,16,64).")
    parser.add_argument("--systems", type=int, default=17)
    parser.add_argument("--instances", type=int, default=100)
    parser.add_argument("--raters-per-item", type=int, default=3)
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("COMVE_TEST_DB_NAME", "bench_engine")
    import django

    django.setup()
    from django.db import connection

    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        print(
            f"database: {connection.vendor}; campaign {args.systems} systems x {args.instances} instances x "
            f"{args.raters_per_item} raters"
        )
        probe = build_campaign("probe", args.systems, args.instances, args.raters_per_item)
        lease_queries, submit_queries = queries_per_call(probe)
        print(f"SQL statements per call: next_assignment {lease_queries}, submit_rating {submit_queries}")
        header = f"{'K':>4} {'ratings':>8} {'seconds':>8} {'ratings/s':>10}"
        for call in ("next", "submit"):
            header += "".join(f" {call} p{share:<2} ms".rjust(14) for share in PERCENTILES)
        print(header + "  errors  invariants")
        for k in (int(value) for value in args.raters.split(",")):
            campaign = build_campaign(f"k{k}", args.systems, args.instances, args.raters_per_item)
            seconds, timings, errors = run_raters(campaign, k)
            checked = invariants(campaign)
            line = f"{k:>4} {checked['ratings']:>8} {seconds:>8.1f} {checked['ratings'] / seconds:>10.0f}"
            for call in ("next_assignment", "submit_rating"):
                line += "".join(f"{percentile(timings[call], share) * MILLISECONDS:>14.1f}" for share in PERCENTILES)
            ok = not any(
                checked[key] for key in ("items_with_wrong_rating_count", "repeated_rater_item", "incomplete_items")
            )
            print(f"{line}  {len(errors):>6}  {'ok' if ok else checked}")
            for error in errors[:3]:
                print(f"     error: {error}")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
