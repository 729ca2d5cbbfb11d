"""Calibration: soft pairwise accuracy's interval with fewer permutations per resample, against 200.

    python bench/spa_calibration.py                       # 8 datasets x 2 kinds x 10 seeds, 50 against 200
    python bench/spa_calibration.py --new 100 --datasets 4 --seeds 5

The interval of soft pairwise accuracy takes, on each of its bootstrap resamples, the p-values of every
system pair from a permutation test with few permutations; their Monte Carlo noise is part of the
estimator, and fewer permutations add noise (|p_human - p_metric| grows where both p-values are
between 0 and 1 and close). For synthetic campaigns (17 systems x 300 instances x 3 raters, a metric
close to the human scores and one far from them; systems close in quality, so many p-values are between
0 and 1, or spread apart) and many seeds (each seed draws other resamples and other permutations, as
"another seed" of a report does), this prints the interval's end points with the old and the new number
of permutations: their means, their paired difference (new - old, with its standard error) and, for
scale, the end points' spread from seed to seed with the old estimator (the Monte Carlo error a reader
of one report already lives with).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
KINDS = {"systems close in quality": 0.1, "systems spread apart": 0.4}  # sd of the systems' true quality
METRIC_NOISE = {"close metric": 0.3, "far metric": 1.0}  # segment noise added to the human segment means


def campaign(seed, spread, systems=17, instances=300):
    from evalapp.compute import correlation_study as cs

    rng = np.random.default_rng(seed)
    quality = rng.normal(1.8, spread, systems)
    ratings = np.clip(np.round(quality[:, None, None] + rng.normal(0, 0.8, (systems, instances, 3))), 0, 3)
    sums = ratings.sum(axis=2)
    metrics = []
    for name, noise in METRIC_NOISE.items():
        segment = sums / 3 + rng.normal(0, noise, sums.shape) + rng.normal(0, 0.05, systems)[:, None]
        resampler = cs.Resampler.mean(segment, cs.CAMPAIGN_DOMAIN)
        metrics.append(cs.MetricData(name, resampler.scores(), resampler, segment))
    human = cs.Resampler.ratio(sums, np.full(sums.shape, 3.0), cs.CAMPAIGN_DOMAIN)
    return cs.StudyData([f"system-{i}" for i in range(systems)], human, metrics)


def end_points(data, seed, permutations, resamples):
    """{metric: (lower, upper, mean)} of the bootstrap values of one report's interval."""
    from evalapp.compute import correlation_study as cs

    draws = cs._domain_draws(cs._domain_sizes(data), resamples, seed)
    spa, _ = cs._soft_pairwise(data, draws, seed, 100, resamples, permutations, lambda fraction, detail: None)
    return {name: (*np.percentile(boot, [2.5, 97.5]), boot.mean()) for name, (_, boot) in spa.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=int, default=200, help="permutations per resample before")
    parser.add_argument("--new", type=int, default=50, help="permutations per resample after")
    parser.add_argument("--datasets", type=int, default=8, help="campaigns of each kind")
    parser.add_argument("--seeds", type=int, default=10, help="seeds (resamples and permutations) per campaign")
    parser.add_argument("--resamples", type=int, default=200)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from threadpoolctl import threadpool_limits

    started = time.process_time()
    print(
        f"{args.datasets} campaigns of each kind x {args.seeds} seeds, {args.resamples} resamples; "
        f"{args.old} (old) and {args.new} (new) permutations per resample"
    )
    print(
        "| campaigns | metric | lower old | lower new | new - old (SE) | upper old | upper new | new - old (SE) "
        "| end points' sd over seeds (old) | mean bootstrap SPA new - old (SE) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    with threadpool_limits(limits=1, user_api="blas"):
        for kind, spread in KINDS.items():
            rows = {}  # metric: (old, new) arrays (datasets, seeds, 3)
            for dataset in range(args.datasets):
                data = campaign(10_000 + dataset, spread)
                for seed in range(args.seeds):
                    old = end_points(data, seed, args.old, args.resamples)
                    new = end_points(data, seed, args.new, args.resamples)
                    for name in old:
                        rows.setdefault(name, ([], []))
                        rows[name][0].append(old[name])
                        rows[name][1].append(new[name])
            for name, (old, new) in rows.items():
                old_a = np.array(old).reshape(args.datasets, args.seeds, 3)
                new_a = np.array(new).reshape(args.datasets, args.seeds, 3)
                diff = (new_a - old_a).reshape(-1, 3)
                se = diff.std(axis=0, ddof=1) / np.sqrt(len(diff))
                spread_sd = old_a.std(axis=1, ddof=1).mean(axis=0)  # within a campaign, over seeds
                print(
                    f"| {kind} | {name} | {old_a[..., 0].mean():.4f} | {new_a[..., 0].mean():.4f} "
                    f"| {diff[:, 0].mean():+.4f} ({se[0]:.4f}) | {old_a[..., 1].mean():.4f} | "
                    f"{new_a[..., 1].mean():.4f} | {diff[:, 1].mean():+.4f} ({se[1]:.4f}) "
                    f"| {spread_sd[0]:.4f} / {spread_sd[1]:.4f} | {diff[:, 2].mean():+.4f} ({se[2]:.4f}) |"
                )
    print(f"CPU seconds: {time.process_time() - started:.0f}")


if __name__ == "__main__":
    main()
