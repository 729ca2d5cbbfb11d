"""Correlation coefficients and significance tests of the metric study (protocol.md#correlations). No Django imports.

Every function takes plain sequences and returns plain floats or dicts. A coefficient that
is undefined (a constant vector, too few points) is NaN, computed without calling SciPy on
the degenerate input, so no ``ConstantInputWarning`` is raised.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse, stats

from core.defaults import CONFIDENCE_LEVEL, METRIC_STUDY_PERMUTATIONS

MIN_POINTS = 2  # below this no coefficient is defined
MIN_POINTS_FISHER = 4  # the Fisher-z standard error is 1 / sqrt(n - 3)
PAIRWISE_KENDALL_MAX_N = 64  # up to this many points Kendall's tau is computed from all pairs in NumPy
SWAP_BLOCK = 32  # permutation rows turned into a float matrix at a time (memory: 32 x points floats, in the cache)
KENDALL_LEVELS_MAX = 256  # distinct human scores up to which the permutation test's Kendall is counted per level
KENDALL_ROUNDING_MARGIN = 1e-9  # rows whose |delta| is this close to the threshold are computed directly
ROUNDING_SAFETY = 4.0  # factor on the n * eps * sum|x| bound of a sum's rounding error
NAN = float("nan")
FloatArray = NDArray[np.float64]
Figure = dict[str, Any]  # a coefficient with its p-value, interval and counts, as the report prints it
COEFFICIENTS = ("pearson", "spearman", "kendall_b", "kendall_c")
SEGMENT_COEFFICIENTS = ("pearson", "spearman", "kendall_b")


def _as_pair(x: ArrayLike, y: ArrayLike) -> tuple[FloatArray, FloatArray]:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"expected two vectors of the same length, got shapes {x.shape} and {y.shape}")
    return x, y


def is_degenerate(x: ArrayLike, y: ArrayLike) -> bool:
    """True when no correlation is defined: too few points, a NaN, or a constant vector."""
    x, y = _as_pair(x, y)
    if len(x) < MIN_POINTS or not (np.isfinite(x).all() and np.isfinite(y).all()):
        return True
    return bool(np.ptp(x) == 0 or np.ptp(y) == 0)


def fisher_interval(r: float, n: int, confidence: float = CONFIDENCE_LEVEL) -> list[float]:
    """Confidence interval of Pearson's r through Fisher's z = atanh(r), standard error 1/sqrt(n-3)."""
    if not math.isfinite(r) or n < MIN_POINTS_FISHER:
        return [NAN, NAN]
    if abs(r) >= 1:
        return [r, r]
    half = stats.norm.ppf(0.5 + confidence / 2) / math.sqrt(n - 3)
    z = math.atanh(r)
    return [math.tanh(z - half), math.tanh(z + half)]


def pearson(x: ArrayLike, y: ArrayLike, confidence: float = CONFIDENCE_LEVEL) -> Figure:
    """Pearson's r, its two-sided p-value (scipy.stats.pearsonr) and the Fisher-z interval."""
    x, y = _as_pair(x, y)
    if is_degenerate(x, y):
        return {"r": NAN, "p": NAN, "ci": [NAN, NAN], "n": len(x)}
    result = stats.pearsonr(x, y)
    r, p = float(result.statistic), float(result.pvalue)
    return {"r": r, "p": p, "ci": fisher_interval(r, len(x), confidence), "n": len(x)}


def spearman(x: ArrayLike, y: ArrayLike) -> Figure:
    """Spearman's rho and its two-sided p-value (scipy.stats.spearmanr)."""
    x, y = _as_pair(x, y)
    if is_degenerate(x, y):
        return {"r": NAN, "p": NAN, "n": len(x)}
    result = stats.spearmanr(x, y)
    return {"r": float(result.statistic), "p": float(result.pvalue), "n": len(x)}


