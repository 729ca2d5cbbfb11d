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

import functools
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


def drawn_swaps(
    permutations: int, counts: ArrayLike, rng: np.random.Generator
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """The drawn instances and :func:`swap_signs`'s totals of their columns: the same draws from ``rng`` (it
    ends in the same state), without forming the undrawn instances' zero columns.

    A resample's totals are read from one table of 2 (ones among the masked byte) - c per copies c <= 8."""
    copies = np.asarray(counts, dtype=np.int64)
    drawn = np.flatnonzero(copies > 0)
    if np.all(copies == 1):
        return drawn, swap_signs(permutations, copies, rng)
    bits = rng.integers(0, 256, size=(permutations, len(copies)), dtype=np.uint8)
    kept = copies[drawn]
    offsets = np.minimum(kept, BIT_DRAW_MAX) * 256
    signs: NDArray[np.float64] = _SWAP_TOTALS[bits[:, drawn] + offsets[None, :]]
    many = np.flatnonzero(kept > BIT_DRAW_MAX)
    if len(many):
        heads = rng.binomial(kept[many][None, :], 0.5, size=(permutations, len(many)))
        signs[:, many] = 2.0 * heads - kept[many][None, :]
    return drawn, signs


BIT_DRAW_MAX = 8  # copies of an instance whose swaps are drawn as the bits of one random byte
_ONES_IN_BYTE = np.array([bin(value).count("1") for value in range(256)], dtype=np.uint8)
# [c * 256 + byte]: the swap total 2 (ones of byte's lowest c bits) - c of an instance drawn c <= 8 times
_SWAP_TOTALS = np.array(
    [2.0 * bin(byte & ((1 << c) - 1)).count("1") - c for c in range(BIT_DRAW_MAX + 1) for byte in range(256)]
)
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
        # (sum, count) statistics whose integer counts are the same in every system, instance by instance
        counts = self.matrix[:, 1 :: self.shape[2]] if self.shape[2] == 2 else None
        self.equal_denominators = bool(
            counts is not None
            and counts.size
            and np.all(counts == counts[:, :1])
            and np.all(counts == np.round(counts))
        )

    def swapped(self, signs: ArrayLike, drawn: NDArray[np.intp] | None = None) -> NDArray[np.float64]:
        """``signs @ matrix`` over the ``drawn`` instances only (the others' signs are 0): ``signs`` has one
        column per drawn instance (per instance if ``drawn`` is None)."""
        rows: NDArray[np.float64] = np.asarray(signs, float)
        bound = float(np.abs(rows).max(initial=0.0)) * self.column_bound
        if self.matrix32 is not None and bound < FLOAT32_EXACT:
            matrix32 = self.matrix32 if drawn is None else self.matrix32[drawn]
            return (rows.astype(np.float32) @ matrix32).astype(np.float64)
        return rows @ (self.matrix if drawn is None else self.matrix[drawn])


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
    if counts is None:
        return drawn_p_values(prepared, score, sign_rows, None, None)
    weights = np.asarray(counts, float)
    drawn = np.flatnonzero(weights > 0)
    return drawn_p_values(prepared, score, sign_rows[:, drawn], drawn, weights)


def drawn_p_values(
    prepared: Prepared,
    score: Score | None,
    signs: NDArray[np.float64],
    drawn: NDArray[np.intp] | None,
    weights: NDArray[np.float64] | None,
) -> NDArray[np.float64]:
    """:func:`pairwise_p_values` with the swaps of the ``drawn`` instances only (``signs`` has their columns;
    None: every instance, each once), as :func:`drawn_swaps` gives them.

    ``score`` None: the score is the ratio of the two statistics (:func:`ratio_scores`, formula (1) and the
    mean of segment scores), computed column by column on the permutations x pairs arrays with the same
    operations as the generic path, so the same floats, without building and scoring rows of statistics.
    """
    n_systems, n_instances, width = prepared.shape
    totals = ((np.ones(n_instances) if weights is None else weights) @ prepared.matrix).reshape(n_systems, width)
    swapped = prepared.swapped(signs, drawn).reshape(len(signs), n_systems, width)
    first, second = system_pairs(n_systems)
    half_sum = (totals[first] + totals[second]) / 2  # (pairs, k)
    if score is None:
        observed = ratio_scores(totals)
        delta = _ratio_deltas(prepared, swapped, half_sum, first, second)
    else:
        observed = np.asarray(score(totals), float)
        # statistic by statistic (k, permutations x 2 x pairs): the score functions read the kept totals column
        # by column, and contiguous columns take them half the time. The half differences (swapped i - swapped
        # j) / 2 of every pair, and their negatives, are one product with a matrix of +-1/2: two non-zero terms
        # per sum, so the same floats as the subtraction and halving
        by_statistic = np.ascontiguousarray(swapped.transpose(2, 0, 1)).reshape(-1, n_systems)
        kept = (by_statistic @ _half_differences(n_systems)).reshape(width, len(signs), 2, -1)
        kept += np.concatenate([half_sum, half_sum], axis=0).T.reshape(width, 1, 2, -1)
        scores = np.asarray(score(kept.reshape(width, -1).T), float).reshape(len(signs), 2, -1)
        delta = scores[:, 0] - scores[:, 1]
    return _p_matrix(delta, observed[first] - observed[second], n_systems, first, second)


def _ratio_deltas(
    prepared: Prepared,
    swapped: NDArray[np.float64],
    half_sum: NDArray[np.float64],
    first: NDArray[np.intp],
    second: NDArray[np.intp],
) -> NDArray[np.float64]:
    """score(kept by i) - score(kept by j) of every permutation and pair for the ratio score: the generic
    path's operations on the numerator and denominator columns apart (the same floats). Where every
    instance has the same denominator in every system (all ratings counted alike, no missing segment), the
    swapped denominators are exactly the half sums (integers: exact in any order) and are not formed."""
    numerator = swapped[:, :, 0]
    half_numerator = (numerator[:, first] - numerator[:, second]) / 2
    kept_i, kept_j = half_sum[None, :, 0] + half_numerator, half_sum[None, :, 0] - half_numerator
    if prepared.equal_denominators:
        denominator_i = denominator_j = np.broadcast_to(half_sum[:, 1], kept_i.shape)
    else:
        denominator = swapped[:, :, 1]
        half_denominator = (denominator[:, first] - denominator[:, second]) / 2
        denominator_i, denominator_j = half_sum[None, :, 1] + half_denominator, half_sum[None, :, 1] - half_denominator
    with np.errstate(invalid="ignore", divide="ignore"):
        score_i = np.where(denominator_i > 0, kept_i / np.where(denominator_i > 0, denominator_i, 1), np.nan)
        score_j = np.where(denominator_j > 0, kept_j / np.where(denominator_j > 0, denominator_j, 1), np.nan)
    result: NDArray[np.float64] = score_i - score_j
    return result


def _p_matrix(
    delta: NDArray[np.float64],
    target: NDArray[np.float64],
    n_systems: int,
    first: NDArray[np.intp],
    second: NDArray[np.intp],
) -> NDArray[np.float64]:
    """The share of permutations whose difference reaches the observed one (up to rounding), pair by pair."""
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


def ratio_scores(summed: NDArray[np.float64]) -> NDArray[np.float64]:
    """Sum over count of rows (sum, count); NaN where the count is not positive."""
    with np.errstate(invalid="ignore", divide="ignore"):
        result: NDArray[np.float64] = np.where(
            summed[:, 1] > 0, summed[:, 0] / np.where(summed[:, 1] > 0, summed[:, 1], 1), np.nan
        )
    return result


@functools.cache
def system_pairs(n_systems: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``np.triu_indices(n_systems, 1)``, made once per number of systems."""
    first, second = np.triu_indices(n_systems, 1)
    first.setflags(write=False)
    second.setflags(write=False)
    return first, second


@functools.cache
def _half_differences(n_systems: int) -> NDArray[np.float64]:
    """(systems, 2 x pairs): column q is +1/2 at the pair's first system and -1/2 at its second, column
    pairs + q the opposite; a row of swapped totals times it gives every pair's half difference, then its
    negative."""
    first, second = system_pairs(n_systems)
    pairs = np.arange(len(first))
    matrix = np.zeros((n_systems, 2 * len(first)))
    matrix[first, pairs], matrix[second, pairs] = 0.5, -0.5
    matrix[first, len(first) + pairs], matrix[second, len(first) + pairs] = -0.5, 0.5
    matrix.setflags(write=False)
    return matrix


def soft_pairwise_accuracy(human_p: NDArray[np.float64], metric_p: NDArray[np.float64]) -> float:
    """1 - mean |p_human - p_metric| over the system pairs where both are defined."""
    first, second = system_pairs(human_p.shape[0])
    difference = np.abs(human_p[first, second] - metric_p[first, second])
    difference = difference[np.isfinite(difference)]
    return float(1.0 - difference.mean()) if len(difference) else float("nan")
