"""Calibration: the metric comparisons' permutation tests with coin flips from every bit of the generator.

    python bench/permutation_flips_calibration.py                    # 2,000 null + 2,000 alternative campaigns
    python bench/permutation_flips_calibration.py --campaigns 100 --seeds 100

The paired permutation test of two metrics (``correlation.paired_permutation_test``, the report's
"comparisons") swaps each segment's two metric scores with probability 1/2. Until the third round of
issue 22 each swap was a double drawn from the generator and compared with 1/2 (one 64-bit output per
flip); now the flips are the bits of the generator's random bytes (64 per output). Both are fair,
independent coins, so the p-values are other Monte Carlo draws of the same distribution. This prints,
for both kinds of flips on the same synthetic campaigns (systems x instances x 3 raters with rater
harshness, instance difficulty and noise; two metrics that track the latent quality):

- under the null (the two metrics equally noisy, so exchangeable segment by segment): how often p <= 0.05
  and p <= 0.01, with 95% Wilson intervals (a valid test rejects at most at its level);
- under an alternative (the second metric noisier): the power at 0.05;
- on one campaign, the p-values of many seeds (what "another seed" of a report gives): their mean and
  spread for both kinds, and SciPy's two-sample Kolmogorov-Smirnov test between them.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
RATER_POOL = 20
HARSHNESS_SD = 0.4  # rater effects: each rater's offset on the 0-3 scale
DIFFICULTY_SD = 0.5
RATING_NOISE_SD = 0.7
METRIC_NOISE_SD = 0.8
NOISIER_METRIC_SD = 1.0  # the alternative: the second metric's noise
LEVELS = (0.05, 0.01)


def former_coin_flips(rng: np.random.Generator, rows: int, columns: int) -> np.ndarray:
    """The flips as they were drawn before: one double per flip, below 1/2."""
    return rng.random((rows, columns)) < 0.5


def campaign(seed: int, systems: int, instances: int, second_noise: float) -> tuple[np.ndarray, ...]:
    """Flattened (metric a, metric b, human) segment scores of one synthetic campaign with rater effects."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(1.6, 0.3, systems)
    difficulty = rng.normal(0, DIFFICULTY_SD, instances)
    latent = quality[:, None] + difficulty[None, :]
    harshness = rng.normal(0, HARSHNESS_SD, RATER_POOL)
    raters = np.stack([rng.choice(RATER_POOL, 3, replace=False) for _ in range(systems * instances)])
    raters = raters.reshape(systems, instances, 3)
    noise = rng.normal(0, RATING_NOISE_SD, (systems, instances, 3))
    ratings = np.clip(np.round(latent[:, :, None] - harshness[raters] + noise), 0, 3)
    human = ratings.mean(axis=2)
    metric_a = latent + rng.normal(0, METRIC_NOISE_SD, latent.shape)
    metric_b = latent + rng.normal(0, second_noise, latent.shape)
    return metric_a.ravel(), metric_b.ravel(), human.ravel()


def p_value(flips, a, b, human, name: str, permutations: int, seed: int) -> float:
    """The permutation test's p-value with the given way of drawing the flips (swapped in for the call)."""
    from evalapp.compute import correlation

    current = correlation.coin_flips
    correlation.coin_flips = flips
    try:
        figure = correlation.paired_permutation_test(a, b, human, name, permutations, np.random.default_rng(seed))
    finally:
        correlation.coin_flips = current
    return float(figure["p"])


@dataclass(frozen=True)
class Rejections:
    flips: str
    campaigns: int
    rates: dict[float, tuple[float, float, float]]  # level: (rate, Wilson low, Wilson high)


@dataclass(frozen=True)
class SeedSpread:
    flips: str
    mean: float
    sd: float


@dataclass(frozen=True)
class Calibration:
    null: list[Rejections]
    power: list[Rejections]
    spread: list[SeedSpread]
    ks_statistic: float
    ks_p: float
    mean_p_one_campaign: float


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    rate = successes / n
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)


def kinds():
    from evalapp.compute import correlation

    return {"bits of random bytes (now)": correlation.coin_flips, "one double per flip (before)": former_coin_flips}


def rejections(campaigns: int, second_noise: float, args: argparse.Namespace, offset: int) -> list[Rejections]:
    found = []
    data = [campaign(offset + c, args.systems, args.instances, second_noise) for c in range(campaigns)]
    for label, flips in kinds().items():
        ps = np.array([p_value(flips, *d, args.coefficient, args.permutations, 7 + c) for c, d in enumerate(data)])
        rates = {level: (float(np.mean(ps <= level)), *wilson(int(np.sum(ps <= level)), len(ps))) for level in LEVELS}
        found.append(Rejections(label, campaigns, rates))
    return found


def calibrate(args: argparse.Namespace) -> Calibration:
    from scipy import stats

    null = rejections(args.campaigns, METRIC_NOISE_SD, args, 0)
    power = rejections(args.campaigns, NOISIER_METRIC_SD, args, 100_000)
    # one campaign whose difference is near the edge of significance, p-values over many seeds
    data = campaign(args.edge_campaign, args.systems, args.instances, args.edge_noise)
    by_kind = {
        label: np.array([p_value(flips, *data, args.coefficient, args.permutations, s) for s in range(args.seeds)])
        for label, flips in kinds().items()
    }
    now, before = by_kind.values()
    test = stats.ks_2samp(now, before)
    return Calibration(
        null,
        power,
        [SeedSpread(label, float(ps.mean()), float(ps.std(ddof=1))) for label, ps in by_kind.items()],
        float(test.statistic),
        float(test.pvalue),
        float(before.mean()),
    )


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--campaigns", type=int, default=2000)
    parser.add_argument("--seeds", type=int, default=1000, help="seeds of the one campaign near the edge")
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--instances", type=int, default=60)
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--coefficient", default="pearson", choices=["pearson", "kendall_b"])
    parser.add_argument("--edge-campaign", type=int, default=3)
    parser.add_argument("--edge-noise", type=float, default=0.97, help="second metric's noise near the edge")
    return parser


def main() -> None:
    sys.path.insert(0, str(REPO))
    args = parser().parse_args()
    started = time.perf_counter()
    result = calibrate(args)
    print(
        f"{args.campaigns} campaigns per row: {args.systems} systems x {args.instances} instances x 3 raters "
        f"(pool of {RATER_POOL}, harshness sd {HARSHNESS_SD}), segment level, {args.coefficient}, "
        f"{args.permutations} permutations"
    )
    print("| flips | null: p <= 0.05 | null: p <= 0.01 | power at 0.05 (noisier second metric) |")
    print("|---|---|---|---|")
    for null, power in zip(result.null, result.power, strict=True):
        cells = [f"{r:.3f} [{lo:.3f}, {hi:.3f}]" for r, lo, hi in (null.rates[0.05], null.rates[0.01])]
        rate, lo, hi = power.rates[0.05]
        print(f"| {null.flips} | {cells[0]} | {cells[1]} | {rate:.3f} [{lo:.3f}, {hi:.3f}] |")
    print(f"\none campaign near the edge, {args.seeds} seeds each:")
    print("| flips | mean p | sd of p over seeds |")
    print("|---|---|---|")
    for row in result.spread:
        print(f"| {row.flips} | {row.mean:.4f} | {row.sd:.4f} |")
    print(f"two-sample Kolmogorov-Smirnov: D = {result.ks_statistic:.3f}, p = {result.ks_p:.3f}")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
