"""Calibrates Table 6's rater-aware intervals and tests by simulation, beside the former instance-only method.

Each synthetic campaign has 5 systems, 100 instances and 3 raters per item drawn from a pool of 10 or 30
raters. A score is ``clip(round(mu_k + instance_i + system x instance_ki + severity_r + noise), 0, 3)``
with the variance components of the ETH pilot (instance 0.25, system x instance 0.398, noise 0.618) and
the pool's severities drawn N(0, SD^2) (SD 0.2 or 0.5). The harsh rater is the pool's harshest (on
average -0.31 / -0.41 at SD 0.2 and -0.77 / -1.02 at SD 0.5, pool 10 / 30). Placed *evenly*, it is one
more rater drawn at random for an item; placed *unevenly*, it takes a slot in 60% of system 2's items
and 10% of every other system's, chosen because it is the harshest (the adversarial case: its severity
is not independent of where it rates). Systems 2 and 3 are equal (mu 1.7), the others 1.3, 2.0, 2.3.

The true system mean is the system's expected score over the population of instances and the population
of raters the pool is drawn from (severity N(0, SD^2)). With Gaussian effects it is exact:
``E[score] = sum_{t=1..3} Phi((mu - t + 0.5) / s)`` with ``s^2`` the sum of the variances.

Per cell (pool x SD x placement) the run reports the coverage of the 95% intervals of the five system
means (pooled, and the worst system's), and the false-positive rate of the two-sided test at alpha 0.05
between the equal systems 2 and 3, with its Clopper-Pearson 95% upper bound; for the product's
method (:mod:`evalapp.compute.rater_uncertainty`) and for the former one (percentile bootstrap over
instances; paired permutation test over instances on per-instance means).

Run:  nice .venv/bin/python bench/rater_uncertainty_sim.py [--campaigns 1000] [--old-resamples 1000]
      [--old-permutations 2000] [--seed 2020] [--json out.json]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.defaults import CONFIDENCE_LEVEL, SIGNIFICANCE_ALPHA
from evalapp.compute import bootstrap, rater_uncertainty, significance

MEANS = np.array([1.3, 1.7, 1.7, 2.0, 2.3])
EQUAL_PAIR = (1, 2)
INSTANCES = 100
RATERS_PER_ITEM = 3
INSTANCE_VAR = 0.25
SYSTEM_INSTANCE_VAR = 0.398
NOISE_VAR = 0.618
UNEVEN_SHARE_TARGET = 0.6  # share of the target system's items with the harsh rater in them
UNEVEN_SHARE_OTHERS = 0.1
UNEVEN_TARGET = 1
POOLS = (10, 30)
SEVERITY_SDS = (0.2, 0.5)
PLACEMENTS = ("even", "uneven")


def expected_score(mu, variance):
    """E[clip(round(X), 0, 3)] for X ~ N(mu, variance)."""
    sd = np.sqrt(variance)
    return sum(stats.norm.cdf((mu - t + 0.5) / sd) for t in (1, 2, 3))


def true_means(pool, severity_sd):
    """The systems' expected scores over the populations of instances and raters (module doc)."""
    base = INSTANCE_VAR + SYSTEM_INSTANCE_VAR + NOISE_VAR
    return expected_score(MEANS, base + severity_sd**2)


def campaign(rng, pool, severity_sd, placement):
    """Per-rating rows (system, instance, rater, score) of one synthetic campaign (rater 0 is the harshest)."""
    systems = len(MEANS)
    harsh = 1  # rater 0, the harshest
    severity = np.sort(rng.normal(0, severity_sd, pool))  # the harshest first
    items = systems * INSTANCES
    system_of = np.repeat(np.arange(systems), INSTANCES)
    instance_of = np.tile(np.arange(INSTANCES), systems)
    if placement == "even":
        raters = np.argsort(rng.random((items, pool)), axis=1)[:, :RATERS_PER_ITEM]
    else:
        raters = harsh + np.argsort(rng.random((items, pool - harsh)), axis=1)[:, :RATERS_PER_ITEM]
        share = np.where(system_of == UNEVEN_TARGET, UNEVEN_SHARE_TARGET, UNEVEN_SHARE_OTHERS)
        raters[rng.random(items) < share, 0] = 0
    instance_effect = rng.normal(0, np.sqrt(INSTANCE_VAR), INSTANCES)
    cell_effect = rng.normal(0, np.sqrt(SYSTEM_INSTANCE_VAR), (systems, INSTANCES))
    latent = (
        MEANS[system_of][:, None]
        + instance_effect[instance_of][:, None]
        + cell_effect[system_of, instance_of][:, None]
        + severity[raters]
        + rng.normal(0, np.sqrt(NOISE_VAR), raters.shape)
    )
    scores = np.clip(np.rint(latent), 0, 3)
    return (
        np.repeat(system_of, RATERS_PER_ITEM),
        np.repeat(instance_of, RATERS_PER_ITEM),
        raters.ravel(),
        scores.ravel(),
    )


