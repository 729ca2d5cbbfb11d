"""Benchmark: Table 6 (with bootstrap intervals) and agreement over a million ratings.

    python bench/aggregate_bench.py --database sqlite
    python bench/aggregate_bench.py --database postgres --postgres-url postgres://comve@127.0.0.1:54331/comve

Builds a synthetic campaign (default 200 systems x 1,000 instances x 5 raters = 1,000,000
ratings) in a fresh database, then times the product's own result services, the ones that
``export_table6`` and ``agreement`` call, and prints the wall time and the peak resident
memory of each. Targets: Table 6 under 2 s, agreement under 10 s; Table 6 with every column
(the secondary ``human_z`` and ``human_adjusted``, first export included) under 1 s.

The secondary columns are timed beside the previous way of computing them, in the same run:
``human_z`` from every rating row (the path before issue 22) and from the grouped sums; the
first export (the mixed model queued for the background worker, "being computed"); the
background fit itself; and the export once the fit is in the cache.
``--database-url`` reuses a database kept by an earlier run (``--keep``) instead of building one.

Before and after in one command (issue 22): ``--baseline REV`` times Table 6 with every column (first export,
the fit cached, and with intervals and clusters) with the code of the checkout and with the code of git revision
``REV`` (``git archive`` of ``core``, ``evalapp``, ``config`` and ``bench``), each in its own process, one after
the other, on the same database, and prints both with the load average before each::

    python bench/aggregate_bench.py --database sqlite --baseline 970bf26
    python bench/aggregate_bench.py --database postgres --baseline 970bf26

The baseline's intervals are timed only with ``--baseline-intervals``: before issue 22 they formed every pair's
totals over the instance-rater cells, 19,900 x 100,000 floats (16 GB) at the default 200 systems.
"""

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if "--code" in sys.argv:  # a timing process of --baseline: import the product from that tree, not this checkout
    sys.path.insert(0, sys.argv[sys.argv.index("--code") + 1])
elif __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.loadstats import format_table
from bench.server import BenchDatabase, production_env, setup_django

REPO = Path(__file__).resolve().parent.parent
KIB = 1024
MIB = KIB * KIB
DEFAULT_BOOTSTRAP = 1000
TABLE6_TARGET_SECONDS = 2.0
TABLE6_ALL_COLUMNS_TARGET_SECONDS = 1.0
AGREEMENT_TARGET_SECONDS = 10.0


