"""Benchmark: the anytime-valid decisions of a full campaign (the dashboard's section, the API, the command).

    python bench/sequential_status_bench.py                     # 17 systems x 1,000 instances x 3 raters, SQLite
    python bench/sequential_status_bench.py --database postgres --postgres-url postgres://comve@127.0.0.1:54329/comve

Builds a synthetic rated campaign in a fresh database (``bench/synthetic.py``: through the product's
``create_campaign``, every item rated M times), then times ``sequential_status`` (what the dashboard, the
API and the command call), its JSON through the API with a researcher's token, and the settled check
alone. Target (issue 23): under 200 ms per look at 17 x 1,000 x 3. Prints the median and worst of
``--repeat`` runs.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.server import BenchDatabase, production_env, setup_django

TARGET_SECONDS = 0.2


def timed(work, repeat):
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), max(seconds)


def _ok(response):
    if response.status_code != 200:
        raise SystemExit(f"the API answered {response.status_code}: {response.content[:300]!r}")
    return response


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--postgres-url", help="server URL (default: $COMVE_BENCH_POSTGRES_URL or $COMVE_TEST_POSTGRES_URL)"
    )
    parser.add_argument("--systems", type=int, default=17)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--raters-per-item", type=int, default=3)
    parser.add_argument("--raters", type=int, default=30, help="size of the rater pool")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="comve-sequential-"))
    database = BenchDatabase(args.database, workdir, f"comve_sequential_{os.getpid()}", args.postgres_url)
    setup_django(production_env(database.url, workdir))
    from django.conf import settings
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from rest_framework.test import APIClient

    from bench.synthetic import make_campaign
    from core.models import Rating
    from evalapp.services.sequential import sequential_status

    try:
        call_command("migrate", verbosity=0)
        built = make_campaign(
            "sequential", args.systems, args.instances, args.raters_per_item, args.raters, with_ratings=True
        )
        campaign = built.campaign
        ratings = Rating.objects.filter(campaign=campaign).count()
        user = User.objects.create_user("researcher")
        user.groups.add(Group.objects.get_or_create(name="researcher")[0])
        api = APIClient()
        api.force_authenticate(user)
        url = f"/api/campaigns/{campaign.pk}/sequential/"
        host = next(name for name in settings.ALLOWED_HOSTS if "*" not in name).lstrip(".")
        status = sequential_status(campaign)
        print(
            f"{args.database}: {args.systems} systems x {args.instances} instances x {args.raters_per_item} raters "
            f"= {ratings:,} ratings; {len(status.pairs)} pairs, {status.decided()} decided, "
            f"instances seen {status.instances_seen}, settled {status.settled}"
        )
        from django.core.cache import cache

        from evalapp.services.sequential import _per_instance_means

        def fresh():
            cache.clear()  # as after a new rating: nothing of the last look can be reused
            return sequential_status(campaign)

        for label, work in [
            ("reading the counted ratings (per-instance means)", lambda: _per_instance_means(campaign)),
            ("sequential_status after a new rating (dashboard, command)", fresh),
            ("sequential_status, a look with no new rating (cached pairs)", lambda: sequential_status(campaign)),
            (
                "GET /api/campaigns/{id}/sequential/ after a new rating",
                lambda: (cache.clear(), _ok(api.get(url, HTTP_ACCEPT="application/json", HTTP_HOST=host))),
            ),
            (
                "GET /api/campaigns/{id}/sequential/, cached",
                lambda: _ok(api.get(url, HTTP_ACCEPT="application/json", HTTP_HOST=host)),
            ),
        ]:
            median, worst = timed(work, args.repeat)
            verdict = "meets" if median < TARGET_SECONDS else "MISSES"
            print(
                f"{label}: median {median * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
                f"({verdict} the {TARGET_SECONDS * 1000:.0f} ms target)"
            )
    finally:
        database.drop()


if __name__ == "__main__":
    main()
