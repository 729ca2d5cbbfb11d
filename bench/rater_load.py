"""Benchmark: K concurrent raters over HTTP against gunicorn, and the stack's bare baseline.

    python bench/rater_load.py --database sqlite --raters 16,64
    python bench/rater_load.py --database postgres --postgres-url postgres://comve@127.0.0.1:54331/comve

For each K: a fresh synthetic campaign (default 17 systems x 100 instances x 3 raters =
5,100 ratings) and K rater accounts; gunicorn with the checked-in configuration and the
production settings on 127.0.0.1. The K raters log in (untimed), then rate as the browser
does (item page, submit with CSRF, redirect) until the campaign is exhausted, the time bound
or the request bound. Then the same K sessions drive the baseline view (one authenticated
read, one insert: ``bench/baseline/views.py``) for as many read+insert pairs. Printed:
ratings/s, p50/p95/p99 latency of the item page and the submit, errors, the baseline's
pairs/s and its latencies, the ratio, and the rating invariants (protocol.md#invariants) checked in the database.
"""

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.httpclient import HTTPError
from bench.loadstats import LoadStats, format_table, latency_cells
from bench.server import LOOPBACK, BenchDatabase, Gunicorn, prepare, production_env, setup_django

MAX_SECONDS = 120
DEFAULT_MAX_REQUESTS = 200_000
LOCKED_MESSAGE = "database is locked"
TARGET_RATINGS_PER_SECOND = 200
TARGET_P99_MS = 100
TARGET_BASELINE_RATIO = 0.6


async def baseline_pairs(browsers, pairs, stats, budget_seconds):
    """``pairs`` read+insert round trips on the baseline view, shared among the logged-in browsers."""
    path = "/bench-baseline/"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget_seconds
    remaining = [pairs]

    async def one_user(browser):
        while remaining[0] > 0 and loop.time() < deadline:
            remaining[0] -= 1
            try:
                page = await browser.get(path)
                stats.record("read", page.seconds)
                if page.status != 200:
                    stats.error("read", f"HTTP {page.status}")
                    continue
                inserted = await browser.post(path, {"csrfmiddlewaretoken": page.csrf_token()}, referer=path)
                stats.record("insert", inserted.seconds)
                if inserted.status != 302:
                    stats.error("insert", f"HTTP {inserted.status}")
                    continue
            except HTTPError as exc:
                stats.error("baseline", str(exc)[:80])
                continue
            stats.completed += 1

    started, cpu = loop.time(), time.process_time()
    await asyncio.gather(*(one_user(browser) for browser in browsers))
    stats.seconds, stats.client_cpu_seconds = loop.time() - started, time.process_time() - cpu


def run_one(server, k, args):
    """One K: campaign, raters, load, baseline, invariants; returns a result dict."""
    from bench.invariants import check_invariants, violations
    from bench.raterflow import acknowledged, run_raters
    from bench.synthetic import RATER_PASSWORD, make_campaign

    made = make_campaign(
        f"load-k{k}-{os.getpid()}", args.systems, args.instances, args.raters_per_item, k, analyze=not args.no_analyze
    )
    campaign = made.campaign
    usernames = [rater.user.username for rater in made.raters]
    rating = LoadStats(f"rater loop K={k}")
    baseline = LoadStats(f"baseline K={k}")

    async def both():
        runs, browsers = await run_raters(
            LOOPBACK, server.port, usernames, RATER_PASSWORD, campaign.pk, rating, args.max_seconds, args.max_requests
        )
        await baseline_pairs(browsers, max(rating.completed, k), baseline, args.max_seconds)
        for browser in browsers:
            await browser.close()
        return runs

    runs = asyncio.run(both())
    checks = check_invariants(campaign, acknowledged(runs))
    expected = campaign.items.count() * campaign.raters_per_item
    return {
        "k": k,
        "rating": rating,
        "baseline": baseline,
        "checks": checks,
        "violations": violations(checks),
        "expected_ratings": expected,
        "stored_ratings": campaign.ratings.count(),
        "finished_raters": sum(run.finished for run in runs),
        "refused": sum(run.refused for run in runs),
    }


def _share(stats):
    return f"{stats.client_cpu_seconds / stats.seconds:.0%}" if stats.seconds else "n/a"


