"""Validates the "ranking settled" signal on synthetic campaigns with known true means.

Each synthetic campaign has K systems with true means spread over the 0-3 scale, N instances (each with
its own difficulty), M raters per item drawn from a pool of raters with their own harshness, and Gaussian
noise; scores are rounded and clipped to 0-3. Its ratings arrive in a random order (as the engine leases
items). At every checkpoint (a share of the ratings collected) the stability of
``evalapp/compute/ranking_stability.py`` is computed on the ratings so far, exactly as the dashboard does;
the first checkpoint at which the ranking is settled is where an organizer could close early.

Reported per configuration: how often "settled" was declared before completion, at what share of the
ratings on average, and, among those, how often the ranking published at that moment (ranks and clusters
as Table 6 shows them) differs from the one at completion, and from the true ranking (ranks of the
true means; ties are not expected).

Run:  .venv/bin/python bench/ranking_stability_sim.py [--campaigns 50] [--systems 10] [--instances 100]
      [--raters-per-item 3] [--replicates 100] [--json out.json]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.defaults import (
    DEFAULT_PERMUTATIONS,
    SIGNIFICANCE_ALPHA,
    STABILITY_REPLICATES,
    STABILITY_THRESHOLD,
)
from evalapp.compute import ranking_stability

CHECKPOINTS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
RATER_POOL = 30
RATER_SD = 0.3
INSTANCE_SD = 0.4
NOISE_SD = 0.7


def synthetic_campaign(rng, systems, instances, raters_per_item, spread):
    """(true means, scores (K x N x M), the order in which the K*N*M ratings arrive)."""
    true = np.sort(rng.uniform(1.5 - spread / 2, 1.5 + spread / 2, systems))[::-1]
    difficulty = rng.normal(0, INSTANCE_SD, instances)
    harshness = rng.normal(0, RATER_SD, RATER_POOL)
    raters = np.stack(
        [[rng.choice(RATER_POOL, raters_per_item, replace=False) for _ in range(instances)] for _ in range(systems)]
    )
    latent = (
        true[:, None, None]
        + difficulty[None, :, None]
        + harshness[raters]
        + rng.normal(0, NOISE_SD, (systems, instances, raters_per_item))
    )
    scores = np.clip(np.rint(latent), 0, 3)
    return true, scores, rng.permutation(scores.size)


def state(scores, collected):
    """(sums, counts, score counts) of the ratings in the flat index array ``collected``."""
    mask = np.zeros(scores.size, dtype=bool)
    mask[collected] = True
    mask = mask.reshape(scores.shape)
    sums = (scores * mask).sum(axis=2)
    counts = mask.sum(axis=2)
    score_counts = np.stack([((scores == value) & mask).sum(axis=(1, 2)) for value in range(4)], axis=1)
    return sums, counts, score_counts


def ordered(names, sums, counts):
    scores = sums.sum(axis=1) / np.maximum(counts.sum(axis=1), 1)
    order = sorted(range(len(names)), key=lambda k: (-scores[k], names[k]))
    return order


def run_campaign(rng, seed, args):
    true, scores, arrival = synthetic_campaign(rng, args.systems, args.instances, args.raters_per_item, args.spread)
    names = [f"s{k:02d}" for k in range(args.systems)]
    sums, counts, _ = state(scores, arrival)
    order = ordered(names, sums, counts)
    final = ranking_stability.ranking(
        [names[k] for k in order], sums[order], counts[order], args.permutations, seed, SIGNIFICANCE_ALPHA
    )
    final_by_name = {names[k]: (rank, cluster) for k, rank, cluster in zip(order, *final)}
    true_rank = {names[k]: 1 + int(np.sum(true > true[k])) for k in range(args.systems)}
    for share in CHECKPOINTS:
        collected = arrival[: int(share * scores.size)]
        sums, counts, score_counts = state(scores, collected)
        if (counts.sum(axis=1) == 0).any():
            continue
        order = ordered(names, sums, counts)
        found = ranking_stability.stability(
            [names[k] for k in order],
            sums[order],
            counts[order],
            score_counts[order],
            args.raters_per_item,
            args.replicates,
            args.permutations,
            seed,
            SIGNIFICANCE_ALPHA,
            args.threshold,
        )
        if found.settled:
            now = {team: (rank, cluster) for team, rank, cluster in zip(found.teams, found.ranks, found.clusters)}
            clusters_now = _cluster_sets(now)
            clusters_final = _cluster_sets(final_by_name)
            return {
                "settled_at": share,
                "ranks_differ": any(now[t][0] != final_by_name[t][0] for t in names),
                "clusters_differ": clusters_now != clusters_final,
                "differs_from_truth": any(now[t][0] != true_rank[t] for t in names),
            }
    return {"settled_at": None}


def _cluster_sets(by_name):
    groups = {}
    for team, (_, cluster) in by_name.items():
        groups.setdefault(cluster, set()).add(team)
    return sorted(map(sorted, groups.values()))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--campaigns", type=int, default=50)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--instances", type=int, default=100)
    parser.add_argument("--raters-per-item", type=int, default=3)
    parser.add_argument("--spread", type=float, default=1.5, help="Range of the true means (default 1.5).")
    parser.add_argument("--replicates", type=int, default=STABILITY_REPLICATES)
    parser.add_argument("--permutations", type=int, default=DEFAULT_PERMUTATIONS)
    parser.add_argument("--threshold", type=float, default=STABILITY_THRESHOLD)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--json", help="Also write the figures to this file.")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    runs = [run_campaign(rng, args.seed + index, args) for index in range(args.campaigns)]
    settled = [run for run in runs if run["settled_at"] is not None]
    figures = {
        "campaigns": args.campaigns,
        "systems": args.systems,
        "instances": args.instances,
        "raters_per_item": args.raters_per_item,
        "spread": args.spread,
        "replicates": args.replicates,
        "permutations": args.permutations,
        "threshold": args.threshold,
        "seed": args.seed,
        "settled_early": len(settled),
        "mean_share_when_settled": float(np.mean([run["settled_at"] for run in settled])) if settled else None,
        "settled_but_final_ranks_differ": sum(run["ranks_differ"] for run in settled),
        "settled_but_final_clusters_differ": sum(run["clusters_differ"] for run in settled),
        "settled_ranks_differ_from_truth": sum(run["differs_from_truth"] for run in settled),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(
        f"{args.campaigns} synthetic campaigns: {args.systems} systems x {args.instances} instances x "
        f"{args.raters_per_item} raters per item, true means spread over {args.spread}"
    )
    print(
        f"settled before completion: {len(settled)} of {args.campaigns}"
        + (f", at {figures['mean_share_when_settled']:.0%} of the ratings on average" if settled else "")
    )
    print(
        f"of those, final ranks differ: {figures['settled_but_final_ranks_differ']}; final clusters differ: "
        f"{figures['settled_but_final_clusters_differ']}; ranks differ from the true ranking: "
        f"{figures['settled_ranks_differ_from_truth']}"
    )
    print(f"{figures['seconds']} s")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return figures


if __name__ == "__main__":
    main()
