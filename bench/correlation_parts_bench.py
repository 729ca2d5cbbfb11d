"""Benchmark: the correlations' bootstrap, the metric comparisons and the corpus metrics' scores of many rows,
CPU seconds of this checkout against a baseline revision, alternately, on the same data.

    python bench/correlation_parts_bench.py                       # 17 x 1,000, 1,000 resamples, baseline main
    python bench/correlation_parts_bench.py --instances 300 --rounds 3 --baseline HEAD~5

The parts of ``correlation_report`` that issue 22's correlations work changed: ``_bootstrap`` (every
resample's system- and segment-level coefficients), ``_comparisons`` (Williams' and the paired
permutation tests of every pair of metric outputs) and the vectorised sacreBLEU, chrF and ComVE BLEU
scores of rows of summed statistics (what soft pairwise accuracy's permutations and the resamples
call). Each round runs the baseline's code (``git archive`` of ``evalapp`` and ``core``) and this
checkout's in separate processes, one after the other, so a machine shared with other work loads
both alike; it prints the CPU seconds (``time.process_time``, which grows much less with the load
than the wall time) and the largest difference between the two sides' figures (p-values included).
"""

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from metric_statistics_bench import RATERS_PER_ITEM, baseline_and_data, study_data

REPO = Path(__file__).resolve().parent.parent
SCORE_ROWS = 27_200  # 200 permutations x 136 system pairs: one soft pairwise accuracy call's rows
SCORE_CALLS = 20  # calls timed per corpus metric


def run_parts(tree, data_file, result_file, resamples, seed):
    """In a fresh process: the parts with the code under ``tree``; prints one line of CPU seconds."""
    sys.path.insert(0, str(tree))
    import numpy as np
    from threadpoolctl import threadpool_limits

    from evalapp.compute import correlation_study as study
    from evalapp.compute.official_bleu import STATS_WIDTH, bleu_from_totals_array
    from evalapp.metrics.sacrebleu_metrics import bleu_exp_scores, chrf_scores

    with open(data_file, "rb") as source:
        data = study_data(pickle.load(source))
    rng = np.random.default_rng(seed)
    chrf = rng.integers(0, 400, (SCORE_ROWS, 18)).astype(float)
    for order in range(6):
        chrf[:, 3 * order + 2] = np.minimum(chrf[:, 3 * order + 2], chrf[:, 3 * order : 3 * order + 2].min(axis=1))
    bleu = rng.integers(1, 4000, (SCORE_ROWS, 10)).astype(float)
    bleu[:, 2:6] = np.minimum(bleu[:, 2:6], bleu[:, 6:10])
    comve = rng.integers(1, 4000, (SCORE_ROWS, STATS_WIDTH)).astype(float)
    comve[:, :4] = np.minimum(comve[:, :4], comve[:, 4:8])
    results, seconds = {}, {}
    with threadpool_limits(limits=1, user_api="blas"):
        human = data.human_system
        k = study.default_top_k(len(data.systems))
        best = study.corr.top_k(data.systems, [h if np.isfinite(h) else -np.inf for h in human], k)
        subsets = {"all": np.ones(len(data.systems), bool), "top_k": np.isin(np.asarray(data.systems), best)}
        draws = study._domain_draws(study._domain_sizes(data), resamples, seed)
        started = time.process_time()
        results["bootstrap"] = study._bootstrap(data, subsets, resamples, seed, None, draws)
        seconds["bootstrap"] = time.process_time() - started
        started = time.process_time()
        permutation_rng = np.random.default_rng(np.random.SeedSequence([seed, study.PERMUTATION_STREAM]))
        results["comparisons"] = study._comparisons(data, subsets["all"], resamples, permutation_rng)
        seconds["comparisons"] = time.process_time() - started
        for name, score, rows in (
            ("chrF", lambda rows: chrf_scores(rows, 6, 2.0), chrf),
            ("sacreBLEU", bleu_exp_scores, bleu),
            ("ComVE BLEU", bleu_from_totals_array, comve),
        ):
            started = time.process_time()
            for _ in range(SCORE_CALLS):
                results[name] = score(rows)
            seconds[name] = (time.process_time() - started) / SCORE_CALLS * 1000  # milliseconds per call
    with open(result_file, "wb") as target:
        pickle.dump(results, target)
    print("\t".join(f"{name}={value:.3f}" for name, value in seconds.items()))


def largest_difference(first, second):
    """The largest absolute difference between two nested structures of numbers (NaN = NaN)."""
    import numpy as np

    if isinstance(first, dict):
        return max((largest_difference(first[key], second[key]) for key in first), default=0.0)
    if isinstance(first, (list, tuple)) and first and not isinstance(first[0], (int, float)):
        return max(largest_difference(a, b) for a, b in zip(first, second))
    if isinstance(first, (str, type(None))):
        return 0.0 if first == second else float("inf")
    a, b = np.asarray(first, float), np.asarray(second, float)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return float("inf")
    return float(np.nanmax(np.abs(a - b))) if np.isfinite(a).any() else 0.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=17)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples and permutations")
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument("--rounds", type=int, default=2, help="baseline and checkout, one after the other")
    parser.add_argument("--baseline", default="main", help="git revision whose code is the baseline")
    parser.add_argument("--run-parts", nargs=3, metavar=("TREE", "DATA", "RESULT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_parts:
        return run_parts(*args.run_parts, args.resamples, args.seed)
    with tempfile.TemporaryDirectory(prefix="comve-correlation-parts-") as work:
        work = Path(work)
        sys.path.insert(0, str(REPO))
        baseline, data_file = baseline_and_data(work, args.baseline, args.systems, args.instances)
        print(
            f"{args.systems} systems x {args.instances} instances x {RATERS_PER_ITEM} raters, 7 metric outputs, "
            f"{args.resamples} resamples and permutations, seed {args.seed}; CPU seconds "
            f"(the scores: milliseconds per call of {SCORE_ROWS:,} rows)"
        )
        results = {}
        for round_number in range(args.rounds):
            for label, tree in ((f"baseline ({args.baseline})", baseline), ("this checkout", REPO)):
                load = " ".join(f"{v:.2f}" for v in os.getloadavg())
                result_file = work / f"{tree.name}.pickle"
                line = subprocess.run(
                    [sys.executable, __file__, "--resamples", str(args.resamples), "--seed", str(args.seed)]
                    + ["--run-parts", str(tree), str(data_file), str(result_file)],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.strip()
                print(f"round {round_number + 1}  {label:<20} load {load}  {line.splitlines()[-1]}")
                with open(result_file, "rb") as source:
                    results[label] = pickle.load(source)
        print(f"largest difference between the two sides' figures: {largest_difference(*results.values()):.3g}")


if __name__ == "__main__":
    main()
