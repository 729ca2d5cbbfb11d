"""Stopping early with a guarantee: the simulation behind docs/benchmarks.md (issue 23).

Generator: the crossed model of a rating (system + instance + system x instance + rater severity +
noise, rounded and clipped to 0-3), its instance and residual variances fitted by a two-way ANOVA to the
real ratings in ../shared/comve/ratings (the one rater's 0-3 scores of four BUT-FIT systems on 100 test
instances), the residual split evenly between system x instance and rating noise, rater severity
sd RATER_SD (the real file has one rater, so it cannot be fitted there), a pool of RATER_POOL raters.
System means: the task paper's Table 6 human scores (Human 2.58 and the 17 teams) at K evenly spaced
ranks, plus one injected exact tie (a clone of another system: the same latent means on every
instance, so the true pool difference is exactly 0 and only rating noise separates them) and one
near-tie (a clone shifted by NEAR_TIE on the latent scale). Each campaign: a pool of N instances rated
M times per (system, instance), the instances in random order (the engine's rating order).

The truth: a system's expected score on an instance with the raters' severity and the noise averaged
over the population of raters (a normal integral per instance), averaged over the pool; a pair's true
difference is the difference of those. A decision is false when its sign is wrong (a "better" between
systems whose true difference is 0 or of the other sign) or when a "tie" joins systems whose true
difference is at least epsilon.

Methods:
  (a) fixed n: the planner's normal-approximation instances for 80% power on the smallest adjacent true
      gap of at least epsilon (alpha 0.05 / adjacent pairs), then paired t-tests, Bonferroni over pairs;
  (c) the confidence sequences of evalapp/compute/sequential.py read after every instance, stopping when
      settled (every adjacent pair of the current order decided directly or by transitivity);
  (d) (c) plus racing: a system whose pairs are all decided stops being rated.
  The old "ranking settled" signal (b) is bench/ranking_stability_sim.py's job (it costs seconds per look);
  run it with --old-signal CAMPAIGNS on the paper's 100 instances (at N = 1,000 the dashboard does not
  even estimate it: K x N is above STABILITY_MAX_CELLS).

Reported per K: campaigns with any false decision (Clopper-Pearson 95% upper bound), ratings used at
stopping, ratings until the true top system is decided top, ratings until Kendall tau >= 0.9 against
the full-pool ranking, share of adjacent pairs decided within the budget (the full pool), as shares of
the full pool's K x N x M ratings.

Run:  nice .venv/bin/python bench/sequential_sim.py [--campaigns 2000] [--systems 4 10 20] [--instances 1000]
      [--chunk 100] [--old-signal 0] [--json out.json]
"""

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.defaults import (
    DEFAULT_TIE_MARGIN,
    SEQUENTIAL_ALPHA,
    SEQUENTIAL_BET_TRUNCATION,
)
from evalapp.compute import sequential

REAL_RATINGS = (
    Path(__file__).resolve().parent.parent.parent
    / "shared"
    / "comve"
    / "ratings"
    / "butfit_internal_ratings_test100.csv"
)
PAPER_PROFILE = [
    2.58,
    2.10,
    2.08,
    1.94,
    1.84,
    1.84,
    1.80,
    1.78,
    1.75,
    1.75,
    1.74,
    1.22,
    1.05,
    0.81,
    0.73,
    0.59,
    0.58,
    0.53,
]
RATER_SD = 0.3
RATER_POOL = 30
NEAR_TIE = 0.05
GRID = 10  # the settled check runs every GRID instances
RATERS_PER_ITEM = 3
POWER = 0.8
OLD_SIGNAL_EVERY = 50
MIN_FIXED_N = 10  # a paired t-test on fewer rounded differences is degenerate (zero variance)