def _status_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak_memory():
    """Reset the kernel's peak-RSS mark (VmHWM) of this process, so the next phase's peak is its own."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


def measure(label, function, target=None):
    """Run ``function`` once; a result row: label, seconds, peak RSS MiB, RSS growth MiB, target, CPU seconds.

    The CPU seconds are this process's (user + system; a PostgreSQL server's work is not in them):
    on a machine shared with other work the wall time grows with the load, the CPU time much less.
    """
    gc.collect()
    reset_peak_memory()
    before = _status_kib("VmRSS")
    started, cpu_started = time.perf_counter(), time.process_time()
    function()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    peak = _status_kib("VmHWM")
    verdict = "" if target is None else ("ok" if seconds < target else "MISSED") + f" (< {target:g} s)"
    return [
        label,
        f"{seconds:.2f}",
        f"{peak * KIB / MIB:.0f}",
        f"{(peak - before) * KIB / MIB:.0f}",
        verdict,
        f"{cpu:.2f}",
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--postgres-url", help="server URL (default: $COMVE_BENCH_POSTGRES_URL or $COMVE_TEST_POSTGRES_URL)"
    )
    parser.add_argument("--systems", type=int, default=200)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--raters-per-item", type=int, default=5)
    parser.add_argument("--raters", type=int, default=100, help="size of the rater pool")
    parser.add_argument("--bootstrap", type=int, default=DEFAULT_BOOTSTRAP, help="bootstrap resamples for Table 6")
    parser.add_argument("--repeat", type=int, default=2, help="time each service this many times (first run is cold)")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--database-url", help="reuse this database (kept by --keep) instead of building one")
    parser.add_argument("--baseline", help="git revision to time beside this checkout (before/after)")
    parser.add_argument(
        "--baseline-intervals", action="store_true", help="also time the baseline's Table 6 with intervals"
    )
    parser.add_argument("--code", help=argparse.SUPPRESS)  # a timing process: the tree to import from
    parser.add_argument("--timings", help=argparse.SUPPRESS)  # a timing process: where to write its rows
    parser.add_argument(
        "--only-secondary",
        action="store_true",
        help="time only the secondary columns (human_z, human_adjusted) and Table 6 with them",
    )
    args = parser.parse_args(argv)
    if args.timings:
        return timing_process(args)

    workdir = Path(tempfile.mkdtemp(prefix="comve-aggregate-"))
    database = BenchDatabase(args.database, workdir, f"comve_aggregate_{os.getpid()}", args.postgres_url)
    if args.database_url:
        database.url, args.keep = args.database_url, True
    setup_django(production_env(database.url, workdir))
    from django.core.management import call_command

    from bench.synthetic import make_campaign
    from core.models import Campaign
    from evalapp.services.results import agreement_report, bootstrap_intervals, table6

    try:
        call_command("migrate", verbosity=0)
        if args.database_url:
            campaign = Campaign.objects.get(name="aggregate")
            print(f"reusing {database.url}")
        else:
            made = make_campaign(
                "aggregate", args.systems, args.instances, args.raters_per_item, args.raters, with_ratings=True
            )
            campaign = made.campaign
            print("built in " + ", ".join(f"{phase} {seconds:.1f} s" for phase, seconds in made.seconds.items()))
        ratings = campaign.ratings.count()
        shape = (
            ""
            if args.database_url
            else (f"{args.systems} systems x {args.instances} instances x {args.raters_per_item} raters = ")
        )
        print(
            f"{args.database}: {shape}{ratings:,} ratings from "
            f"{campaign.ratings.values('rater_id').distinct().count()} "
            f"raters; load average before the run {' '.join(f'{v:.2f}' for v in os.getloadavg())}"
        )
        if args.baseline:
            compare(args, database.url, workdir)
            return
        rows = secondary_rows(campaign)
        for run in range(1, 0 if args.only_secondary else args.repeat + 1):
            rows.append(measure(f"Table 6, no intervals (run {run})", lambda: table6(campaign), TABLE6_TARGET_SECONDS))
            rows.append(
                measure(
                    f"bootstrap intervals alone, {args.bootstrap} resamples (run {run})",
                    lambda: bootstrap_intervals(campaign, args.bootstrap),
                )
            )
            rows.append(
                measure(
                    f"Table 6 + {args.bootstrap} bootstrap resamples + clusters (run {run})",
                    lambda: table6(campaign, bootstrap=args.bootstrap),
                    TABLE6_TARGET_SECONDS,
                )
            )
            rows.append(measure(f"agreement (run {run})", lambda: agreement_report(campaign), AGREEMENT_TARGET_SECONDS))
        print(format_table(rows, ["computation", "seconds", "peak RSS MiB", "RSS growth MiB", "target", "CPU s"]))
        if args.only_secondary:
            return
        report = agreement_report(campaign)
        print(
            "agreement: "
            + ", ".join(
                f"{key} {report[key]:.4f}"
                for key in ("krippendorff_alpha_ordinal", "fleiss_kappa", "mean_pairwise_qwk")
                if report.get(key) is not None
            )
        )
    finally:
        if args.keep:
            print(f"kept: DATABASE_URL={database.url}")
        else:
            database.drop()
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)


def secondary_rows(campaign):
    """Table 6's secondary columns, the previous path (every rating row) beside the grouped one."""
    from django.core.cache import cache

    from core.defaults import ADJUSTED_INLINE_MAX_RATINGS
    from evalapp.compute import rater_effects as compute
    from evalapp.services import results

    names = [s.name for s in results.campaign_systems(campaign)]
    target = TABLE6_ALL_COLUMNS_TARGET_SECONDS

    def from_rows():  # before issue 22: every row read, z per rating, the digest of every row as the fit's key
        ids, instances, systems, raters, scores = results.rating_rows(campaign)
        compute.system_z_means(ids, raters, scores, systems, names)
        results.digest(ids, instances, raters, scores, systems, names)

    rows = [
        measure("Table 6 without the secondary columns", lambda: results.table6(campaign, secondary=False)),
        measure("baseline: human_z from every rating row + its digest (previous path)", from_rows),
        measure("human_z and the fit's key from grouped sums", lambda: results.rater_z_means(campaign, names)),
    ]
    cache.clear()
    inline = campaign.ratings.count() <= ADJUSTED_INLINE_MAX_RATINGS
    label = "fitted inline" if inline else "fit queued, 'being computed'"
    rows.append(
        measure(
            f"Table 6 with every column, first export ({label})",
            lambda: results.table6(campaign),
            None if inline else target,
        )
    )
    rows.append(
        measure(
            "background fit of human_adjusted (the worker's task)", lambda: results.fit_rater_effects(campaign, names)
        )
    )
    rows.append(measure("Table 6 with every column, fit in the cache", lambda: results.table6(campaign), target))
    return rows


