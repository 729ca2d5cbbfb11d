"""Paired significance tests between systems over instances, and WMT-style clusters. No Django imports.

Test: a two-sided paired permutation (approximate randomisation) test on the per-instance
mean scores of two systems, over the instances both have ratings for. Under the null
hypothesis the two systems are exchangeable on each instance, so the sign of each
per-instance difference is flipped at random; the statistic is the mean difference, i.e. the
difference of the human scores. When 2**n <= the number of permutations asked for, all 2**n
sign patterns are enumerated and the p-value is exact; otherwise ``permutations`` random sign
patterns (seeded) give p = (hits + 1) / (permutations + 1). p-values of all system pairs are
adjusted together with Holm's step-down method (family-wise error rate ``alpha``).

All K*(K-1)/2 pairs are tested, because Holm's correction needs the whole family and the
cluster rule reads every pair across a boundary. The cost stays linear in K: a pair's permuted
statistic is ``patterns @ (x_a - x_b) = patterns @ x_a - patterns @ x_b``, so for systems rated
on every instance the patterns multiply the K systems once (permutations x K) and each pair is
a subtraction, done one system against all later ones at a time (memory: permutations x K
floats, 16 MB for 10,000 x 200). The subtraction rounds differently from the direct product,
so it is used only where its rounding error bound is far inside the tolerance band around the
observed statistic (every pair but near-exact ties, whose statistic is itself rounding noise);
those pairs, and pairs with a system missing instances, multiply the difference directly (in
blocks of pairs). The p-values are the direct product's (checked against it in the tests).

Clusters, as the WMT human evaluations report ranks: systems sorted by human score, a new
cluster starts between positions k and k+1 exactly when every system ranked 1..k is
significantly better (Holm-adjusted p < alpha, higher mean) than every system ranked k+1..K.
Systems in one cluster are statistically tied.

Table 6 no longer uses the permutation test (it ignores who rated; the ranking-stability signal and the
study planner's simulation still do): its comparisons come from the rater-aware t tests of
:mod:`.rater_uncertainty`, and its clusters from one of two named rules at the end of this module,
``holm`` (the rule above, on two-sided p = 2 x one-sided) and ``wmt`` (mt-metrics-eval's AssignRanks on
one-sided p-values, :func:`assign_ranks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, product
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from core.defaults import DEFAULT_PERMUTATIONS, DEFAULT_SEED, SIGNIFICANCE_ALPHA

TEST_NAME = "paired permutation test over instances (two-sided, mean difference), Holm-corrected"
# Relative tolerance when comparing permuted statistics with the observed one (float sums).
STAT_TOLERANCE = 1e-9
# Safety factor on the textbook bound n * eps * sum|x| of a dot product's rounding error.
ROUNDING_SAFETY = 4.0
# Sign patterns are drawn in blocks of this many rows to bound memory for large N.
BLOCK_PERMUTATIONS = 2000
# Pairs tested by the direct product are multiplied in blocks of this many (memory bound).
BLOCK_PAIRS = 512


def sign_patterns(n_items: int, permutations: int, seed: int | None) -> tuple[NDArray[np.float64], bool]:
    """(patterns, exact): every +-1 pattern when 2**n_items <= permutations, else seeded random ones."""
    if n_items <= np.log2(max(permutations, 1)):
        return np.array(list(product((1.0, -1.0), repeat=n_items))).reshape(-1, n_items), True
    rng = np.random.default_rng(seed)
    return rng.choice((1.0, -1.0), size=(permutations, n_items)), False


def paired_permutation_pvalues(
    differences: ArrayLike, permutations: int = DEFAULT_PERMUTATIONS, seed: int | None = DEFAULT_SEED
) -> NDArray[np.float64]:
    """Two-sided p-values of mean(d) != 0 for each row of ``differences`` (NaN = instance not shared).

    Every row uses the same sign patterns (common random numbers); a NaN difference is set to 0,
    which leaves the statistic of the shared instances unchanged under every sign pattern.
    """
    differences = np.atleast_2d(np.asarray(differences, dtype=float))
    filled = np.nan_to_num(differences, nan=0.0)
    patterns, exact = sign_patterns(filled.shape[1], permutations, seed)
    hits = _hits(patterns, filled, np.abs(filled.sum(axis=1)) * (1 - STAT_TOLERANCE))
    pvalues = hits / len(patterns) if exact else (hits + 1) / (len(patterns) + 1)
    pvalues[~np.isfinite(differences).any(axis=1)] = 1.0  # nothing shared: no evidence
    return np.minimum(pvalues, 1.0)


def holm(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Holm step-down adjusted p-values (same order as given)."""
    pvalues = np.asarray(pvalues, dtype=float)
    m = len(pvalues)
    order = np.argsort(pvalues, kind="stable")
    adjusted = np.maximum.accumulate(pvalues[order] * (m - np.arange(m)))
    result = np.empty(m)
    result[order] = np.minimum(adjusted, 1.0)
    return result