def new_method(rows):
    """(covered per system given the truth later: (low, high) arrays, equal pair's two-sided p)."""
    system_of, instance_of, rater_of, scores = rows
    names = list(range(len(MEANS)))
    design = rater_uncertainty.RatingDesign(
        names, system_of, instance_of, rater_of, scores, INSTANCES, int(rater_of.max()) + 1
    )
    found = rater_uncertainty.contrasts(design)
    found_intervals = rater_uncertainty.intervals(found, CONFIDENCE_LEVEL)
    low = np.array([i.low for i in found_intervals])
    high = np.array([i.high for i in found_intervals])
    pair = found.pairs.index(EQUAL_PAIR)
    difference = found.means[EQUAL_PAIR[0]] - found.means[EQUAL_PAIR[1]]
    one_sided = rater_uncertainty.one_sided_pvalues(
        [abs(difference)], [found.pair_variance[pair]], [found.pair_df[pair]]
    )[0]
    return low, high, min(1.0, 2 * one_sided)


def old_method(rows, resamples, permutations, seed):
    """The former method: percentile bootstrap over instances, paired permutation test over instances."""
    system_of, instance_of, _, scores = rows
    shape = (len(MEANS), INSTANCES)
    sums = np.zeros(shape)
    counts = np.zeros(shape)
    np.add.at(sums, (system_of, instance_of), scores)
    np.add.at(counts, (system_of, instance_of), 1)
    found = bootstrap.ratio_intervals(sums, counts, resamples, seed, CONFIDENCE_LEVEL)
    low = np.array([i.low for i in found])
    high = np.array([i.high for i in found])
    means = sums / counts
    p = significance.paired_permutation_pvalues(means[EQUAL_PAIR[0]] - means[EQUAL_PAIR[1]], permutations, seed)[0]
    return low, high, p


def clopper_pearson_upper(successes, trials, level=0.95):
    if successes >= trials:
        return 1.0
    return float(stats.beta.ppf(1 - (1 - level) / 2, successes + 1, trials - successes))


def run_cell(pool, severity_sd, placement, campaigns, seed, old_resamples, old_permutations):
    rng = np.random.default_rng([seed, pool, int(severity_sd * 100), PLACEMENTS.index(placement)])
    truth = true_means(pool, severity_sd)
    tallies = {"new": [np.zeros(len(MEANS)), 0], "old": [np.zeros(len(MEANS)), 0]}
    for index in range(campaigns):
        rows = campaign(rng, pool, severity_sd, placement)
        results = {"new": new_method(rows)}
        if old_resamples:
            results["old"] = old_method(rows, old_resamples, old_permutations, seed + index)
        for name, (low, high, p) in results.items():
            tallies[name][0] += (low <= truth) & (truth <= high)
            tallies[name][1] += p < SIGNIFICANCE_ALPHA
    cell = {"pool": pool, "severity_sd": severity_sd, "placement": placement, "campaigns": campaigns}
    for name, (covered, rejections) in tallies.items():
        if name == "old" and not old_resamples:
            continue
        cell[name] = {
            "coverage": float(covered.sum() / (campaigns * len(MEANS))),
            "worst_system_coverage": float(covered.min() / campaigns),
            "false_positive_rate": rejections / campaigns,
            "false_positive_upper": clopper_pearson_upper(int(rejections), campaigns),
        }
    return cell


def on_target(cell):
    new = cell["new"]
    return (
        0.93 <= new["coverage"] <= 0.98 and new["false_positive_rate"] <= 0.05 and new["false_positive_upper"] <= 0.07
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=1000)
    parser.add_argument("--old-resamples", type=int, default=1000, help="0: skip the former method")
    parser.add_argument("--old-permutations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    cells = [
        run_cell(pool, sd, placement, args.campaigns, args.seed, args.old_resamples, args.old_permutations)
        for pool in POOLS
        for sd in SEVERITY_SDS
        for placement in PLACEMENTS
    ]
    print(
        "| pool | severity SD | harsh rater | coverage (new) | worst system | FPR (new) [CP upper] "
        "| coverage (old) | FPR (old) | on target |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---:|---|")
    for cell in cells:
        new, old = cell["new"], cell.get("old")
        old_cells = f"{old['coverage']:.3f} | {old['false_positive_rate']:.3f}" if old else "- | -"
        print(
            f"| {cell['pool']} | {cell['severity_sd']} | {cell['placement']} | {new['coverage']:.3f} | "
            f"{new['worst_system_coverage']:.3f} | {new['false_positive_rate']:.3f} "
            f"[{new['false_positive_upper']:.3f}] | {old_cells} | {'yes' if on_target(cell) else 'NO'} |"
        )
    print(f"\n{args.campaigns} campaigns per cell, seed {args.seed}, {time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(cells, indent=2) + "\n")
    return 0 if all(on_target(cell) for cell in cells) else 1


if __name__ == "__main__":
    sys.exit(main())