def full_table_rows(bootstrap, intervals=True):
    """Table 6 with every column: the first export (cache cleared: the mixed model queued, "being computed"),
    again with the fit in the cache, and with intervals and clusters; ``[label, seconds, peak MiB, growth MiB,
    target, CPU s]`` each. Only what every revision has is called (``results.table6``)."""
    from django.core.cache import cache

    from core.models import Campaign
    from evalapp.services import results

    campaign = Campaign.objects.get(name="aggregate")
    target = TABLE6_ALL_COLUMNS_TARGET_SECONDS
    cache.clear()
    rows = [measure("Table 6 with every column, first export", lambda: results.table6(campaign), target)]
    rows.append(measure("Table 6 with every column, again", lambda: results.table6(campaign), target))
    if intervals:
        rows.append(
            measure(
                f"Table 6 with every column + intervals and clusters ({bootstrap})",
                lambda: results.table6(campaign, bootstrap=bootstrap),
                target,
            )
        )
    return rows


def timing_process(args):
    """One side of --baseline: time :func:`full_table_rows` with the product code of ``--code``."""
    workdir = Path(tempfile.mkdtemp(prefix="comve-aggregate-timing-"))
    setup_django(production_env(args.database_url, workdir))
    rows = full_table_rows(args.bootstrap, intervals=not args.only_secondary)
    Path(args.timings).write_text(json.dumps(rows))
    shutil.rmtree(workdir, ignore_errors=True)


def compare(args, url, workdir):
    """Time Table 6 with the baseline's code and with this checkout's, each in a process of its own."""
    baseline = workdir / "baseline"
    baseline.mkdir()
    archive = subprocess.run(
        ["git", "archive", args.baseline, "core", "annotators", "evalapp", "config", "bench", "templates", "static"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(baseline)], input=archive, check=True)
    found = {}
    for label, tree, intervals in (
        (f"baseline {args.baseline}", baseline, args.baseline_intervals),
        ("this checkout", REPO, True),
    ):
        load = " ".join(f"{v:.2f}" for v in os.getloadavg())
        out = workdir / f"{tree.name}.json"
        command = [sys.executable, __file__, "--code", str(tree), "--database-url", url, "--timings", str(out)]
        command += ["--bootstrap", str(args.bootstrap)] + ([] if intervals else ["--only-secondary"])
        subprocess.run(command, check=True, cwd=tree)
        found[label] = (load, {row[0]: row for row in json.loads(out.read_text())})
    labels = list(next(iter(reversed(found.values())))[1])
    table = []
    for name in labels:
        cells = [name]
        for _, rows in found.values():
            row = rows.get(name)
            cells.append("not run" if row is None else f"{row[1]} s, {row[5]} CPU s, {row[2]} MiB")
        cells.append(found["this checkout"][1][name][4])
        table.append(cells)
    header = ["computation"] + [f"{label} (load {load})" for label, (load, _) in found.items()] + ["target"]
    print(format_table(table, header))


if __name__ == "__main__":
    main()