def fitted_components(path=REAL_RATINGS):
    """(instance sd, system x instance sd, noise sd) from the real ratings by a two-way ANOVA."""
    if not path.exists():
        print(f"real ratings not found at {path}: using instance sd 0.5, residual sd 0.8", file=sys.stderr)
        return 0.5, 0.8 / np.sqrt(2), 0.8 / np.sqrt(2)
    with open(path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    systems = sorted({row["system"] for row in rows})
    instances = sorted({row["id"] for row in rows})
    table = np.full((len(systems), len(instances)), np.nan)
    for row in rows:
        table[systems.index(row["system"]), instances.index(row["id"])] = float(row["rating_0to3"])
    k, n = table.shape
    grand = table.mean()
    residual = table - table.mean(axis=1, keepdims=True) - table.mean(axis=0, keepdims=True) + grand
    ms_residual = (residual**2).sum() / ((k - 1) * (n - 1))
    ms_instance = k * ((table.mean(axis=0) - grand) ** 2).sum() / (n - 1)
    instance_var = max((ms_instance - ms_residual) / k, 0.0)
    return float(np.sqrt(instance_var)), float(np.sqrt(ms_residual / 2)), float(np.sqrt(ms_residual / 2))


def system_means(k):
    """K latent means from the paper's profile, with an injected exact tie and near-tie (their clones)."""
    base = np.array(PAPER_PROFILE)[np.linspace(0, len(PAPER_PROFILE) - 1, k - 2).round().astype(int)]
    tie_of, near_of = (k - 2) // 2, (k - 2) - 1
    means = np.concatenate([base, [base[tie_of], base[near_of] - NEAR_TIE]])
    clones = {k - 2: tie_of, k - 1: near_of}
    return means, clones


def expected_score(latent, sd):
    """E[clip(round(latent + N(0, sd^2)), 0, 3)]: sum over k of P(score >= k)."""
    cuts = np.array([0.5, 1.5, 2.5])
    return stats.norm.sf((cuts - latent[..., None]) / sd).sum(axis=-1)


def simulate(rng, campaigns, means, clones, n, components):
    """(per-instance mean scores (C, K, N), true pool means (C, K))."""
    instance_sd, interaction_sd, noise_sd = components
    k = len(means)
    u = rng.normal(0, instance_sd, (campaigns, 1, n))
    v = rng.normal(0, interaction_sd, (campaigns, k, n))
    for clone, source in clones.items():
        v[:, clone] = v[:, source]
    latent = means[None, :, None] + u + v
    severity = rng.normal(0, RATER_SD, (campaigns, RATER_POOL))
    who = rng.integers(0, RATER_POOL, (campaigns, k, n, RATERS_PER_ITEM))
    rater_effect = severity[np.arange(campaigns)[:, None, None, None], who]
    scores = np.clip(
        np.rint(latent[..., None] + rater_effect + rng.normal(0, noise_sd, (campaigns, k, n, RATERS_PER_ITEM))), 0, 3
    )
    truth = expected_score(latent, np.hypot(RATER_SD, noise_sd)).mean(axis=2)
    return scores.mean(axis=3), truth


def first_true(flags):
    """Index + 1 of the first True along the last axis (the instances needed), or a huge number."""
    hit = flags.any(axis=-1)
    return np.where(hit, flags.argmax(axis=-1) + 1, np.iinfo(np.int64).max // 4)


def closure(better):
    """Transitive closure of ``better[c, a, b]`` (a decided better than b), Floyd-Warshall on booleans."""
    reach = better.copy()
    for via in range(reach.shape[1]):
        reach |= reach[:, :, via, None] & reach[:, None, via, :]
    return reach


def kendall_tau(x, y):
    """Kendall tau-a of every row of x against the matching row of y."""
    a, b = np.triu_indices(x.shape[1], 1)
    concordance = np.sign(x[:, a] - x[:, b]) * np.sign(y[:, a] - y[:, b])
    return concordance.sum(axis=1) / len(a)


def run_chunk(rng, campaigns, k, n, components, alpha, margin):
    means, clones = system_means(k)
    scores, truth = simulate(rng, campaigns, means, clones, n, components)
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    level = sequential.pair_alpha(alpha, k)
    # Per pair: when each decision is first shown (instances), and the true difference.
    t_first, t_second, t_tie = (np.empty((campaigns, len(pairs)), dtype=np.int64) for _ in range(3))
    for index, (a, b) in enumerate(pairs):
        first, second, tie = sequential.decisions_over_time(
            scores[:, a] - scores[:, b], level, SEQUENTIAL_BET_TRUNCATION, margin
        )
        t_first[:, index], t_second[:, index], t_tie[:, index] = first_true(first), first_true(second), first_true(tie)
    true_diff = np.stack([truth[:, a] - truth[:, b] for a, b in pairs], axis=1)
    # A tie shown after a sign decision is never shown (the sign wins), so a tie counts only before it.
    t_sign = np.minimum(t_first, t_second)
    tie_shown = t_tie < t_sign
    wrong = (
        ((t_first <= n) & (true_diff <= 0))
        | ((t_second <= n) & (true_diff >= 0))
        | ((tie_shown & (t_tie <= n)) & (np.abs(true_diff) >= margin))
    )
    t_decided = np.minimum(t_sign, t_tie)

    # Settledness, the decided top and Kendall tau on a grid of looks.
    looks = np.arange(GRID, n + 1, GRID)
    cumulative = np.cumsum(scores, axis=2)
    full_order = scores.mean(axis=2)
    true_top = truth.argmax(axis=1)
    settled_at = np.full(campaigns, np.iinfo(np.int64).max // 4)
    top_at = settled_at.copy()
    tau_at = settled_at.copy()
    racing_top_at, racing_tau_at = settled_at.copy(), settled_at.copy()
    # Racing: a system retires when all its pairs are decided; its mean is frozen from then on.
    pair_index = {pair: i for i, pair in enumerate(pairs)}
    retire = np.stack(
        [
            np.max(
                np.stack([t_decided[:, pair_index[tuple(sorted((s, o)))]] for o in range(k) if o != s], axis=1), axis=1
            )
            for s in range(k)
        ],
        axis=1,
    )
    a_index = np.array([a for a, _ in pairs])
    b_index = np.array([b for _, b in pairs])
    for t in looks:
        observed = cumulative[:, :, t - 1] / t
        frozen_t = np.minimum(retire, t)
        racing_means = np.take_along_axis(cumulative, (frozen_t - 1)[:, :, None], axis=2)[:, :, 0] / frozen_t
        better = np.zeros((campaigns, k, k), dtype=bool)
        better[:, a_index, b_index] = t_first <= t
        better[:, b_index, a_index] = t_second <= t
        direct = np.zeros((campaigns, k, k), dtype=bool)
        direct[:, a_index, b_index] = direct[:, b_index, a_index] = t_decided <= t
        reach = closure(better)
        order = np.argsort(-observed, axis=1, kind="stable")
        upper, lower = order[:, :-1], order[:, 1:]
        rows = np.arange(campaigns)[:, None]
        adjacent_ok = direct[rows, upper, lower] | reach[rows, upper, lower] | reach[rows, lower, upper]
        now_settled = adjacent_ok.all(axis=1)
        settled_at = np.where((settled_at > n) & now_settled, t, settled_at)
        top_decided = reach[np.arange(campaigns), true_top].sum(axis=1) == k - 1
        top_at = np.where((top_at > n) & top_decided, t, top_at)
        racing_top_at = np.where((racing_top_at > n) & top_decided, t, racing_top_at)
        tau_ok = kendall_tau(observed, full_order) >= 0.9
        tau_at = np.where((tau_at > n) & tau_ok, t, tau_at)
        racing_tau_ok = kendall_tau(racing_means, full_order) >= 0.9
        racing_tau_at = np.where((racing_tau_at > n) & racing_tau_ok, t, racing_tau_at)
    stop = np.minimum(settled_at, n)
    full = k * n * RATERS_PER_ITEM

    def racing_ratings(at):
        return (np.minimum(retire, np.minimum(at, n)[:, None]).sum(axis=1) * RATERS_PER_ITEM) / full

    adjacent_true = np.argsort(-truth, axis=1, kind="stable")
    decided_end = np.zeros((campaigns, k, k), dtype=bool)
    decided_end[:, a_index, b_index] = decided_end[:, b_index, a_index] = t_decided <= n
    better_end = np.zeros((campaigns, k, k), dtype=bool)
    better_end[:, a_index, b_index] = t_first <= n
    better_end[:, b_index, a_index] = t_second <= n
    reach_end = closure(better_end)
    rows = np.arange(campaigns)[:, None]
    up, down = adjacent_true[:, :-1], adjacent_true[:, 1:]
    adjacent_decided = (decided_end[rows, up, down] | reach_end[rows, up, down] | reach_end[rows, down, up]).mean(
        axis=1
    )

    sequential_figures = {
        "false": wrong.any(axis=1),
        "ratings": stop * k * RATERS_PER_ITEM / full,
        "settled": settled_at <= n,
        "top": np.where(top_at <= n, top_at * k * RATERS_PER_ITEM / full, np.nan),
        "tau": np.where(tau_at <= n, tau_at * k * RATERS_PER_ITEM / full, np.nan),
        "adjacent": adjacent_decided,
    }
    racing_figures = dict(
        sequential_figures,
        ratings=racing_ratings(stop),
        top=np.where(racing_top_at <= n, racing_ratings(racing_top_at), np.nan),
        tau=np.where(racing_tau_at <= n, racing_ratings(racing_tau_at), np.nan),
    )
    fixed, fixed_pairs = fixed_design(scores, truth, pairs, true_diff, alpha, margin, n, k)
    # The same decisions as (a): when the sequences (directly, no transitivity) have decided every adjacent
    # pair (a) decided; ratings (racing) at that time, and (a)'s own ratings, per campaign.
    matched_at = np.array(
        [max([t_decided[c, pair_index[pair]] for pair in fixed_pairs[c]], default=0) for c in range(campaigns)]
    )
    reached = matched_at <= n
    racing_figures["matched"] = np.where(reached, racing_ratings(np.maximum(matched_at, 1)), np.nan)
    sequential_figures["matched"] = np.where(reached, np.maximum(matched_at, 1) * k * RATERS_PER_ITEM / full, np.nan)
    fixed["matched"] = fixed["ratings"]
    return {"a": fixed, "c": sequential_figures, "d": racing_figures}


def fixed_design(scores, truth, pairs, true_diff, alpha, margin, n, k):
    """(a): the planner's n for the smallest adjacent true gap >= margin, then Bonferroni paired t-tests."""
    campaigns = scores.shape[0]
    order = np.argsort(-truth, axis=1)
    rows = np.arange(campaigns)[:, None]
    gaps = truth[rows, order[:, :-1]] - truth[rows, order[:, 1:]]
    sd = np.stack(
        [
            np.std(scores[rows[:, 0], order[:, r]] - scores[rows[:, 0], order[:, r + 1]], axis=1, ddof=1)
            for r in range(k - 1)
        ],
        axis=1,
    )
    z = stats.norm.ppf(1 - alpha / (k - 1) / 2) + stats.norm.ppf(POWER)
    needed = np.where(gaps >= margin, np.ceil((z * sd / np.where(gaps > 0, gaps, np.inf)) ** 2), 0).max(axis=1)
    size = np.clip(needed, MIN_FIXED_N, n).astype(int)
    false, decided_adjacent, top_ok, tau, decided_pairs = [], [], [], [], []
    level = alpha / len(pairs)
    full_order = scores.mean(axis=2)
    for c in range(campaigns):
        y = scores[c, :, : size[c]]
        d = np.stack([y[a] - y[b] for a, b in pairs])
        t_stat, p_value = stats.ttest_1samp(d, 0.0, axis=1)
        significant = np.nan_to_num(p_value, nan=1.0) < level
        sign = np.sign(d.mean(axis=1))
        false.append(bool(np.any(significant & (np.sign(true_diff[c]) != sign))))
        better = np.zeros((k, k), dtype=bool)
        for (a, b), s, g in zip(pairs, significant, sign):
            if s:
                better[(a, b) if g > 0 else (b, a)] = True
        reach = closure(better[None])[0]
        up, down = order[c, :-1], order[c, 1:]
        adjacent = reach[up, down] | reach[down, up]
        decided_adjacent.append(float(np.mean(adjacent)))
        decided_pairs.append([tuple(sorted((int(a), int(b)))) for a, b, ok in zip(up, down, adjacent) if ok])
        means = y.mean(axis=1)
        top_ok.append(int(np.argmax(means)) == int(np.argmax(truth[c])))
        tau.append(kendall_tau(means[None], full_order[c][None])[0] >= 0.9)
    share = size * k * RATERS_PER_ITEM / (k * n * RATERS_PER_ITEM)
    return {
        "false": np.array(false),
        "ratings": share,
        "settled": np.ones(campaigns, dtype=bool),
        "top": np.where(top_ok, share, np.nan),
        "tau": np.where(tau, share, np.nan),
        "adjacent": np.array(decided_adjacent),
    }, decided_pairs


def old_signal(rng, campaigns, k, n, components, every, permutations):
    """(b): the old "ranking settled" signal (evalapp/compute/ranking_stability.py, the dashboard's settings)
    read after every ``every`` ratings, the ratings arriving one by one in random order. When it fires, the
    clusters it shows are its decisions: a system in a better cluster than another is "better"; false when
    the true difference is 0 or of the other sign. Returns the figures of :func:`summarise`."""
    from core.defaults import SIGNIFICANCE_ALPHA, STABILITY_REPLICATES, STABILITY_THRESHOLD
    from evalapp.compute import ranking_stability

    means, clones = system_means(k)
    false, ratings, settled = [], [], []
    names = [f"s{index:02d}" for index in range(k)]
    for campaign in range(campaigns):
        _, truth = simulate(rng, 1, means, clones, n, components)
        raw = _raw_scores(rng, means, clones, n, components)
        arrival = rng.permutation(raw.size)
        fired = None
        for count in range(every, raw.size + 1, every):
            mask = np.zeros(raw.size, dtype=bool)
            mask[arrival[:count]] = True
            mask = mask.reshape(raw.shape)
            sums, counts = (raw * mask).sum(axis=2), mask.sum(axis=2)
            if (counts.sum(axis=1) == 0).any():
                continue
            score_counts = np.stack([((raw == v) & mask).sum(axis=(1, 2)) for v in range(4)], axis=1)
            scores = sums.sum(axis=1) / counts.sum(axis=1)
            order = sorted(range(k), key=lambda index: (-scores[index], names[index]))
            found = ranking_stability.stability(
                [names[i] for i in order],
                sums[order],
                counts[order],
                score_counts[order],
                RATERS_PER_ITEM,
                STABILITY_REPLICATES,
                permutations,
                campaign,
                SIGNIFICANCE_ALPHA,
                STABILITY_THRESHOLD,
            )
            if found.settled:
                fired = (count, dict(zip(found.teams, found.clusters)))
                break
        if fired is None:
            false.append(False)
            ratings.append(1.0)
            settled.append(False)
            continue
        count, cluster = fired
        wrong = any(
            cluster[names[a]] < cluster[names[b]] and truth[0, a] <= truth[0, b]
            for a in range(k)
            for b in range(k)
            if a != b
        )
        false.append(wrong)
        ratings.append(count / raw.size)
        settled.append(True)
    nan = np.full(campaigns, np.nan)
    return summarise(
        [
            {
                "false": np.array(false),
                "ratings": np.array(ratings),
                "settled": np.array(settled),
                "top": nan,
                "tau": nan,
                "adjacent": nan,
                "matched": nan,
            }
        ]
    )


def _raw_scores(rng, means, clones, n, components):
    """One campaign's ratings (K x N x M) from the crossed model."""
    instance_sd, interaction_sd, noise_sd = components
    k = len(means)
    v = rng.normal(0, interaction_sd, (k, n))
    for clone, source in clones.items():
        v[clone] = v[source]
    latent = means[:, None] + rng.normal(0, instance_sd, (1, n)) + v
    severity = rng.normal(0, RATER_SD, RATER_POOL)
    who = rng.integers(0, RATER_POOL, (k, n, RATERS_PER_ITEM))
    return np.clip(np.rint(latent[..., None] + severity[who] + rng.normal(0, noise_sd, who.shape)), 0, 3)


def clopper_pearson_upper(hits, total, level=0.95):
    return float(stats.binomtest(int(hits), int(total)).proportion_ci(level, method="exact").high) if total else None


def summarise(parts):
    joined = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    total = joined["false"].size
    false = int(joined["false"].sum())
    top, tau = joined["top"], joined["tau"]
    return {
        "campaigns": total,
        "false": false,
        "false_rate": false / total,
        "false_upper": clopper_pearson_upper(false, total),
        "ratings_at_stop": float(np.mean(joined["ratings"])),
        "settled_share": float(np.mean(joined["settled"])),
        "top_correct_share": float(np.mean(~np.isnan(top))),
        "top_ratings_median": float(np.nanmedian(top)) if np.any(~np.isnan(top)) else None,
        "tau_share": float(np.mean(~np.isnan(tau))),
        "tau_ratings_median": float(np.nanmedian(tau)) if np.any(~np.isnan(tau)) else None,
        "adjacent_decided": float(np.mean(joined["adjacent"])),
        "matched_share": float(np.mean(~np.isnan(joined["matched"]))),
        "matched_ratings_mean": float(np.nanmean(joined["matched"])) if np.any(~np.isnan(joined["matched"])) else None,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--campaigns", type=int, default=2000)
    parser.add_argument("--systems", type=int, nargs="+", default=[4, 10, 20])
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--chunk", type=int, default=100, help="Campaigns simulated at once (memory).")
    parser.add_argument("--alpha", type=float, default=SEQUENTIAL_ALPHA)
    parser.add_argument("--margin", type=float, default=DEFAULT_TIE_MARGIN)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument(
        "--old-signal",
        type=int,
        default=0,
        metavar="CAMPAIGNS",
        help="Also run (b), the old signal, on this many campaigns per K (seconds per look).",
    )
    parser.add_argument(
        "--old-signal-instances",
        type=int,
        default=100,
        help="Pool of (b) (default the paper's 100: at 1,000 the dashboard does not estimate it).",
    )
    parser.add_argument(
        "--old-signal-permutations",
        type=int,
        default=None,
        help="Permutations of (b)'s clusters (default the dashboard's).",
    )
    parser.add_argument("--json", help="Also write the figures to this file.")
    args = parser.parse_args(argv)
    np.seterr(invalid="ignore", divide="ignore")
    components = fitted_components()
    print(
        f"crossed model: instance sd {components[0]:.3f}, system x instance sd {components[1]:.3f}, "
        f"noise sd {components[2]:.3f}, rater severity sd {RATER_SD} (pool of {RATER_POOL}); "
        f"N = {args.instances}, M = {RATERS_PER_ITEM}, alpha {args.alpha}, epsilon {args.margin}"
    )
    figures = {
        "components": components,
        "instances": args.instances,
        "alpha": args.alpha,
        "margin": args.margin,
        "cells": {},
    }
    rng = np.random.default_rng(args.seed)
    labels = {
        "a": "(a) fixed n (planner)",
        "b": f"(b) old signal, look every {OLD_SIGNAL_EVERY} ratings (N = {args.old_signal_instances})",
        "c": "(c) confidence sequences",
        "d": "(d) (c) + racing",
    }
    for k in args.systems:
        started = time.perf_counter()
        parts = {"a": [], "c": [], "d": []}
        done = 0
        while done < args.campaigns and args.campaigns > 0:
            size = min(args.chunk, args.campaigns - done)
            chunk = run_chunk(rng, size, k, args.instances, components, args.alpha, args.margin)
            for key in parts:
                parts[key].append(chunk[key])
            done += size
        cell = {key: summarise(value) for key, value in parts.items() if value}
        if args.old_signal:
            from core.defaults import STABILITY_PERMUTATIONS

            cell["b"] = old_signal(
                rng,
                args.old_signal,
                k,
                args.old_signal_instances,
                components,
                OLD_SIGNAL_EVERY,
                args.old_signal_permutations or STABILITY_PERMUTATIONS,
            )
        cell["seconds"] = round(time.perf_counter() - started, 1)
        figures["cells"][k] = cell
        print(f"\nK = {k}: {args.campaigns} campaigns ({cell['seconds']} s)")
        print(
            "| method | false-decision rate (CP 95% upper) | ratings at stop | settled | top decided | "
            "ratings to top (median) | tau >= 0.9 | ratings to tau >= 0.9 (median) | adjacent decided |"
        )
        for key in [key for key in ("a", "b", "c", "d") if key in cell]:
            s = cell[key]
            if key == "b":
                print(
                    f"| {labels[key]} | {s['false']}/{s['campaigns']} = {s['false_rate']:.4f} "
                    f"({s['false_upper']:.4f}) | "
                    f"{s['ratings_at_stop']:.1%} | {s['settled_share']:.1%} | - | - | - | - | - | - | - |"
                )
                continue
            print(
                f"| {labels[key]} | {s['false']}/{s['campaigns']} = {s['false_rate']:.4f} ({s['false_upper']:.4f}) | "
                f"{s['ratings_at_stop']:.1%} | {s['settled_share']:.1%} | {s['top_correct_share']:.1%} | "
                f"{_share(s['top_ratings_median'])} | {s['tau_share']:.1%} | {_share(s['tau_ratings_median'])} | "
                f"{s['adjacent_decided']:.1%} | {s['matched_share']:.1%} | {_share(s['matched_ratings_mean'])} |"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, default=float) + "\n")
    return figures


def _share(value):
    return "-" if value is None or value != value else f"{value:.1%}"


if __name__ == "__main__":
    main()