def kendall(x: ArrayLike, y: ArrayLike, variant: str = "b") -> Figure:
    """Kendall's tau-b (ties corrected) or tau-c (Stuart's, for rectangular tables), scipy.stats.kendalltau."""
    x, y = _as_pair(x, y)
    if is_degenerate(x, y):
        return {"r": NAN, "p": NAN, "n": len(x)}
    result = stats.kendalltau(x, y, variant=variant)
    return {"r": float(result.statistic), "p": float(result.pvalue), "n": len(x)}


def coefficient(name: str, x: ArrayLike, y: ArrayLike) -> Figure:
    """One coefficient by its report name: pearson, spearman, kendall_b or kendall_c."""
    if name == "pearson":
        return pearson(x, y)
    if name == "spearman":
        return spearman(x, y)
    if name in ("kendall_b", "kendall_c"):
        return kendall(x, y, variant=name[-1])
    raise ValueError(f"unknown correlation {name!r}; expected one of {', '.join(COEFFICIENTS)}")


def coefficient_value(name: str, x: ArrayLike, y: ArrayLike) -> float:
    """Only the coefficient (no p-value); what bootstrap and permutation loops need."""
    x, y = _as_pair(x, y)
    if is_degenerate(x, y):
        return NAN
    if name == "pearson":
        return float(np.corrcoef(x, y)[0, 1])
    if name == "spearman":
        return float(np.corrcoef(stats.rankdata(x), stats.rankdata(y))[0, 1])
    if name in ("kendall_b", "kendall_c") and len(x) <= PAIRWISE_KENDALL_MAX_N:
        return _pairwise_kendall(x, y, name[-1])
    return float(coefficient(name, x, y)["r"])


def _pairwise_kendall(x: FloatArray, y: FloatArray, variant: str) -> float:
    """Kendall's tau-b or tau-c from all pairs at once, as scipy.stats.kendalltau defines them.

    tau-b = S / sqrt((n0 - ties_x)(n0 - ties_y)), tau-c = 2 S / (n² (m - 1) / m), with S the
    concordant minus discordant pairs, n0 = n(n-1)/2 and m the fewer distinct values of x or y.
    For a few dozen points this avoids SciPy's per-call overhead in resampling loops.
    """
    upper = np.triu_indices(len(x), k=1)
    dx = np.sign(x[:, None] - x[None, :])[upper]
    dy = np.sign(y[:, None] - y[None, :])[upper]
    s = float(np.sum(dx * dy))
    if variant == "c":
        m = min(len(np.unique(x)), len(np.unique(y)))
        return 2 * s / (len(x) ** 2 * (m - 1) / m)
    return s / math.sqrt(float(np.count_nonzero(dx)) * float(np.count_nonzero(dy)))


def grouped(name: str, metric: ArrayLike, human: ArrayLike, groups: ArrayLike) -> Figure:
    """Segment-level correlation grouped by instance.

    The coefficient is computed across the systems' outputs of each instance separately and
    the plain arithmetic mean of the defined per-instance values is returned (instances
    where it is undefined, e.g. all systems got the same human score, are left out and
    counted in ``groups_undefined``). No p-value: the per-instance values are not independent
    tests of one hypothesis.
    """
    values = per_group_values(name, metric, human, groups)
    defined = values[np.isfinite(values)]
    return {
        "r": float(defined.mean()) if len(defined) else NAN,
        "p": None,
        "n": int(np.size(metric)),
        "groups_used": int(len(defined)),
        "groups_undefined": int(len(values) - len(defined)),
    }


def per_group_values(name: str, metric: ArrayLike, human: ArrayLike, groups: ArrayLike) -> FloatArray:
    """The coefficient within each group (in order of first appearance); NaN where undefined.

    Groups of one size are correlated together, a matrix row per group (:func:`rowwise_coefficient`).
    """
    metric, human = _as_pair(metric, human)
    values = np.full(len(np.unique(groups)), NAN)
    for slots, members in _groups_by_size(groups):
        if members.shape[1] < MIN_POINTS or not (np.isfinite(metric).all() and np.isfinite(human).all()):
            values[slots] = [coefficient_value(name, metric[row], human[row]) for row in members]
        else:
            values[slots] = rowwise_coefficient(name, metric[members], human[members])
    return values


