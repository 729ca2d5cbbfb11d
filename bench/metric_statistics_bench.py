"""Benchmark: the metric study's statistics alone (no database, no metric scoring), against a baseline revision.

    python bench/metric_statistics_bench.py                          # 17 x 1,000, 1,000 resamples, baseline a7b981f
    python bench/metric_statistics_bench.py --instances 200 --baseline HEAD~3

What a report with stored scores costs (another seed, or after new ratings) is
``correlation_report`` over the systems x instances matrices: every correlation with its
bootstrap interval, the Williams and permutation tests of every pair of metric outputs and the
WMT statistics. This builds those matrices once (synthetic ratings from 3 raters; ComVE BLEU,
sacreBLEU, chrF and sentence BLEU of texts drawn from a shared vocabulary; three
BERTScore-like segment scores), then runs ``correlation_report`` with the code of this
checkout and with the code of ``--baseline`` (``git archive`` of ``evalapp`` and ``core`` into
a temporary directory), one after the other in separate processes, on the same data and seed.
It prints the load average before each, the wall and CPU seconds, the peak memory, and the
largest difference between the two reports (every figure, interval and p-value).
"""

import argparse
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_BASELINE = "a7b981f"  # main before issue 22
WORDS = (
    "an elephant is too big for a fridge the sun rises in east cats cannot read fish live in water not trees "
    "ice melts when it is hot people drink coffee or tea sand is no liquid"
).split()
RATERS_PER_ITEM = 3
SEGMENT_LIKE = ("bertscore_p", "bertscore_r", "bertscore_f1")
# the report's phases, told apart by the progress reports' details (the same in the baseline's code):
# the correlations (point figures, bootstrap), acc_eq (flattened and grouped), soft pairwise accuracy
# (p-values and their 200 x 200 interval), then the ranking and the comparisons (Williams, permutation tests)
FIRST_PHASE = "correlations"
PHASES = (
    ("Bootstrap", FIRST_PHASE),
    ("acc_eq", "acc_eq"),
    ("Soft pairwise", "soft pairwise accuracy"),
    ("Ranking", "ranking + comparisons"),
)


def build(systems, instances, seed):
    """(names, rating sums, rating counts, [(metric name, segment scores, statistics or None)])."""
    import numpy as np

    from evalapp.metrics.comve_bleu import ComveBleu
    from evalapp.metrics.sacrebleu_metrics import Chrf, SacreBleu, SentenceBleu

    rng = np.random.default_rng(seed)
    quality = rng.normal(1.8, 0.4, systems)
    ratings = np.clip(
        np.round(quality[:, None, None] + rng.normal(0, 0.8, (systems, instances, RATERS_PER_ITEM))), 0, 3
    )
    references = [
        [" ".join(rng.choice(WORDS, size=int(rng.integers(5, 12)))) + " ." for _ in range(3)] for _ in range(instances)
    ]
    hypotheses = [
        [" ".join(rng.choice(WORDS, size=int(rng.integers(5, 12)))) + " ." for _ in range(instances)]
        for _ in range(systems)
    ]
    outputs = []
    for metric in (ComveBleu(), SacreBleu(), Chrf(), SentenceBleu()):
        outputs += [
            (metric.key, output.name, output.segment, output.stats) for output in metric.compute(hypotheses, references)
        ]
    for name in SEGMENT_LIKE:
        outputs.append((None, name, 0.8 + 0.02 * quality[:, None] + rng.normal(0, 0.05, (systems, instances)), None))
    return (
        [f"system-{i}" for i in range(systems)],
        ratings.sum(axis=2),
        np.full((systems, instances), float(RATERS_PER_ITEM)),
        outputs,
    )


def study_data(built):
    """The StudyData of ``build``'s arrays, with the code importable in this process."""
    from evalapp.compute.correlation_study import CAMPAIGN_DOMAIN, MetricData, Resampler, StudyData
    from evalapp.metrics.comve_bleu import ComveBleu
    from evalapp.metrics.sacrebleu_metrics import Chrf, SacreBleu, SentenceBleu

    names, sums, counts, outputs = built
    families = {cls.key: cls for cls in (ComveBleu, SacreBleu, Chrf, SentenceBleu)}
    metrics = []
    for key, name, segment, stats in outputs:
        if stats is not None:
            # the metric's own from_stats, recovered by computing it again on one instance
            resampler = Resampler(CAMPAIGN_DOMAIN, stats, _from_stats(families[key], name))
        else:
            resampler = Resampler.mean(segment, CAMPAIGN_DOMAIN)
        metrics.append(MetricData(name, resampler.scores(), resampler, segment))
    return StudyData(names, Resampler.ratio(sums, counts, CAMPAIGN_DOMAIN), metrics)


def _from_stats(cls, name):
    output = next(o for o in cls().compute([["a b ."]], [["a b ."]]) if o.name == name)
    return output.from_stats


