"""Benchmark: soft pairwise accuracy with its bootstrap interval alone, this checkout against a baseline revision.

    python bench/spa_bench.py                          # 17 x 1,000, 200 x 200 interval, baseline b7bef0f
    python bench/spa_bench.py --instances 300 --baseline HEAD~2

``_soft_pairwise`` of the metric study (``evalapp/compute/correlation_study.py``): the one-sided paired
permutation test of every system pair for the human scores and each of the 7 metric outputs of
``bench/metric_statistics_bench.py``'s data (1,000 permutations), then the same on the first 200 bootstrap
resamples with 200 permutations each (the interval). Each revision runs in its own process, one after the
other, on the same data, draws and seed; the benchmark prints the load average before each, the CPU and
wall seconds of the call, and whether the two results are equal: every SPA, every bootstrap value and every
per-pair p-value.
"""

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_BASELINE = "b7bef0f"  # main before soft pairwise accuracy's work of issue 22's item 1
SEED = 2020


def run(tree, data_file, result_file, resamples, permutations):
    """In a fresh process: ``_soft_pairwise`` with the code under ``tree``; prints CPU and wall seconds."""
    sys.path.insert(0, str(tree))
    sys.path.insert(1, str(REPO / "bench"))
    import metric_statistics_bench
    from threadpoolctl import threadpool_limits

    from core.defaults import SPA_BOOTSTRAP_PERMUTATIONS, SPA_BOOTSTRAP_RESAMPLES
    from evalapp.compute import correlation_study

    with open(data_file, "rb") as source:
        data = metric_statistics_bench.study_data(pickle.load(source))
    draws = correlation_study._domain_draws(correlation_study._domain_sizes(data), resamples, SEED)
    with threadpool_limits(limits=1, user_api="blas"):  # as correlation_report runs it
        started, cpu = time.perf_counter(), time.process_time()
        result = correlation_study._soft_pairwise(
            data,
            draws,
            SEED,
            permutations,
            min(SPA_BOOTSTRAP_RESAMPLES, resamples),
            SPA_BOOTSTRAP_PERMUTATIONS,
            lambda fraction, detail: None,
        )
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    with open(result_file, "wb") as target:
        pickle.dump(result, target)
    print(f"{cpu:.2f}\t{seconds:.2f}")


def same(first, second):
    """Whether two ``_soft_pairwise`` results hold the same numbers (NaN equal to NaN)."""
    import numpy as np

    (spa_a, details_a), (spa_b, details_b) = first, second
    if set(spa_a) != set(spa_b) or details_a != details_b and repr(details_a) != repr(details_b):
        return False
    return all(
        np.array_equal([spa_a[name][0]], [spa_b[name][0]], equal_nan=True)
        and np.array_equal(spa_a[name][1], spa_b[name][1], equal_nan=True)
        for name in spa_a
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=17)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000, help="the study's resamples (SPA uses the first 200)")
    parser.add_argument("--permutations", type=int, default=1000, help="permutations of the point estimate")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="git revision whose code is the baseline")
    parser.add_argument("--run", nargs=3, metavar=("TREE", "DATA", "RESULT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:
        return run(*args.run, args.resamples, args.permutations)

    sys.path.insert(0, str(REPO))
    sys.path.insert(1, str(REPO / "bench"))
    import metric_statistics_bench

    with tempfile.TemporaryDirectory(prefix="comve-spa-") as work:
        work = Path(work)
        baseline, data_file = metric_statistics_bench.baseline_and_data(
            work, args.baseline, args.systems, args.instances, SEED
        )
        print(
            f"{args.systems} systems x {args.instances} instances, human scores and 7 metric outputs, "
            f"{args.permutations} permutations; the interval on the first {min(200, args.resamples)} of "
            f"{args.resamples} resamples"
        )
        print(f"{'code':<24} {'load before':<16} {'CPU s':>8} {'seconds':>8}")
        results = []
        for label, tree in ((f"baseline ({args.baseline})", baseline), ("this checkout", REPO)):
            load = " ".join(f"{v:.2f}" for v in os.getloadavg())
            result_file = work / f"{tree.name}.pickle"
            command = [sys.executable, __file__, "--resamples", str(args.resamples)]
            command += ["--permutations", str(args.permutations), "--run", str(tree), str(data_file), str(result_file)]
            cpu, seconds = subprocess.run(command, check=True, capture_output=True, text=True).stdout.split()[-2:]
            print(f"{label:<24} {load:<16} {cpu:>8} {seconds:>8}")
            with open(result_file, "rb") as source:
                results.append(pickle.load(source))
        print("every SPA, bootstrap value and p-value equal:", "yes" if same(*results) else "NO")


if __name__ == "__main__":
    main()