def report(database, results, server_log):
    log_text = Path(server_log).read_text(errors="replace")
    rows = []
    for r in results:
        rating, baseline = r["rating"], r["baseline"]
        ratio = rating.rate / baseline.rate if baseline.rate else float("nan")
        rows.append(
            [
                database,
                r["k"],
                f"{rating.completed}/{r['expected_ratings']}",
                f"{rating.seconds:.1f}",
                f"{rating.rate:.0f}",
                latency_cells(rating, "item page"),
                latency_cells(rating, "submit"),
                sum(rating.errors.values()),
                f"{baseline.rate:.0f}",
                latency_cells(baseline, "read"),
                latency_cells(baseline, "insert"),
                sum(baseline.errors.values()),
                f"{ratio:.2f}",
            ]
        )
    print(
        format_table(
            rows,
            [
                "db",
                "K",
                "ratings",
                "s",
                "ratings/s",
                "item p50/95/99 ms",
                "submit p50/95/99 ms",
                "errors",
                "baseline pairs/s",
                "read p50/95/99 ms",
                "insert p50/95/99 ms",
                "errors",
                "ratio",
            ],
        )
    )
    for r in results:
        errors = {**r["rating"].errors, **{f"baseline {k}": v for k, v in r["baseline"].errors.items()}}
        verdict = "all hold" if not r["violations"] else f"VIOLATED: {r['violations']}"
        print(
            f"K={r['k']}: load generator CPU {_share(r['rating'])} of one core in the rater loop, "
            f"{_share(r['baseline'])} in the baseline"
        )
        print(
            f"K={r['k']}: rating invariants {verdict}; {r['stored_ratings']} ratings stored, "
            f"{r['checks'].get('stored_not_acknowledged', 0)} stored without acknowledgement, "
            f"{r['refused']} submits refused, {r['finished_raters']}/{r['k']} raters reached the end"
            + (f"; errors: {dict(errors)}" if errors else "")
        )
    print(
        f"server log: {log_text.count(LOCKED_MESSAGE)} '{LOCKED_MESSAGE}', "
        f"{log_text.count('Traceback')} tracebacks ({server_log})"
    )
    print(
        f"targets: >= {TARGET_RATINGS_PER_SECOND} ratings/s and p99 < {TARGET_P99_MS} ms at K=64 on PostgreSQL; "
        f"rater loop >= {TARGET_BASELINE_RATIO:.0%} of the baseline rate"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--postgres-url", help="server URL (default: $COMVE_BENCH_POSTGRES_URL or $COMVE_TEST_POSTGRES_URL)"
    )
    parser.add_argument("--raters", default="16,64", help="comma-separated K values (default 16,64)")
    parser.add_argument("--systems", type=int, default=17)
    parser.add_argument("--instances", type=int, default=100)
    parser.add_argument("--raters-per-item", type=int, default=3)
    parser.add_argument(
        "--max-seconds", type=float, default=MAX_SECONDS, help=f"time bound of each phase (at most {MAX_SECONDS})"
    )
    parser.add_argument("--max-requests", type=int, default=DEFAULT_MAX_REQUESTS, help="request bound of each run")
    parser.add_argument("--workers", type=int, help="gunicorn worker processes (default: gunicorn.conf.py)")
    parser.add_argument("--threads", type=int, help="threads per worker (default: gunicorn.conf.py)")
    parser.add_argument(
        "--no-analyze",
        action="store_true",
        help="PostgreSQL: skip ANALYZE after creating the campaign (a campaign rated the minute it "
        "is created, before autovacuum has run)",
    )
    parser.add_argument(
        "--sqlite-synchronous",
        choices=("FULL", "NORMAL"),
        default="FULL",
        help="SQLite's synchronous mode (default FULL, the product's: an acknowledged rating "
        "survives a power loss; NORMAL to measure what that costs)",
    )
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    args.max_seconds = min(args.max_seconds, MAX_SECONDS)
    ks = [int(k) for k in args.raters.split(",")]

    workdir = Path(tempfile.mkdtemp(prefix="comve-load-"))
    database = BenchDatabase(args.database, workdir, f"comve_load_{os.getpid()}", args.postgres_url)
    env = production_env(database.url, workdir, baseline=True, COMVE_SQLITE_SYNCHRONOUS=args.sqlite_synchronous)
    prepare(env)
    setup_django(env)
    server = Gunicorn(env, workdir / "gunicorn.log", workers=args.workers, threads=args.threads)
    started = time.perf_counter()
    try:
        with server:
            threads = server.env.get("GUNICORN_THREADS", "gunicorn.conf.py's")
            durability = f" (synchronous={args.sqlite_synchronous})" if args.database == "sqlite" else ""
            print(
                f"gunicorn {server.url}: {len(server.worker_pids())} workers x {threads} threads; "
                f"{args.database}{durability}; load average before the run {os.getloadavg()[0]:.2f}"
            )
            results = [run_one(server, k, args) for k in ks]
    finally:
        database.drop()
        # keep only the server log, which the report points to
        shutil.rmtree(workdir / "static", ignore_errors=True)
        for path in workdir.glob("*.sqlite3*"):
            path.unlink()
    report(args.database, results, workdir / "gunicorn.log")
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                [
                    {
                        **{key: value for key, value in r.items() if key not in ("rating", "baseline")},
                        "rating": r["rating"].as_dict(),
                        "baseline": r["baseline"].as_dict(),
                        "database": args.database,
                    }
                    for r in results
                ],
                indent=2,
            )
        )
    if any(r["violations"] for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
