"""Benchmark: Table 6 (with bootstrap intervals) and agreement over a million ratings.

    python bench/aggregate_bench.py --database sqlite
    python bench/aggregate_bench.py --database postgres --postgres-url postgres://comve@127.0.0.1:54331/comve

Builds a synthetic campaign (default 200 systems x 1,000 instances x 5 raters = 1,000,000
ratings) in a fresh database, then times the product's own result services, the ones that
``export_table6`` and ``agreement`` call, and prints the wall time and the peak resident
memory of each. Targets: Table 6 under 2 s, agreement under 10 s.
"""
import argparse
import gc
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.loadstats import format_table  # noqa: E402
from bench.server import BenchDatabase, production_env, setup_django  # noqa: E402

KIB = 1024
MIB = KIB * KIB
DEFAULT_BOOTSTRAP = 1000
TABLE6_TARGET_SECONDS = 2.0
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
    """Run ``function`` once; a result row: label, seconds, peak RSS MiB, RSS growth MiB, target."""
    gc.collect()
    reset_peak_memory()
    before = _status_kib("VmRSS")
    started = time.perf_counter()
    function()
    seconds = time.perf_counter() - started
    peak = _status_kib("VmHWM")
    verdict = "" if target is None else ("ok" if seconds < target else "MISSED") + f" (< {target:g} s)"
    return [label, f"{seconds:.2f}", f"{peak * KIB / MIB:.0f}", f"{(peak - before) * KIB / MIB:.0f}", verdict]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--postgres-url", help="server URL (default: $COMVE_BENCH_POSTGRES_URL or $COMVE_TEST_POSTGRES_URL)")
    parser.add_argument("--systems", type=int, default=200)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--raters-per-item", type=int, default=5)
    parser.add_argument("--raters", type=int, default=100, help="size of the rater pool")
    parser.add_argument("--bootstrap", type=int, default=DEFAULT_BOOTSTRAP, help="bootstrap resamples for Table 6")
    parser.add_argument("--repeat", type=int, default=2, help="time each service this many times (first run is cold)")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="comve-aggregate-"))
    database = BenchDatabase(args.database, workdir, f"comve_aggregate_{os.getpid()}", args.postgres_url)
    setup_django(production_env(database.url, workdir))
    from django.core.management import call_command

    from bench.synthetic import make_campaign
    from evalapp.services.results import agreement_report, bootstrap_intervals, table6

    try:
        call_command("migrate", verbosity=0)
        made = make_campaign("aggregate", args.systems, args.instances, args.raters_per_item, args.raters,
                             with_ratings=True)
        campaign = made.campaign
        ratings = campaign.ratings.count()
        print(f"{args.database}: {args.systems} systems x {args.instances} instances x {args.raters_per_item} "
              f"raters = {ratings:,} ratings from {args.raters} raters; built in "
              + ", ".join(f"{phase} {seconds:.1f} s" for phase, seconds in made.seconds.items()))
        rows = []
        for run in range(1, args.repeat + 1):
            rows.append(measure(f"Table 6, no intervals (run {run})", lambda: table6(campaign), TABLE6_TARGET_SECONDS))
            rows.append(measure(f"bootstrap intervals alone, {args.bootstrap} resamples (run {run})",
                                lambda: bootstrap_intervals(campaign, args.bootstrap)))
            rows.append(measure(f"Table 6 + {args.bootstrap} bootstrap resamples + clusters (run {run})",
                                lambda: table6(campaign, bootstrap=args.bootstrap), TABLE6_TARGET_SECONDS))
            rows.append(measure(f"agreement (run {run})", lambda: agreement_report(campaign), AGREEMENT_TARGET_SECONDS))
        print(format_table(rows, ["computation", "seconds", "peak RSS MiB", "RSS growth MiB", "target"]))
        report = agreement_report(campaign)
        print("agreement: " + ", ".join(f"{key} {report[key]:.4f}" for key in
                                        ("krippendorff_alpha_ordinal", "fleiss_kappa", "mean_pairwise_qwk")
                                        if report.get(key) is not None))
    finally:
        if args.keep:
            print(f"kept: DATABASE_URL={database.url}")
        else:
            database.drop()
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
