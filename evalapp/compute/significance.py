"""Paired significance tests between systems over instances, and WMT-style clusters. No Django imports.

Test: a two-sided paired permutation (approximate randomisation) test on the per-instance
mean scores of two systems, over the instances both have ratings for. Under the null
hypothesis the two systems are exchangeable on each instance, so the sign of each
per-instance difference is flipped at random; the statistic is the mean difference, i.e. the
difference of the human scores. When 2**n <= the number of permutations asked for, all 2**n
sign patterns are enumerated and the p-value is exact; otherwise ``permutations`` random sign
patterns (seeded) give p = (hits + 1) / (permutations + 1). p-values of all system pairs are
adjusted together with Holm's step-down method (family-wise error rate ``alpha``).

Clusters, as the WMT human evaluations report ranks: systems sorted by human score, a new
cluster starts between positions k and k+1 exactly when every system ranked 1..k is
significantly better (Holm-adjusted p < alpha, higher mean) than every system ranked k+1..K.
Systems in one cluster are statistically tied.
"""
from dataclasses import dataclass
from itertools import combinations, product

import numpy as np

TEST_NAME = "paired permutation test over instances (two-sided, mean difference), Holm-corrected"
DEFAULT_PERMUTATIONS = 10000
DEFAULT_ALPHA = 0.05
# Relative tolerance when comparing permuted statistics with the observed one (float sums).
STAT_TOLERANCE = 1e-9
# Sign patterns are drawn in blocks of this many rows to bound memory for large N.
BLOCK_PERMUTATIONS = 2000


def sign_patterns(n_items, permutations, seed):
    """(patterns, exact): every +-1 pattern when 2**n_items <= permutations, else seeded random ones."""
    if n_items <= np.log2(max(permutations, 1)):
        return np.array(list(product((1.0, -1.0), repeat=n_items))).reshape(-1, n_items), True
    rng = np.random.default_rng(seed)
    return rng.choice((1.0, -1.0), size=(permutations, n_items)), False


def paired_permutation_pvalues(differences, permutations=DEFAULT_PERMUTATIONS, seed=0):
    """Two-sided p-values of mean(d) != 0 for each row of ``differences`` (NaN = instance not shared).

    Every row uses the same sign patterns (common random numbers); a NaN difference is set to 0,
    which leaves the statistic of the shared instances unchanged under every sign pattern.
    """
    differences = np.atleast_2d(np.asarray(differences, dtype=float))
    filled = np.nan_to_num(differences, nan=0.0)
    patterns, exact = sign_patterns(filled.shape[1], permutations, seed)
    observed = np.abs(filled.sum(axis=1))
    threshold = observed * (1 - STAT_TOLERANCE)
    hits = np.zeros(filled.shape[0])
    for start in range(0, len(patterns), BLOCK_PERMUTATIONS):
        permuted = np.abs(patterns[start:start + BLOCK_PERMUTATIONS] @ filled.T)
        hits += (permuted >= threshold).sum(axis=0)
    pvalues = hits / len(patterns) if exact else (hits + 1) / (len(patterns) + 1)
    pvalues[~np.isfinite(differences).any(axis=1)] = 1.0  # nothing shared: no evidence
    return np.minimum(pvalues, 1.0)


def holm(pvalues):
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

    def as_dict(self):
        return {"better": self.better, "worse": self.worse, "difference": self.difference,
                "p_value": self.p_value, "p_holm": self.p_holm, "significant": self.significant}


def compare_systems(systems, instance_means, permutations=DEFAULT_PERMUTATIONS, seed=0, alpha=DEFAULT_ALPHA):
    """All pairwise comparisons of ``systems`` (rows of the systems x instances ``instance_means``).

    Each pair is oriented so that ``better`` has the higher mean over the shared instances.
    """
    means = np.asarray(instance_means, dtype=float)
    pairs = list(combinations(range(len(systems)), 2))
    if not pairs:
        return []
    differences = np.array([means[a] - means[b] for a, b in pairs])
    pvalues = paired_permutation_pvalues(differences, permutations, seed)
    adjusted = holm(pvalues)
    result = []
    for (a, b), d, p, q in zip(pairs, differences, pvalues, adjusted):
        delta = float(np.nanmean(d)) if np.isfinite(d).any() else 0.0
        better, worse = (a, b) if delta >= 0 else (b, a)
        result.append(Comparison(systems[better], systems[worse], abs(delta), float(p), float(q),
                                 bool(q < alpha and delta != 0)))
    return result


def clusters(ordered_systems, comparisons):
    """Cluster numbers (1 = best) for ``ordered_systems`` (best first), by the rule in the module doc."""
    beats = {(c.better, c.worse) for c in comparisons if c.significant}
    numbers, current = [], 1
    for k, system in enumerate(ordered_systems):
        if k and all((upper, lower) in beats for upper in ordered_systems[:k] for lower in ordered_systems[k:]):
            current += 1
        numbers.append(current)
    return numbers