def run_report(tree, data_file, result_file, resamples, seed):
    """In a fresh process: correlation_report with the code under ``tree``; prints one result line."""
    sys.path.insert(0, str(tree))
    with open(data_file, "rb") as source:
        built = pickle.load(source)
    from evalapp.compute.correlation_study import correlation_report

    data = study_data(built)
    marks = []  # (seconds since the start, phase) at the first progress report of each phase

    def progress(fraction, detail):
        phase = next((name for prefix, name in PHASES if detail.startswith(prefix)), None)
        if phase is not None and (not marks or marks[-1][1] != phase):
            marks.append((time.perf_counter() - started, phase))

    started, cpu = time.perf_counter(), time.process_time()
    report = correlation_report(data, bootstrap=resamples, seed=seed, permutations=resamples, progress=progress)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    with open(result_file, "wb") as target:
        pickle.dump(report, target)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    bounds = [(0.0, FIRST_PHASE)] + [mark for mark in marks if mark[1] != FIRST_PHASE] + [(seconds, None)]
    parts = ", ".join(f"{phase} {end - start:.1f}" for (start, phase), (end, _) in zip(bounds[:-1], bounds[1:]))
    print(f"{seconds:.1f}\t{cpu:.1f}\t{peak:.0f}\t{parts}")


SPA_DRAWS = ("soft_pairwise_accuracy/ci", "statistics/soft_pairwise_accuracy")  # issue 22: its swaps drawn anew


def differences(first, second, path=(), found=None):
    """{where: absolute difference} of two reports' numbers, and "differs" for any other value that differs."""
    import math

    found = {} if found is None else found
    where = "/".join(map(str, path))
    if isinstance(first, dict) and isinstance(second, dict):
        for key in set(first) | set(second):
            if key not in first or key not in second:
                found[f"{where}/{key}"] = "missing on one side"
            else:
                differences(first[key], second[key], path + (key,), found)
    elif isinstance(first, (list, tuple)) and isinstance(second, (list, tuple)) and len(first) == len(second):
        for position, (a, b) in enumerate(zip(first, second)):
            differences(a, b, path + (position,), found)
    elif isinstance(first, float) and isinstance(second, (int, float)):
        both_nan = math.isnan(first) and math.isnan(second)
        found[where] = 0.0 if both_nan else abs(first - second)
    elif first != second:
        found[where] = "differs"
    return found


def summarise(found):
    """Lines: the largest difference outside soft pairwise accuracy's bootstrap, and within it (its swaps of
    resampled instances are drawn another way since issue 22, from the same distribution)."""
    lines = []
    for label, chosen in (
        ("every other figure", {k: v for k, v in found.items() if not any(part in k for part in SPA_DRAWS)}),
        (
            "soft pairwise accuracy's interval and ranking",
            {k: v for k, v in found.items() if any(p in k for p in SPA_DRAWS)},
        ),
    ):
        numbers = {k: v for k, v in chosen.items() if isinstance(v, float)}
        other = sorted(k for k, v in chosen.items() if not isinstance(v, float))
        where = max(numbers, key=numbers.get, default="")
        line = f"largest difference between the two reports, {label}: {numbers.get(where, 0.0):.3g}"
        line += f" ({where})" if where and numbers[where] else ""
        if other:
            line += f"; {len(other)} other values differ, e.g. {other[0]}"
        lines.append(line)
    return lines


def baseline_and_data(work, revision, systems, instances):
    """Under ``work``: the code of ``revision`` (``git archive`` of evalapp and core) and ``build``'s data, pickled."""
    baseline = work / "baseline"
    baseline.mkdir()
    archive = subprocess.run(
        ["git", "archive", revision, "evalapp", "core"], cwd=REPO, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(baseline)], input=archive, check=True)
    data_file = work / "data.pickle"
    with open(data_file, "wb") as target:
        pickle.dump(build(systems, instances, 2020), target)
    return baseline, data_file


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=17)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples and permutations")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="git revision whose code is the baseline")
    parser.add_argument("--run-report", nargs=3, metavar=("TREE", "DATA", "RESULT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_report:
        return run_report(*args.run_report, args.resamples, args.seed)

    sys.path.insert(0, str(REPO))
    with tempfile.TemporaryDirectory(prefix="comve-statistics-") as work:
        work = Path(work)
        baseline, data_file = baseline_and_data(work, args.baseline, args.systems, args.instances)
        print(
            f"{args.systems} systems x {args.instances} instances x {RATERS_PER_ITEM} raters, 7 metric outputs, "
            f"{args.resamples} resamples and permutations, seed {args.seed}"
        )
        rows = {}
        for label, tree in ((f"baseline ({args.baseline})", baseline), ("this checkout", REPO)):
            load = " ".join(f"{v:.2f}" for v in os.getloadavg())
            result = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--resamples",
                    str(args.resamples),
                    "--seed",
                    str(args.seed),
                    "--run-report",
                    str(tree),
                    str(data_file),
                    str(work / f"{tree.name}.pickle"),
                ],
                check=True,
                capture_output=True,
                text=True,
            )
            seconds, cpu, peak, parts = result.stdout.strip().splitlines()[-1].split("\t")
            rows[label] = (load, seconds, cpu, peak, parts, work / f"{tree.name}.pickle")
        print(f"{'code':<24} {'load before':<16} {'seconds':>8} {'CPU s':>8} {'peak RSS MiB':>13}")
        for label, (load, seconds, cpu, peak, _, _) in rows.items():
            print(f"{label:<24} {load:<16} {seconds:>8} {cpu:>8} {peak:>13}")
        print("where the time went (wall seconds):")
        for label, (*_, parts, _) in rows.items():
            print(f"  {label}: {parts}")
        reports = []
        for *_, path in rows.values():  # the pickled reports
            with open(path, "rb") as source:
                reports.append(pickle.load(source))
        for line in summarise(differences(*reports)):
            print(line)


if __name__ == "__main__":
    main()
