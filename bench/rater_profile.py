"""Where a rating's server time goes: one client, in-process, no HTTP and no concurrency.

    python bench/rater_profile.py --database sqlite
    python bench/rater_profile.py --database postgres --postgres-url postgres://comve@127.0.0.1:54331/comve

Prints, as medians: the server CPU and wall time of the item page (GET) and of the submit
(POST) against the baseline view's read and insert, the queries each makes, and the time
of the engine functions the two rater requests call, measured half-way through a rater's
share of a 17 x 100 x 3 campaign. CPU time is this thread's own, so other load on the
machine changes it less than it changes the throughput figures of ``rater_load.py``.
"""

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.server import BenchDatabase, prepare, production_env, setup_django

WARM_UP = 20
SAMPLES = 200
HALF_WAY_RATINGS = 150
MS = 1000.0
ASSIGNMENT_INPUT = re.compile(rb'name="assignment" value="(\d+)"')


def timed(function):
    """(result, thread CPU seconds, wall seconds) of one call."""
    cpu, wall = time.thread_time(), time.perf_counter()
    result = function()
    return result, time.thread_time() - cpu, time.perf_counter() - wall


def median_ms(values):
    return statistics.median(values) * MS


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--postgres-url")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="comve-profile-"))
    database = BenchDatabase(args.database, workdir, f"comve_profile_{os.getpid()}", args.postgres_url)
    env = production_env(database.url, workdir, baseline=True, DJANGO_ALLOWED_HOSTS="testserver")
    prepare(env)
    setup_django(env)
    from django.db import connection, transaction
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from bench.synthetic import make_campaign
    from core import engine
    from core.progress import rater_progress

    try:
        made = make_campaign("profile", 17, 100, 3, 2)
        campaign, rater = made.campaign, made.raters[0]
        for _ in range(HALF_WAY_RATINGS):
            engine.submit_rating(engine.next_assignment(campaign, rater).pk, rater, 2, seconds=3.0)
        engine.next_assignment(campaign, rater)  # the item page shows the live lease
        client = Client()
        client.force_login(rater.user)
        item = f"/rate/{campaign.pk}/item/"

        def rating():
            page, get_cpu, get_wall = timed(lambda: client.get(item))
            assignment = ASSIGNMENT_INPUT.search(page.content).group(1).decode()
            _, post_cpu, post_wall = timed(
                lambda: client.post(item, {"assignment": assignment, "score": 2, "seconds": 5})
            )
            return get_cpu, post_cpu, get_wall, post_wall

        def baseline():
            _, get_cpu, get_wall = timed(lambda: client.get("/bench-baseline/"))
            _, post_cpu, post_wall = timed(lambda: client.post("/bench-baseline/", {}))
            return get_cpu, post_cpu, get_wall, post_wall

        print(f"{args.database}: server time per request, median of {SAMPLES} (ms)")
        for label, round_trip, names in (
            ("rating", rating, ("item page", "submit")),
            ("baseline", baseline, ("read", "insert")),
        ):
            for _ in range(WARM_UP):
                round_trip()
            samples = [round_trip() for _ in range(SAMPLES)]
            get_cpu, post_cpu, get_wall, post_wall = (median_ms([s[i] for s in samples]) for i in range(4))
            with CaptureQueriesContext(connection) as queries:
                round_trip()
            print(
                f"  {label:8s} CPU {names[0]} {get_cpu:5.2f} + {names[1]} {post_cpu:5.2f} = {get_cpu + post_cpu:5.2f}; "
                f"wall {get_wall:5.2f} + {post_wall:5.2f}; {len(queries)} queries"
            )

        def pick():
            with transaction.atomic():
                engine._pick_item(campaign, rater, skip_locked=connection.features.has_select_for_update_skip_locked)

        def lease_and_submit():
            lease, _, lease_wall = timed(lambda: engine.next_assignment(campaign, rater))
            _, _, submit_wall = timed(lambda: engine.submit_rating(lease.pk, rater, 1, seconds=3.0))
            return lease_wall, submit_wall

        cycles = [lease_and_submit() for _ in range(SAMPLES // 2)]
        print(f"{args.database}: engine functions, median wall time (ms)")
        rows = [
            ("engine.next_assignment (a new lease)", median_ms([c[0] for c in cycles])),
            ("engine.submit_rating", median_ms([c[1] for c in cycles])),
        ]
        for label, function in (
            ("the item pick alone (_pick_item, locked)", pick),
            ("engine.rater_progress (every item page)", lambda: rater_progress(campaign, rater)),
            ("engine.live_lease (every item page)", lambda: engine.live_lease(campaign, rater)),
        ):
            rows.append((label, median_ms([timed(function)[2] for _ in range(SAMPLES)])))
        for label, value in rows:
            print(f"  {label:42s} {value:6.2f}")
    finally:
        database.drop()


if __name__ == "__main__":
    main()
