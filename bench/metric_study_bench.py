"""Benchmark: the metric study's report, computed once, rendered again, recomputed after new ratings.

    python bench/metric_study_bench.py                       # 17 systems x 1,000 instances, every built-in metric
    python bench/metric_study_bench.py --database postgres --postgres-url postgres://comve@127.0.0.1:54331/comve

Builds a synthetic rated campaign (default 17 systems x 1,000 instances x 3 raters) in a fresh
database, holds back the last ``--new-ratings`` ratings, then times the product's own
``metric_study.runs.report_for`` (what ``manage.py metric_report`` calls) and the renderers:

1. the first report (every metric score computed and stored), in JSON;
2. the same report in a second format (HTML): the stored report rendered again; target < 1 s;
3. a report with another seed: statistics again, metric scores from the store;
4. a report after the held-back ratings arrive: statistics again, metric scores from the store.

For each step it prints the wall time, the peak resident memory, how many outputs a metric
scored and whether the stored report was reused.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.aggregate_bench import measure
from bench.loadstats import format_table
from bench.server import BenchDatabase, production_env, setup_django

SECOND_FORMAT_TARGET_SECONDS = 1.0
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
    args = parser.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="comve-metric-study-"))
    database = BenchDatabase(args.database, workdir, f"comve_metric_study_{os.getpid()}", args.postgres_url)
    setup_django(production_env(database.url, workdir))
    from django.core.management import call_command

    from bench.synthetic import make_campaign
    from evalapp.formats.metric_report import render
    from evalapp.models import MetricSegmentScore
    from evalapp.services.metric_study.runs import report_for

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

        def step(label, fmt, settings, target=None):
            before = MetricSegmentScore.objects.count()
            outcome = {}

            def work():
                run, reused = report_for(campaign, metrics, settings)
                outcome.update(run=run.pk, reused=reused, bytes=len(render(run.study_report(), fmt)))

            row = measure(label, work, target)
            scored = MetricSegmentScore.objects.count() - before
            rows.append(row + [f"{scored:,}", "yes" if outcome["reused"] else "no"])
            figures.append(
                {
                    "step": label,
                    "seconds": float(row[1]),
                    "peak_rss_mib": float(row[2]),
                    "outputs_scored": scored,
                    "reused_report": outcome["reused"],
                    "run": outcome["run"],
                }
            )

        step("first report (JSON)", "json", options)
        step("same report, second format (HTML)", "html", options, SECOND_FORMAT_TARGET_SECONDS)
        step("another seed (JSON)", "json", {**options, "seed": 7})
        give_back(held)
        step(f"after {len(held)} more ratings (JSON)", "json", options)
        print(
            format_table(
                rows,
                [
                    "step",
                    "seconds",
                    "peak RSS MiB",
                    "RSS growth MiB",
                    "target",
                    "CPU s",
                    "outputs scored",
                    "stored report",
                ],
            )
        )
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    finally:
        database.drop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