@dataclass(frozen=True)
class Comparison:
    better: str
    worse: str
    difference: float
    p_value: float
    p_holm: float
    significant: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "better": self.better,
            "worse": self.worse,
            "difference": self.difference,
            "p_value": self.p_value,
            "p_holm": self.p_holm,
            "significant": self.significant,
        }


def compare_systems(
    systems: Sequence[str],
    instance_means: ArrayLike,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int | None = DEFAULT_SEED,
    alpha: float = SIGNIFICANCE_ALPHA,
) -> list[Comparison]:
    """All pairwise comparisons of ``systems`` (rows of the systems x instances ``instance_means``).

    Each pair is oriented so that ``better`` has the higher mean over the shared instances.
    Gives the p-values :func:`paired_permutation_pvalues` gives on the pairs' differences.
    """
    means = np.atleast_2d(np.asarray(instance_means, dtype=float))
    pairs = list(combinations(range(len(systems)), 2))
    if not pairs:
        return []
    deltas, pvalues = _pairwise_tests(means, permutations, seed)
    adjusted = holm(pvalues)
    result = []
    for (a, b), delta, p, q in zip(pairs, deltas.tolist(), pvalues.tolist(), adjusted.tolist()):
        better, worse = (a, b) if delta >= 0 else (b, a)
        result.append(Comparison(systems[better], systems[worse], abs(delta), p, q, bool(q < alpha and delta != 0)))
    return result


