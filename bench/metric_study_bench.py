"""Benchmark: the metric study's report, computed once, rendered again, recomputed after new ratings.

    python bench/metric_study_bench.py                       # 17 systems x 1,000 instances, every built-in metric
    python bench/metric_study_bench.py --baseline a7b981f    # the same, then before/after against that revision
    python bench/metric_study_bench.py --database postgres --postgres-url postgres://comve@127.0.0.1:54331/comve

Builds a synthetic rated campaign (default 17 systems x 1,000 instances x 3 raters) in a fresh
database, holds back the last ``--new-ratings`` ratings, then times the product's own
``metric_study.runs.report_for`` (what ``manage.py metric_report`` calls) and the renderers:

1. the first report (every metric score computed and stored), in JSON;
2. the same report in a second format (HTML): the stored report rendered again; target < 1 s;
3. a report with another seed: statistics again, metric scores from the store;
4. a report after the held-back ratings arrive: statistics again, metric scores from the store.

For each step it prints the load average before it, the wall and CPU time, the peak resident memory
of this process and of the largest child process so far (BERTScore's), the peak memory of the whole job
at one instant (the sum of the PSS of this process and its children, sampled every 500 ms by
``bench/tree_memory.py``, with the parent's and the children's shares at that instant; a PostgreSQL
server's memory is not in it), how many outputs a metric
scored, whether the stored report was reused, and where the time went: each metric's scoring (its
``compute``), the statistics (``correlation_report``), the rendering, and the rest (reading ratings
and texts, storing scores and the run). With ``--baseline REV`` the benchmark of revision REV (``git
archive`` into a temporary directory) runs afterwards with the same arguments, in its own process (so
that this checkout's child processes are BERTScore's alone), and a before/after table closes the output.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.aggregate_bench import measure
from bench.loadstats import format_table
from bench.server import BenchDatabase, production_env, setup_django
from bench.tree_memory import INTERVAL_SECONDS, KIB, TreeMemory

REPO = Path(__file__).resolve().parent.parent
SECOND_FORMAT_TARGET_SECONDS = 1.0
TARGETS = {"first": 45.0, "seed": 5.0, "ratings": 5.0}  # issue 22: seconds
DEFAULT_METRICS = "comve_bleu,sacrebleu,chrf,sentbleu,bertscore"
WORDS = (
    "an elephant is too big for a fridge the sun rises in east cats cannot read fish live in water not trees "
    "ice melts when it is hot people drink coffee or tea sand is no liquid"
).split()


def realistic_texts(seed):
    """Outputs and references with shared words, so BLEU, chrF and BERTScore spread (SQL updates)."""
    import numpy as np
    from django.db import transaction

    from core.models import Reference, SystemOutput

    rng = np.random.default_rng(seed)
    with transaction.atomic():
        for model in (Reference, SystemOutput):
            rows = list(model.objects.order_by("pk").only("pk"))
            for row in rows:
                row.text = " ".join(rng.choice(WORDS, size=int(rng.integers(5, 12)))) + " ."
            model.objects.bulk_update(rows, ["text"], batch_size=5000)


def hold_back(campaign, count):
    """Delete ``count`` ratings (the items' counters follow); returns them to be added again."""
    from django.db.models import F

    from core.models import Item, Rating

    held = list(Rating.objects.filter(campaign=campaign).order_by("-pk")[:count])
    Rating.objects.filter(pk__in=[r.pk for r in held]).delete()
    for rating in held:
        Item.objects.filter(pk=rating.item_id).update(
            active_count=F("active_count") - 1, done_count=F("done_count") - 1
        )
    return held


def give_back(held):
    from django.db.models import F

    from core.models import Item, Rating

    for rating in held:
        rating.pk = None
    Rating.objects.bulk_create(held)
    for rating in held:
        Item.objects.filter(pk=rating.item_id).update(
            active_count=F("active_count") + 1, done_count=F("done_count") + 1
        )


class Timings:
    """Seconds spent in each metric's ``compute``, in ``correlation_report`` and in rendering, by wrapping them
    (bench-only instrumentation: the product's code is unchanged). A timed call inside another (the other
    metrics, computed while BERTScore's child loads its model) counts for itself only, not for the outer one."""

    def __init__(self):
        self.seconds = defaultdict(float)
        self.nested = []  # per timed call in progress: the seconds of the timed calls inside it

    def wrap(self, owner, name, label):
        original = getattr(owner, name)
        seconds, nested = self.seconds, self.nested

        def timed(*args, **kwargs):
            started = time.perf_counter()
            nested.append(0.0)
            try:
                return original(*args, **kwargs)
            finally:
                spent = time.perf_counter() - started
                inside = nested.pop()
                if nested:
                    nested[-1] += spent
                seconds[label(args) if callable(label) else label] += spent - inside

        setattr(owner, name, timed)

    def take(self):
        taken = dict(self.seconds)
        self.seconds.clear()
        return taken


def instrument():
    from evalapp.metrics import registry
    from evalapp.services.metric_study import statistics

    timings = Timings()
    for key, cls in registry.METRICS.items():
        timings.wrap(cls, "compute", f"scoring {key}")
    timings.wrap(statistics, "correlation_report", "statistics")
    return timings


def load_average():
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def run_baseline(revision, argv, work):
    """The benchmark of ``revision`` with the same arguments, in its own process; its JSON figures."""
    tree = work / "baseline"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", revision], cwd=REPO, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    figures = work / "baseline.json"
    arguments = [a for a in argv if a != "--baseline" and a != revision]
    if "--memory-interval" in arguments:  # an option of this checkout's, which an older benchmark refuses
        at = arguments.index("--memory-interval")
        del arguments[at : at + 2]
    arguments = [a for a in arguments if not a.startswith("--memory-interval=")]
    print(f"baseline {revision}: running its benchmark (load average before: {load_average()})", flush=True)
    subprocess.run(
        [sys.executable, str(tree / "bench" / "metric_study_bench.py"), *arguments, "--json", str(figures)],
        cwd=tree,
        check=True,
    )
    return json.loads(figures.read_text(encoding="utf-8"))


def before_after(baseline, figures, revision):
    """Rows of the before/after table, step by step (the baseline's steps matched by position)."""
    rows = []
    for before, after in zip(baseline, figures):
        rows.append(
            [
                after["step"],
                f"{before['seconds']:.2f}",
                f"{after['seconds']:.2f}",
                f"{before['seconds'] / after['seconds']:.1f}x" if after["seconds"] else "",
                f"{before['peak_rss_mib']:.0f}",
                f"{after['peak_rss_mib']:.0f}",
                after.get("target", ""),
            ]
        )
    return rows, [
        "step",
        f"before ({revision}) s",
        "after s",
        "faster",
        "before peak MiB",
        "after peak MiB",
        "target",
    ]


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
    parser.add_argument("--metrics", default=DEFAULT_METRICS, help=f"comma-separated (default {DEFAULT_METRICS})")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--new-ratings", type=int, default=100, help="ratings that arrive after the first report")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument(
        "--memory-interval",
        type=float,
        default=INTERVAL_SECONDS,
        help=f"seconds between two samples of the job's memory (default {INTERVAL_SECONDS:g}; each costs CPU)",
    )
    parser.add_argument(
        "--baseline", help="git revision whose benchmark runs after this checkout's, for a before/after table"
    )
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="comve-metric-study-"))
    database = BenchDatabase(args.database, workdir, f"comve_metric_study_{os.getpid()}", args.postgres_url)
    setup_django(production_env(database.url, workdir))
    from django.core.management import call_command

    from bench.synthetic import make_campaign
    from evalapp.formats.metric_report import render
    from evalapp.models import MetricSegmentScore
    from evalapp.services.metric_study.runs import report_for

    timings = instrument()
    memory = TreeMemory(interval=args.memory_interval).start()
    sampling_cpu = []  # the sampling thread's CPU seconds in each step

    figures = []
    try:
        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        campaign = make_campaign(
            "metric-study", args.systems, args.instances, args.raters_per_item, args.raters, with_ratings=True
        ).campaign
        realistic_texts(2020)
        held = hold_back(campaign, args.new_ratings)
        print(
            f"{args.database}: {args.systems} systems x {args.instances} instances x {args.raters_per_item} raters, "
            f"{campaign.ratings.count():,} ratings ({len(held)} held back), metrics {args.metrics}, "
            f"{args.bootstrap} resamples; built in {time.perf_counter() - started:.1f} s"
        )
        metrics = [m for m in args.metrics.split(",") if m]
        options = {"bootstrap": args.bootstrap, "permutations": args.permutations, "corpus_scope": "campaign"}
        rows = []

        breakdown = []

        def step(label, fmt, settings, target=None):
            before = MetricSegmentScore.objects.count()
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            child_cpu_before = children.ru_utime + children.ru_stime
            outcome = {}
            load = load_average()
            timings.take()
            memory.take()

            def work():
                run, reused = report_for(campaign, metrics, settings)
                started = time.perf_counter()
                outcome.update(run=run.pk, reused=reused, bytes=len(render(run.study_report(), fmt)))
                timings.seconds["rendering"] += time.perf_counter() - started

            row = measure(label, work, target)
            peak, sampler_cpu = memory.take()
            sampling_cpu.append(sampler_cpu)
            row[5] = f"{float(row[5]) - sampler_cpu:.2f}"  # the sampling thread's CPU is not the report's
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            child, child_cpu = children.ru_maxrss / 1024, children.ru_utime + children.ru_stime - child_cpu_before
            spent = timings.take()
            spent["rest"] = max(0.0, float(row[1]) - sum(spent.values()))
            scored = MetricSegmentScore.objects.count() - before
            rows.append(
                [
                    row[0],
                    load,
                    *row[1:],
                    f"{child_cpu:.2f}",
                    f"{child:.0f}",
                    f"{peak.total_kib / KIB:.0f}",
                    f"{peak.root_kib / KIB:.0f} + {peak.children_kib / KIB:.0f} ({len(peak.kib) - 1})",
                    f"{scored:,}",
                    "yes" if outcome["reused"] else "no",
                ]
            )
            breakdown.append([label, ", ".join(f"{name} {seconds:.2f}" for name, seconds in spent.items())])
            figures.append(
                {
                    "step": label,
                    "load_before": load,
                    "seconds": float(row[1]),
                    "cpu_seconds": float(row[5]),
                    "peak_rss_mib": float(row[2]),
                    "largest_child_peak_rss_mib": child,
                    "child_cpu_seconds": child_cpu,
                    "tree_peak_pss_mib": peak.total_kib / KIB,
                    "tree_peak_parent_pss_mib": peak.root_kib / KIB,
                    "tree_peak_children_pss_mib": peak.children_kib / KIB,
                    "tree_peak_children": len(peak.kib) - 1,
                    "sampler_cpu_seconds": sampler_cpu,
                    "outputs_scored": scored,
                    "reused_report": outcome["reused"],
                    "run": outcome["run"],
                    "seconds_by_part": spent,
                    "target": f"< {target:g} s" if target else "",
                }
            )

        step("first report (JSON)", "json", options, TARGETS["first"])
        step("same report, second format (HTML)", "html", options, SECOND_FORMAT_TARGET_SECONDS)
        step("another seed (JSON)", "json", {**options, "seed": 7}, TARGETS["seed"])
        give_back(held)
        step(f"after {len(held)} more ratings (JSON)", "json", options, TARGETS["ratings"])
        print(
            format_table(
                rows,
                [
                    "step",
                    "load before",
                    "seconds",
                    "peak RSS MiB",
                    "RSS growth MiB",
                    "target",
                    "CPU s",
                    "child CPU s",
                    "largest child MiB",
                    "tree PSS peak MiB",
                    "parent + children PSS MiB (n)",
                    "outputs scored",
                    "stored report",
                ],
            )
        )
        print("where the time went (seconds):")
        for label, parts in breakdown:
            print(f"  {label}: {parts}")
        print(f"peak RSS of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
        print(
            "child CPU s: the CPU seconds of the step's child processes (BERTScore's), not in CPU s; "
            "largest child MiB: the peak RSS of the largest child process so far (BERTScore runs in one of its own; "
            "the figure only grows, so a step that starts none repeats it)"
        )
        memory_cpu = sum(sampling_cpu)
        print(
            "tree PSS peak MiB: the largest sum, at one instant, of the PSS of this process and every process it "
            f"started (BERTScore's child, a forked one), sampled every {memory.interval * 1000:.0f} ms "
            f"({memory.samples:,} samples, {memory_cpu:.1f} CPU s of this process, not in CPU s): the job's memory. "
            "PSS, not RSS: a forked child shares pages with its parent and both map the same libraries, so a sum of "
            "RSS would count those pages twice; "
            "parent + children: the shares at that instant (n: how many children)"
        )
        memory.stop()
        if args.baseline:
            # after this checkout's steps, so that their child processes are BERTScore's alone
            with tempfile.TemporaryDirectory(prefix="comve-metric-study-baseline-") as work:
                baseline = run_baseline(args.baseline, list(sys.argv[1:] if argv is None else argv), Path(work))
            print(format_table(*before_after(baseline, figures, args.baseline)))
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    finally:
        database.drop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
