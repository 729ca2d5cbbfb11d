"""Benchmark: acc_eq's part of the metric report (flattened and grouped, with their bootstrap), this checkout
against a baseline revision's ``tie_calibration``, in one process.

    python bench/acc_eq_bench.py                           # 17 x 1,000, 1,000 resamples, baseline b7bef0f
    python bench/acc_eq_bench.py --instances 300 --resamples 200 --data /tmp/built.pkl

The matrices are those of ``bench/metric_statistics_bench.py`` (17 systems x 1,000 instances; the 7
metric outputs of the default study, 5 of them with segment scores) and the resamples those of
``correlation_report`` with the same seed. For every metric output it times, in CPU seconds
(``time.process_time``, so a shared machine's other processes do not count), each step of the
report's acc_eq block with the baseline's module (``git show REV:evalapp/compute/tie_calibration.py``
loaded as a module of its own; its flattened bootstrap restated as the report computed it, block
by block through ``FlatPairs.agreement_many``) and with this checkout's, one after the other, under
one BLAS thread as the report runs. It prints the seconds of each step before and after and the
largest difference of every value, epsilon and resample's value.
"""

import argparse
import importlib.util
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_BASELINE = "b7bef0f"  # main before acc_eq's bootstrap was made fast (issue 22)
BLOCK = 100  # the baseline report's resamples per block of its flattened bootstrap


def baseline_module(revision):
    """The baseline's tie_calibration.py, loaded as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{revision}:evalapp/compute/tie_calibration.py"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "baseline_tie_calibration.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("baseline_tie_calibration", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def baseline_flat_many(flat, epsilon, counts, n_systems):
    """The baseline report's flattened bootstrap: the outputs' weights of a block of resamples at a time."""
    import numpy as np

    values = np.full(len(counts), np.nan)
    for start in range(0, len(counts), BLOCK):
        block = np.asarray(counts[start : start + BLOCK], float)
        weights = np.tile(block, (1, n_systems))[:, flat.keep]
        total = weights.sum(axis=1)
        agreeing = np.asarray(flat.agreement_many(epsilon, weights), float)
        with np.errstate(invalid="ignore", divide="ignore"):
            values[start : start + BLOCK] = np.where(total >= 2, agreeing / (total * (total - 1) / 2), np.nan)
    return values


def acc_eq_block(module, flat_many, human, segment, counts):
    """The report's acc_eq block for one metric output: {step: CPU seconds}, {figure: value}."""
    import numpy as np

    seconds, figures = {}, {}
    clock = time.process_time()

    def lap(step):
        nonlocal clock
        now = time.process_time()
        seconds[step] = seconds.get(step, 0.0) + now - clock
        clock = now

    flat = module.FlatPairs(human, segment)
    result = module.flat_accuracy(human, segment)
    lap("flattened search")
    grouped = module.GroupedPairs(human, segment)
    figures["grouped"] = grouped.optimise()
    lap("grouped search")
    figures["flattened"] = (result.value, result.epsilon)
    figures["flattened resamples"] = flat_many(flat, result.epsilon, counts) if np.isfinite(result.epsilon) else None
    lap("flattened bootstrap")
    figures["grouped resamples"] = grouped.optimise_many(counts)
    lap("grouped bootstrap")
    return seconds, figures


def largest_difference(first, second):
    import numpy as np

    if first is None or second is None:
        return 0.0 if first is second else float("inf")
    a, b = np.asarray(first, float), np.asarray(second, float)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return float("inf")
    finite = np.isfinite(a)
    return float(np.abs(a[finite] - b[finite]).max()) if finite.any() else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=17)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument("--baseline", default=DEFAULT_BASELINE)
    parser.add_argument("--data", help="a pickle of metric_statistics_bench.build's arrays (made when missing)")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "bench"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import metric_statistics_bench
    from threadpoolctl import threadpool_limits

    from evalapp.compute import correlation_study, tie_calibration

    if args.data and Path(args.data).exists():
        with open(args.data, "rb") as source:
            built = pickle.load(source)
    else:
        built = metric_statistics_bench.build(args.systems, args.instances, args.seed)
        if args.data:
            with open(args.data, "wb") as target:
                pickle.dump(built, target)
    data = metric_statistics_bench.study_data(built)
    sizes = correlation_study._domain_sizes(data)
    counts = correlation_study._domain_draws(sizes, args.resamples, args.seed)[correlation_study.CAMPAIGN_DOMAIN][1]
    human = data.human_segment
    baseline = baseline_module(args.baseline)
    print(
        f"load average before: {os.getloadavg()[0]:.2f}; {human.shape[0]} systems x {human.shape[1]} instances, "
        f"{args.resamples} resamples; CPU seconds, baseline {args.baseline} -> this checkout"
    )
    totals = {"before": {}, "after": {}}
    worst = {}
    with threadpool_limits(1):
        for metric in data.metrics:
            if metric.segment is None:
                continue
            before, old = acc_eq_block(
                baseline, lambda f, e, c: baseline_flat_many(f, e, c, human.shape[0]), human, metric.segment, counts
            )
            after, new = acc_eq_block(
                tie_calibration, correlation_study._flat_accuracy_many, human, metric.segment, counts
            )
            for step in before:
                totals["before"][step] = totals["before"].get(step, 0.0) + before[step]
                totals["after"][step] = totals["after"].get(step, 0.0) + after[step]
            for figure in old:
                pairs = (
                    zip(old[figure], new[figure]) if isinstance(old[figure], tuple) else [(old[figure], new[figure])]
                )
                for part, (a, b) in enumerate(pairs):
                    key = f"{figure} {('value', 'epsilon')[part] if isinstance(old[figure], tuple) else 'value'}"
                    worst[key] = max(worst.get(key, 0.0), largest_difference(a, b))
            print(f"  {metric.name}: {sum(before.values()):.2f} -> {sum(after.values()):.2f}")
    print("step\tbefore\tafter")
    for step in totals["before"]:
        print(f"{step}\t{totals['before'][step]:.2f}\t{totals['after'][step]:.2f}")
    print(f"acc_eq in all\t{sum(totals['before'].values()):.2f}\t{sum(totals['after'].values()):.2f}")
    print("largest differences (baseline - this checkout):")
    for key, value in worst.items():
        print(f"  {key}: {value:.2g}")


if __name__ == "__main__":
    main()