def _pairwise_tests(
    means: NDArray[np.float64], permutations: int, seed: int | None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(mean difference over shared instances, p-value) of every pair a < b, in ``combinations`` order."""
    n_systems, n_items = means.shape
    patterns, exact = sign_patterns(n_items, permutations, seed)
    complete = np.asarray(np.isfinite(means).all(axis=1), dtype=bool)
    filled_means = np.where(complete[:, None], means, 0.0)
    projected = patterns @ filled_means.T  # (patterns x systems)
    error_scale = ROUNDING_SAFETY * n_items * np.finfo(float).eps * np.abs(filled_means).sum(axis=1)
    delta_blocks: list[NDArray[np.float64]] = []
    hit_blocks: list[NDArray[np.float64]] = []
    threshold_blocks: list[NDArray[np.float64]] = []
    unshared: list[NDArray[np.bool_]] = []
    direct_pairs: list[tuple[int, int]] = []
    for a in range(n_systems - 1):
        differences = means[a] - means[a + 1 :]
        shared = np.isfinite(differences)
        filled = np.where(shared, differences, 0.0)
        n_shared = shared.sum(axis=1)
        unshared.append(n_shared == 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            delta_blocks.append(np.where(n_shared > 0, filled.sum(axis=1) / n_shared, 0.0))
        observed = np.abs(filled.sum(axis=1))
        threshold = observed * (1 - STAT_TOLERANCE)
        safe = observed * STAT_TOLERANCE > error_scale[a] + error_scale[a + 1 :]
        direct = ~(complete[a] & complete[a + 1 :] & safe)
        permuted = np.subtract(projected[:, a + 1 :], projected[:, [a]])  # |x - y| == |y - x| exactly
        np.abs(permuted, out=permuted)
        hits_a = np.count_nonzero(permuted >= threshold, axis=0).astype(float)
        hits_a[direct] = np.nan  # the direct product decides these below
        direct_pairs += [(a, a + 1 + k) for k in np.flatnonzero(direct).tolist()]
        hit_blocks.append(hits_a)
        threshold_blocks.append(threshold)
    hits, thresholds = np.concatenate(hit_blocks), np.concatenate(threshold_blocks)
    pending = np.flatnonzero(np.isnan(hits))
    for start in range(0, len(pending), BLOCK_PAIRS):
        firsts, seconds = np.array(direct_pairs[start : start + BLOCK_PAIRS]).T
        block = pending[start : start + BLOCK_PAIRS]
        hits[block] = _hits(patterns, np.nan_to_num(means[firsts] - means[seconds], nan=0.0), thresholds[block])
    deltas = np.concatenate(delta_blocks)
    pvalues = hits / len(patterns) if exact else (hits + 1) / (len(patterns) + 1)
    pvalues[np.concatenate(unshared)] = 1.0  # nothing shared: no evidence
    return deltas, np.minimum(pvalues, 1.0)


def _hits(
    patterns: NDArray[np.float64], filled: NDArray[np.float64], threshold: NDArray[np.float64]
) -> NDArray[np.float64]:
    """How many sign patterns give a statistic at least ``threshold`` for each row of ``filled``."""
    hits = np.zeros(filled.shape[0])
    for start in range(0, len(patterns), BLOCK_PERMUTATIONS):
        permuted = np.abs(patterns[start : start + BLOCK_PERMUTATIONS] @ filled.T)
        hits += (permuted >= threshold).sum(axis=0)
    return hits


def clusters(ordered_systems: Sequence[str], comparisons: Sequence[Comparison | RuledComparison]) -> list[int]:
    """Cluster numbers (1 = best) for ``ordered_systems`` (best first), by the rule in the module doc.

    A boundary before position k needs every (upper, lower) pair across it significant: a matrix of the
    significant pairs read block by block (hundreds of systems: a million pairs looked up otherwise)."""
    position = {name: k for k, name in enumerate(ordered_systems)}
    n = len(ordered_systems)
    beats = np.zeros((n, n), dtype=bool)
    for c in comparisons:
        if c.significant and c.better in position and c.worse in position:
            beats[position[c.better], position[c.worse]] = True
    numbers, current = [], 1
    for k in range(n):
        if k and bool(beats[:k, k:].all()):
            current += 1
        numbers.append(current)
    return numbers


# --- the clustering rules of Table 6 (rater-aware tests, :mod:`.rater_uncertainty`) -----------------------

RULE_TEXT = {
    "holm": (
        "holm: systems in decreasing order of formula (1); a new cluster starts between positions k and k+1 "
        "exactly when every system above is significantly better than every system below, each pair's "
        "two-sided p (2 x the one-sided p_value) Holm-adjusted over all pairs and compared with alpha"
    ),
    "wmt": (
        "wmt: mt-metrics-eval's AssignRanks (WMT): systems in decreasing order of formula (1); a new cluster "
        "starts at a system when any system of the current cluster beats it with a one-sided p_value <= alpha, "
        "no multiplicity correction"
    ),
}


@dataclass(frozen=True)
class RuledComparison:
    """One pair of systems under a clustering rule. ``better`` comes first in formula (1) order;
    ``difference`` is the displayed difference of their formula (1) means (better - worse);
    ``p_value`` the one-sided p that ``better`` beats ``worse``; ``p_holm`` the Holm-adjusted two-sided p."""

    better: str
    worse: str
    difference: float
    standard_error: float
    df: float
    p_value: float
    p_holm: float
    significant: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "better": self.better,
            "worse": self.worse,
            "difference": self.difference,
            "standard_error": self.standard_error,
            "df": self.df,
            "p_value": self.p_value,
            "p_holm": self.p_holm,
            "significant": self.significant,
        }


def assign_ranks(sig_matrix: ArrayLike, alpha: float) -> list[int]:
    """mt-metrics-eval's ``AssignRanks`` (``mt_metrics_eval/data.py``), restated line for line.

    ``sig_matrix[i, j]`` (i < j, rows in decreasing order of the score) is the p-value for the null
    hypothesis that system j is at least as good as system i; a new rank starts at i when any system
    from the current rank's first one up to i - 1 beats i with p <= alpha.
    """
    sig_matrix = np.asarray(sig_matrix, dtype=float)
    assert sig_matrix.ndim == 2
    assert sig_matrix.shape[0] == sig_matrix.shape[1]
    n = sig_matrix.shape[0]
    ranks = [0] * n
    current_rank = 1
    start_index = 0
    for i in range(n):
        if any(sig_matrix[:, i][start_index:i] <= alpha):
            current_rank += 1
            start_index = i
        ranks[i] = current_rank
    return ranks


def ruled_comparisons(
    ordered: Sequence[str],
    differences: NDArray[np.float64],
    errors: NDArray[np.float64],
    dfs: NDArray[np.float64],
    one_sided: NDArray[np.float64],
    alpha: float,
    rule: str,
) -> list[RuledComparison]:
    """:class:`RuledComparison` of every pair (a, b), a < b in ``ordered`` (best first), with its significance
    under ``rule``; the arrays are indexed like ``combinations(range(len(ordered)), 2)``."""
    if rule not in RULE_TEXT:
        raise ValueError(f"unknown clustering rule {rule!r}; choose one of {', '.join(RULE_TEXT)}")
    pairs = list(combinations(range(len(ordered)), 2))
    one_sided = np.asarray(one_sided, dtype=float)
    adjusted = holm(np.minimum(1.0, 2.0 * one_sided)) if pairs else np.empty(0)
    result = []
    for index, (a, b) in enumerate(pairs):
        significant = (adjusted[index] < alpha) if rule == "holm" else (one_sided[index] <= alpha)
        result.append(
            RuledComparison(
                ordered[a],
                ordered[b],
                float(differences[index]),
                float(errors[index]),
                float(dfs[index]),
                float(one_sided[index]),
                float(adjusted[index]),
                bool(significant and differences[index] > 0),
            )
        )
    return result


def ruled_clusters(
    ordered: Sequence[str], comparisons: Sequence[RuledComparison], alpha: float, rule: str
) -> list[int]:
    """Cluster numbers (1 = best) of ``ordered`` under ``rule`` (see :data:`RULE_TEXT`)."""
    if rule == "wmt":
        n = len(ordered)
        sig_matrix = np.ones((n, n))
        position = {name: k for k, name in enumerate(ordered)}
        for comparison in comparisons:
            sig_matrix[position[comparison.better], position[comparison.worse]] = comparison.p_value
        return assign_ranks(sig_matrix, alpha)
    return clusters(ordered, comparisons)
