"""Soft pairwise accuracy (Thompson et al. 2024, the WMT24 metrics task). No Django imports.

For every pair of systems (i, j), a one-sided paired permutation test over instances gives
the p-value that system i is better than system j: each instance's two outputs (their
per-segment sufficient statistics) are swapped between the systems with probability 1/2,
and p is the share of permutations whose score difference is at least the observed one.
This is done once with the human scores and once with the metric's; soft pairwise accuracy
is 1 minus the mean, over system pairs, of |p_human - p_metric|.

Scores are recomputed from summed statistics, so a corpus metric (BLEU, chrF) is a corpus
metric under permutation too, and the human score is formula (1), the sum of the ratings
over their number. For scores that are means over complete instances this is the test of
mt-metrics-eval's ``pce.compute_pairwise_p_values``, which permutes segment scores and
compares their sums (an equivalent statistic).

A bootstrap resample with instance counts c draws each copy's swap on its own: the swap
total of an instance drawn c times is 2 Binomial(c, 1/2) - c.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

Score = Callable[[NDArray[np.float64]], ArrayLike]  # summed statistics (n, k) to n scores

TOLERANCE = 1e-9  # relative: a permuted difference equal to the observed one up to rounding counts as reached


def swap_signs(permutations: int, counts: ArrayLike, rng: np.random.Generator) -> NDArray[np.float64]:
    """(permutations, instances) totals of +-1 swaps: +1 keeps an instance's outputs, -1 swaps them.

    An instance drawn c times totals 2 Binomial(c, 1/2) - c. Up to ``BIT_DRAW_MAX`` copies the
    binomial is the number of ones among c random bits (one random byte per entry, masked): the
    same distribution as NumPy's binomial, at a small part of its cost; more copies use the binomial.
    """
    copies = np.asarray(counts, dtype=np.int64)
    if np.all(copies == 1):
        return rng.integers(0, 2, size=(permutations, len(copies))).astype(np.float64) * 2.0 - 1.0
    bits = rng.integers(0, 256, size=(permutations, len(copies)), dtype=np.uint8)
    masks = ((1 << np.minimum(copies, BIT_DRAW_MAX)) - 1).astype(np.uint8)
    heads = _ONES_IN_BYTE[bits & masks[None, :]].astype(np.float64)
    many = np.flatnonzero(copies > BIT_DRAW_MAX)
    if len(many):
        heads[:, many] = rng.binomial(copies[many][None, :], 0.5, size=(permutations, len(many)))
    result: NDArray[np.float64] = 2.0 * heads - copies[None, :]
    return result


BIT_DRAW_MAX = 8  # copies of an instance whose swaps are drawn as the bits of one random byte
_ONES_IN_BYTE = np.array([bin(value).count("1") for value in range(256)], dtype=np.uint8)
FLOAT32_EXACT = 2**24  # integers below this are exact in float32, so are their sums


class Prepared:
    """Statistics (systems, instances, k) laid out once as an (instances, systems * k) matrix,
    so each permutation batch is one matrix product.

    Integer statistics (n-gram counts, rating sums and counts) whose every swapped total stays
    below 2**24 are also kept in float32: their products are then exact in float32 and twice as
    fast. Fractional statistics (segment scores) stay in float64.
    """

    def __init__(self, stats: ArrayLike) -> None:
        array = np.asarray(stats, float)
        self.shape: tuple[int, int, int] = (array.shape[0], array.shape[1], array.shape[2])
        self.matrix: NDArray[np.float64] = np.ascontiguousarray(array.transpose(1, 0, 2).reshape(array.shape[1], -1))
        self.integral = bool(np.all(self.matrix == np.round(self.matrix)))
        self.column_bound = float(np.abs(self.matrix).sum(axis=0).max()) if self.matrix.size else 0.0
        self.matrix32: NDArray[np.float32] | None = self.matrix.astype(np.float32) if self.integral else None

    def swapped(self, signs: ArrayLike, drawn: NDArray[np.intp] | None = None) -> NDArray[np.float64]:
        """``signs @ matrix`` over the ``drawn`` instances only (the others' signs are 0)."""
        rows: NDArray[np.float64] = np.asarray(signs, float)
        matrix = self.matrix
        if drawn is not None:
            rows, matrix = rows[:, drawn], matrix[drawn]
        bound = float(np.abs(rows).max(initial=0.0)) * self.column_bound
        if self.matrix32 is not None and bound < FLOAT32_EXACT:
            matrix32 = self.matrix32 if drawn is None else self.matrix32[drawn]
            return (rows.astype(np.float32) @ matrix32).astype(np.float64)
        return rows @ matrix


def pairwise_p_values(
    stats: ArrayLike | Prepared, score: Score, signs: ArrayLike, counts: ArrayLike | None = None
) -> NDArray[np.float64]:
    """(systems, systems) matrix; entry [i, j] (i < j) is p(system i better than system j), NaN elsewhere.

    ``stats`` (systems, instances, k) or :class:`Prepared`; ``score`` maps summed statistics (n, k) to n scores and
    must accept many rows at once; ``signs`` from :func:`swap_signs`; ``counts`` weight the
    instances (a bootstrap resample; None = each once).
    """
    prepared = stats if isinstance(stats, Prepared) else Prepared(stats)
    sign_rows = np.asarray(signs, float)
    n_systems, n_instances, width = prepared.shape
    weights = np.ones(n_instances) if counts is None else np.asarray(counts, float)
    totals = (weights @ prepared.matrix).reshape(n_systems, width)  # (systems, k)
    observed = np.asarray(score(totals), float)
    drawn = None if counts is None else np.flatnonzero(weights > 0)
    swapped = prepared.swapped(sign_rows, drawn).reshape(len(sign_rows), n_systems, width)
    first, second = np.triu_indices(n_systems, 1)
    half_sum = (totals[first] + totals[second]) / 2  # (pairs, k)
    half_diff = (swapped[:, first] - swapped[:, second]) / 2  # (permutations, pairs, k)
    keep_i = (half_sum[None] + half_diff).reshape(-1, width)
    keep_j = (half_sum[None] - half_diff).reshape(-1, width)
    delta = (np.asarray(score(keep_i), float) - np.asarray(score(keep_j), float)).reshape(len(sign_rows), -1)
    target = observed[first] - observed[second]
    slack = TOLERANCE * np.maximum(1.0, np.abs(target))
    with np.errstate(invalid="ignore"):
        reached = delta >= (target - slack)[None, :]
        defined = np.isfinite(delta)
    p = np.full((n_systems, n_systems), np.nan)
    counts_defined = defined.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p[first, second] = np.where(
            np.isfinite(target) & (counts_defined > 0),
            (reached & defined).sum(axis=0) / np.maximum(counts_defined, 1),
            np.nan,
        )
    return p


def soft_pairwise_accuracy(human_p: NDArray[np.float64], metric_p: NDArray[np.float64]) -> float:
    """1 - mean |p_human - p_metric| over the system pairs where both are defined."""
    first, second = np.triu_indices(human_p.shape[0], 1)
    difference = np.abs(human_p[first, second] - metric_p[first, second])
    difference = difference[np.isfinite(difference)]
    return float(1.0 - difference.mean()) if len(difference) else float("nan")