def _groups_by_size(groups: ArrayLike) -> list[tuple[NDArray[np.int64], NDArray[np.intp]]]:
    """[(slots, members)]: for each group size, the groups' slots (order of first appearance) and a
    (groups, size) matrix of their positions, each row in the positions' order."""
    groups = np.asarray(groups)
    _, first, inverse, sizes = np.unique(groups, return_index=True, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    slot_of = np.empty(len(first), dtype=np.int64)
    slot_of[np.argsort(first, kind="stable")] = np.arange(len(first))
    order = np.argsort(inverse, kind="stable")  # positions grouped, each group in position order
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    found = []
    for size in np.unique(sizes):
        chosen = np.flatnonzero(sizes == size)
        members = order[starts[chosen][:, None] + np.arange(size)[None, :]]
        found.append((slot_of[chosen], members))
    return found


def wmt_pair_counts(metric: ArrayLike, human: ArrayLike, groups: ArrayLike) -> NDArray[np.int64]:
    """Per group: (concordant, discordant) pairs for the WMT Kendall-like tau.

    Only pairs of outputs for the same instance whose human scores differ are counted.
    A pair is concordant when the metric orders it as the humans do; a metric tie counts as
    discordant (WMT 2018-2019 DARR convention: a metric gets no credit for a tie).
    """
    metric, human = _as_pair(metric, human)
    counts = np.zeros((len(np.unique(groups)), 2), dtype=np.int64)
    for slots, members in _groups_by_size(groups):
        m, h = metric[members], human[members]
        human_diff = np.sign(h[:, :, None] - h[:, None, :])
        metric_diff = np.sign(m[:, :, None] - m[:, None, :])
        upper = np.triu(np.ones(human_diff.shape[1:], dtype=bool), k=1)[None] & (human_diff != 0)
        agree = ((human_diff == metric_diff) & upper).sum(axis=(1, 2))
        counts[slots, 0] = agree
        counts[slots, 1] = upper.sum(axis=(1, 2)) - agree
    return counts


def wmt_kendall_like(metric: ArrayLike, human: ArrayLike, groups: ArrayLike) -> Figure:
    """WMT Kendall-like tau = (concordant - discordant) / (concordant + discordant); see :func:`wmt_pair_counts`."""
    concordant, discordant = wmt_pair_counts(metric, human, groups).sum(axis=0)
    return {
        "r": tau_from_counts(concordant, discordant),
        "p": None,
        "n": int(np.size(metric)),
        "concordant": int(concordant),
        "discordant": int(discordant),
    }


def tau_from_counts(concordant: int | np.integer[Any], discordant: int | np.integer[Any]) -> float:
    pairs = concordant + discordant
    return float((concordant - discordant) / pairs) if pairs else NAN


def williams_test(r12: float, r13: float, r23: float, n: int) -> Figure:
    """Williams' test (Williams 1959) for r12 > r13 when both share variable 1 (the human scores).

    In the formulation of Graham & Baldwin (2014), with |R| = 1 - r12² - r13² - r23² + 2 r12 r13 r23:

        t(n - 3) = (r12 - r13) sqrt((n - 1)(1 + r23))
                   / sqrt(2 (n - 1)/(n - 3) |R| + ((r12 + r13)/2)² (1 - r23)³)

    Returns t, the degrees of freedom and the one-sided p-value of H1: r12 > r13.
    """
    if n < MIN_POINTS_FISHER or not all(math.isfinite(v) for v in (r12, r13, r23)):
        return {"t": NAN, "df": max(n - 3, 0), "p": NAN}
    determinant = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    denominator = 2 * (n - 1) / (n - 3) * determinant + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3
    if denominator <= 0:
        return {"t": NAN, "df": n - 3, "p": NAN}
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(denominator)
    return {"t": t, "df": n - 3, "p": float(stats.t.sf(t, n - 3))}


def standardize(values: ArrayLike) -> FloatArray:
    """z-scores, so that two metrics on different scales can be swapped in a permutation test."""
    array = np.asarray(values, dtype=float)
    spread = array.std()
    centred: FloatArray = array - array.mean()
    return centred / spread if spread > 0 else centred


def paired_permutation_test(
    metric_a: ArrayLike,
    metric_b: ArrayLike,
    human: ArrayLike,
    name: str = "pearson",
    resamples: int = METRIC_STUDY_PERMUTATIONS,
    rng: np.random.Generator | None = None,
) -> Figure:
    """Paired permutation test of corr(A, human) - corr(B, human) (Deutsch et al. 2021, PERM-BOTH style).

    Both metrics are standardised; in each permutation every unit (a system, or a segment)
    has its A and B scores swapped with probability 1/2. The two-sided p-value is
    (1 + #{|delta*| >= |delta|}) / (1 + resamples).
    """
    a, b = _as_pair(metric_a, metric_b)
    _, human = _as_pair(a, human)
    observed = coefficient_value(name, a, human) - coefficient_value(name, b, human)
    if not math.isfinite(observed):
        return {"delta": NAN, "p": NAN, "resamples": resamples}
    rng = rng if rng is not None else np.random.default_rng()
    za, zb = standardize(a), standardize(b)
    swaps = coin_flips(rng, resamples, len(a))
    tolerance = 1e-12 * max(1.0, abs(observed))
    if name == "pearson":
        deltas = _swapped_pearson_deltas(za, zb, human, swaps, abs(observed) - tolerance)
    elif name == "kendall_b" and len(a) <= PAIRWISE_KENDALL_MAX_N:
        deltas = rowwise_kendall(np.where(swaps, zb, za), human) - rowwise_kendall(np.where(swaps, za, zb), human)
    elif name == "kendall_b" and len(np.unique(human)) <= KENDALL_LEVELS_MAX:
        deltas = _swapped_kendall_deltas(za, zb, human, swaps, abs(observed) - tolerance)
    else:
        left, right = np.where(swaps, zb, za), np.where(swaps, za, zb)
        deltas = np.array(
            [
                coefficient_value(name, left[i], human) - coefficient_value(name, right[i], human)
                for i in range(resamples)
            ]
        )
    extreme = np.count_nonzero(np.abs(deltas) >= abs(observed) - tolerance)
    return {"delta": float(observed), "p": float((1 + extreme) / (1 + resamples)), "resamples": resamples}


def coin_flips(rng: np.random.Generator, rows: int, columns: int) -> NDArray[np.bool_]:
    """A (rows, columns) array of independent fair coin flips: the bits of ``rng``'s random bytes.

    Each bit of a generator's output is a fair coin independent of the others, so a 64-bit output
    gives 64 flips; drawing a double per flip and comparing it with 1/2 (as this did until the
    third round of issue 22) spent a whole output on each, 17 million outputs per segment-level test
    at 17 x 1,000. The p-values for a given seed are therefore other Monte Carlo draws than before,
    with the same distribution (``tests/metrics/test_permutation_flips.py``; the simulation's table:
    ``bench/permutation_flips_calibration.py``, docs/benchmarks.md).
    """
    count = rows * columns
    bits = np.unpackbits(np.frombuffer(rng.bytes(-(-count // 8)), dtype=np.uint8), count=count)
    return bits.reshape(rows, columns).view(np.bool_)


def _swapped_pearson_deltas(
    za: FloatArray, zb: FloatArray, human: FloatArray, swaps: NDArray[np.bool_], threshold: float
) -> FloatArray:
    """corr(left, human) - corr(right, human) for every row of ``swaps``, without building the rows.

    A swapped row is ``za + s (zb - za)`` (s = 1 where swapped), so its sum, sum of squares and
    product with the centred human scores are the unswapped ones plus one matrix-vector
    product each; the right row is what the left leaves. The identities round differently
    from the direct product, so rows whose |delta| lies within a rounding bound of
    ``threshold`` (the observed |delta| less the tolerance) are computed directly, as before:
    the decision ``|delta| >= threshold`` is then the direct computation's.
    """
    n = len(za)
    centred = human - human.mean()
    h_norm = np.sqrt(centred @ centred)
    step, step_sq, step_h = zb - za, zb * zb - za * za, (zb - za) * centred
    totals = (za.sum() + zb.sum(), (za * za).sum() + (zb * zb).sum(), (za + zb) @ centred)
    scale = n * np.finfo(float).eps * ROUNDING_SAFETY * (1.0 + (za * za).sum() + (zb * zb).sum())
    deltas = np.empty(len(swaps))
    buffer = np.empty((min(SWAP_BLOCK, len(swaps)), n))  # used again block after block
    for start in range(0, len(swaps), SWAP_BLOCK):
        s = _as_float(swaps[start : start + SWAP_BLOCK], buffer)
        left_sum, left_sq, left_h = za.sum() + s @ step, (za * za).sum() + s @ step_sq, za @ centred + s @ step_h
        right_sum, right_sq, right_h = totals[0] - left_sum, totals[1] - left_sq, totals[2] - left_h
        left_var, right_var = left_sq - left_sum**2 / n, right_sq - right_sum**2 / n
        with np.errstate(invalid="ignore", divide="ignore"):
            left = left_h / (np.sqrt(np.maximum(left_var, 0.0)) * h_norm)
            right = right_h / (np.sqrt(np.maximum(right_var, 0.0)) * h_norm)
        # a (nearly) constant row is NaN in the direct computation: leave it to that
        delta = np.where(np.minimum(left_var, right_var) > scale, left - right, NAN)
        deltas[start : start + SWAP_BLOCK] = delta
    near = ~np.isfinite(deltas) | (np.abs(np.abs(deltas) - threshold) <= scale * (1.0 + abs(threshold)))
    if near.any():
        rows = swaps[near]
        deltas[near] = _rowwise_pearson(np.where(rows, zb, za), human) - _rowwise_pearson(np.where(rows, za, zb), human)
    return deltas


def _as_float(rows: NDArray[np.bool_], buffer: FloatArray) -> FloatArray:
    """The rows of swaps as 0.0 / 1.0 in the first rows of ``buffer`` (fresh arrays of this size cost more
    than the conversion)."""
    converted = buffer[: len(rows)]
    np.copyto(converted, rows)
    return converted


def _swapped_kendall_deltas(
    za: FloatArray, zb: FloatArray, human: FloatArray, swaps: NDArray[np.bool_], threshold: float
) -> FloatArray:
    """tau_b(left, human) - tau_b(right, human) for every row of ``swaps``, without sorting any row.

    The right row is the left one's complement (each point takes the other metric's value), so in
    the difference of the two rows' concordance sums S_left - S_right every product of two swaps
    cancels: with t_p = +1 where point p is swapped and -1 where not, S_left - S_right equals
    sum_p t_p g_p, where g_p depends only on p's two values against every other point's two values
    (counted once, per human score level, with sorted values: :func:`_kendall_swap_weights`). The
    rows' ties, and so the tau-b denominators, are counted from the groups of equal values among the
    2n candidate values. Where the two denominators differ, S_left + S_right is not known, and the
    difference is only bracketed (|tau| <= 1 bounds the unknown part); rows whose bracket, widened by
    a rounding margin, holds ``threshold`` are computed directly as before, so the decision
    ``|delta| >= threshold`` of every row is the direct computation's and the p-value is exactly
    the one of the row-by-row loop. Exact integers throughout (sums stay far below 2**53).
    """
    n = len(za)
    levels = np.unique(human, return_inverse=True)[1].ravel()
    twice_g = _kendall_swap_weights(za, zb, levels)
    pairs = n * (n - 1) / 2
    level_sizes = np.bincount(levels).astype(float)
    human_norm = math.sqrt(pairs - float((level_sizes * (level_sizes - 1) / 2).sum()))
    # groups of equal values among the 2n candidates (za_p, zb_p); only groups of two or more tie
    _, group = np.unique(np.concatenate([za, zb]), return_inverse=True)
    group = group.ravel()
    group_a, group_b = group[:n], group[n:]
    sizes = np.bincount(group, minlength=2 * n)
    tied = np.flatnonzero(sizes > 1)
    slot = np.full(len(sizes), -1)
    slot[tied] = np.arange(len(tied))
    # left picks za_p where unswapped and zb_p where swapped: count = base + swaps @ change
    base = np.bincount(slot[group_a][slot[group_a] >= 0], minlength=len(tied)).astype(float)
    rows_a, rows_b = np.flatnonzero(slot[group_a] >= 0), np.flatnonzero(slot[group_b] >= 0)
    change_t = sparse.csr_matrix(  # (tied groups, points): swapping p moves it from za_p's group to zb_p's
        (
            np.r_[-np.ones(len(rows_a)), np.ones(len(rows_b))],
            (np.r_[slot[group_a][rows_a], slot[group_b][rows_b]], np.r_[rows_a, rows_b]),
        ),
        shape=(len(tied), n),
    )
    half_g = twice_g.sum() / 2
    tied_sizes = sizes[tied].astype(float)
    margin = KENDALL_ROUNDING_MARGIN * (1.0 + abs(threshold))
    deltas = np.empty(len(swaps))
    near = np.zeros(len(swaps), dtype=bool)
    buffer = np.empty((min(SWAP_BLOCK, len(swaps)), n))  # used again block after block
    transposed = np.empty((n, len(buffer))) if len(tied) else buffer
    for start in range(0, len(swaps), SWAP_BLOCK):
        s = _as_float(swaps[start : start + SWAP_BLOCK], buffer)
        difference = s @ twice_g - half_g  # S_left - S_right, exact integers
        if len(tied):
            s_t = transposed[:, : len(s)]
            np.copyto(s_t, s.T)
            left_count = base[None, :] + (change_t @ s_t).T
        else:
            left_count = base[None, :]
        right_count = tied_sizes[None, :] - left_count
        left_ties = (left_count * (left_count - 1) / 2).sum(axis=1)
        right_ties = (right_count * (right_count - 1) / 2).sum(axis=1)
        left_norm = np.sqrt(np.maximum(pairs - left_ties, 0.0))
        right_norm = np.sqrt(np.maximum(pairs - right_ties, 0.0))
        defined = (left_norm > 0) & (right_norm > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            estimate = difference / 2 * (1 / left_norm + 1 / right_norm) / human_norm
            width = (left_norm + right_norm) * np.abs(right_norm - left_norm) / (2 * left_norm * right_norm)
        block = slice(start, start + SWAP_BLOCK)
        deltas[block] = estimate
        near[block] = ~defined | (np.abs(np.abs(estimate) - threshold) <= width + margin)
    if near.any():
        rows = swaps[near]
        left, right = np.where(rows, zb, za), np.where(rows, za, zb)
        deltas[near] = [
            coefficient_value("kendall_b", left[i], human) - coefficient_value("kendall_b", right[i], human)
            for i in range(len(rows))
        ]
    return deltas


def _kendall_swap_weights(za: FloatArray, zb: FloatArray, levels: NDArray[np.intp]) -> FloatArray:
    """2 g_p of :func:`_swapped_kendall_deltas`, as integers.

    g_p = (F(zb_p) - F(za_p)) over the other points' za plus the same over their zb, halved, where
    F(v) = sum_q sign(level_p - level_q) sign(v - z_q). Per human score level m, G_m(v) (the level's
    candidate values below v less those above v, over both metrics) is read for all 2n candidates at
    once from a (levels, distinct values) table of running counts: 2 cum - count - total.
    """
    n = len(za)
    distinct, rank = np.unique(np.concatenate([za, zb]), return_inverse=True)
    rank = rank.ravel()
    n_levels, width = int(levels.max()) + 1, len(distinct)
    table = np.bincount(np.tile(levels, 2) * width + rank, minlength=n_levels * width).reshape(n_levels, width)
    running = np.cumsum(table, axis=1)
    below_less_above = 2 * running - table - running[:, -1:]  # (levels, distinct values)
    change = below_less_above[:, rank[n:]] - below_less_above[:, rank[:n]]  # G_m(zb_p) - G_m(za_p)
    direction = np.sign(levels[None, :] - np.arange(n_levels)[:, None])
    twice_g: FloatArray = (direction * change).sum(axis=0).astype(float)
    return twice_g


def rowwise_kendall(rows: ArrayLike, y: ArrayLike, variant: str = "b") -> FloatArray:
    """Kendall's tau-b or tau-c of every row of ``rows`` with ``y`` (one vector, or one row per row), from all pairs.

    The vectorised form of :func:`_pairwise_kendall` for the few points of the system level:
    equal to it (and to scipy.stats.kendalltau) row by row; NaN where a row or ``y`` is constant.
    """
    rows = np.atleast_2d(np.asarray(rows, float))
    y = np.broadcast_to(np.asarray(y, float), rows.shape)
    n = rows.shape[1]
    result = np.full(rows.shape[0], NAN)
    if n < MIN_POINTS:
        return result
    first, second = np.triu_indices(n, k=1)
    dy = np.sign(y[:, first] - y[:, second])
    dx = np.sign(rows[:, first] - rows[:, second])
    s = (dx * dy).sum(axis=1)
    defined = (np.ptp(rows, axis=1) > 0) & (np.ptp(y, axis=1) > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "c":
            m = np.minimum(_distinct_per_row(rows), _distinct_per_row(y)).astype(float)
            values = 2 * s / (n**2 * (m - 1) / m)
        else:
            values = s / np.sqrt(np.count_nonzero(dx, axis=1).astype(float) * np.count_nonzero(dy, axis=1))
    result[defined] = values[defined]
    return result


def _distinct_per_row(rows: FloatArray) -> NDArray[np.intp]:
    distinct: NDArray[np.intp] = 1 + np.count_nonzero(np.diff(np.sort(rows, axis=1), axis=1), axis=1)
    return distinct


def rowwise_coefficient(name: str, rows_x: ArrayLike, rows_y: ArrayLike) -> FloatArray:
    """``coefficient_value(name, x, y)`` of every pair of rows (complete rows: no NaN), vectorised.

    Pearson from centred products and Spearman as Pearson of average ranks (as np.corrcoef and
    scipy.stats.rankdata give them), Kendall from all pairs up to ``PAIRWISE_KENDALL_MAX_N``
    points; beyond that, row by row. Equal to the one-pair functions up to rounding.
    """
    rows_x, rows_y = np.atleast_2d(np.asarray(rows_x, float)), np.atleast_2d(np.asarray(rows_y, float))
    n = rows_x.shape[1]
    if n < MIN_POINTS:
        return np.full(rows_x.shape[0], NAN)
    if name == "spearman":
        return rowwise_coefficient("pearson", stats.rankdata(rows_x, axis=1), stats.rankdata(rows_y, axis=1))
    if name == "pearson":
        x = rows_x - rows_x.mean(axis=1, keepdims=True)
        y = rows_y - rows_y.mean(axis=1, keepdims=True)
        norms = np.sqrt((x * x).sum(axis=1) * (y * y).sum(axis=1))
        defined = (np.ptp(rows_x, axis=1) > 0) & (np.ptp(rows_y, axis=1) > 0) & (norms > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.clip((x * y).sum(axis=1) / norms, -1.0, 1.0)
        return np.where(defined, values, NAN)
    if name in ("kendall_b", "kendall_c") and n <= PAIRWISE_KENDALL_MAX_N:
        return rowwise_kendall(rows_x, rows_y, name[-1])
    return np.array([coefficient_value(name, x, y) for x, y in zip(rows_x, rows_y)])


def _rowwise_pearson(rows: FloatArray, y: FloatArray) -> FloatArray:
    """Pearson's r of every row of a matrix with one vector (NaN for a constant row)."""
    rows = rows - rows.mean(axis=1, keepdims=True)
    y = y - y.mean()
    norms = np.linalg.norm(rows, axis=1) * np.linalg.norm(y)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norms > 0, rows @ y / np.where(norms > 0, norms, 1), NAN)


def top_k(names: Sequence[str], human: Sequence[float], k: int) -> list[str]:
    """The k best systems by human score (ties broken by name, so the choice is reproducible)."""
    ranked = sorted(zip(names, human), key=lambda pair: (-pair[1], pair[0]))
    return [name for name, _ in ranked[:k]]
