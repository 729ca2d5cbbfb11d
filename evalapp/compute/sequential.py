"""Anytime-valid decisions per pair of systems: confidence sequences, the decision rule, "settled". No Django.

Why a confidence sequence: an organizer looks at a running campaign as often as they like and stops
when the ranking looks done. A fixed-n interval or test read after every rating is wrong far more
often than its level says. A confidence sequence ``C_1, C_2, ...`` covers the true value at every
time at once, ``P(for all t: mu in C_t) >= 1 - alpha``, so a decision read from it at any stopping
time (however chosen, however often one looked) is wrong with probability at most ``alpha``.

The sequence is the hedged-capital betting confidence sequence of Waudby-Smith and Ramdas,
"Estimating means of bounded random variables by betting", JRSS B 86(1), 2024, Theorem 3 with the
predictable plug-in bets of their section 4.2 (eq. 26), for observations ``x_i`` in [0, 1]:

    mu_hat_t     = (1/2 + sum_{i<=t} x_i) / (t + 1)
    sigma2_hat_t = (1/4 + sum_{i<=t} (x_i - mu_hat_i)^2) / (t + 1)
    lambda_t     = sqrt( 2 log(2/alpha) / (sigma2_hat_{t-1} t log(1 + t)) )     (sigma2_hat_0 = 1/4)
    K+_t(m)      = prod_{i<=t} (1 + min(lambda_i, c/m) (x_i - m))
    K-_t(m)      = prod_{i<=t} (1 - min(lambda_i, c/(1-m)) (x_i - m))
    C_t          = { m : max(theta K+_t(m), (1 - theta) K-_t(m)) < 1/alpha },   theta = 1/2

with ``c`` = :data:`core.defaults.SEQUENTIAL_BET_TRUNCATION`. ``K+`` falls and ``K-`` rises with
``m``, so ``C_t`` is an interval, and its running intersection is ``{m : max_{s<=t} theta K+_s(m) <
1/alpha and max_{s<=t} (1-theta) K-_s(m) < 1/alpha}``: the bounds are found by bisection, and a
decision needs the capital at three points only (0 and +-epsilon), which is what makes the
simulation of thousands of campaigns cheap. Betting beats the closed-form empirical-Bernstein
sequence here because the differences fill a small part of their [-3, 3] range.

What it assumes, in this project's terms (the statistics issue's rater-aware uncertainty): the
sampling unit is the instance. The observation of a pair (j, k) on instance i is
``D(i) = mean counted score of j on i - mean counted score of k on i``, in [-3, 3], rescaled to
[0, 1]; it carries the instance's true difference *and* the rating noise (the raters' severity where
different raters rated j and k, and each rating's own noise). The target is the true difference
averaged over the pool of instances and over the population of raters. The instances come in the
campaign's random order, a uniformly random permutation, so the observations are exchangeable; the
sequence is the with-replacement one on purpose: the without-replacement gain (Waudby-Smith and
Ramdas, NeurIPS 2020) would shrink the interval to a point once every instance is rated, which is
right for the instances' part of ``D(i)`` but wrong for the ratings' noise, which a finished
campaign still carries. So a fully rated pool never makes a noisy difference certain. The
interval assumes the rating noise of different instances is independent: rater effects shared
between instances (one rater's severity across many of them) cancel in ``D(i)`` when the same
raters rate both systems, and are treated as part of the instance's noise otherwise.
``tests/sequential/test_confidence_sequence.py`` checks the coverage over repeated looks by simulation, with
rater effects, on pools rated in full.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
# A bound of one pair (a float) or of many (an array of the leading shape).
Bound = float | FloatArray

SCORE_RANGE = 3.0  # D(i) lies in [-SCORE_RANGE, SCORE_RANGE]
BETTER, TIE, OPEN = "better", "tie", "open"
METHOD = (
    "hedged-capital betting confidence sequence with predictable plug-in bets (Waudby-Smith and Ramdas "
    "2024), running intersection, Bonferroni over pairs"
)


THETA = 0.5
BISECTION_STEPS = 17  # the bounds to 6 / 2**17 < 0.0001 on the 0-3 scale's differences


def predictable_bets(x: ArrayLike, alpha: float) -> FloatArray:
    """The predictable plug-in bets ``lambda_t`` (before the truncation at ``c/m``), last axis time."""
    x = np.asarray(x, dtype=float)
    t = np.arange(1, x.shape[-1] + 1, dtype=float)
    mu_hat = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    sigma2_hat = (0.25 + np.cumsum((x - mu_hat) ** 2, axis=-1)) / (t + 1)
    previous_sigma2 = np.concatenate([np.full(x.shape[:-1] + (1,), 0.25), sigma2_hat[..., :-1]], axis=-1)
    bets: FloatArray = np.sqrt(2 * np.log(2.0 / alpha) / (previous_sigma2 * t * np.log1p(t)))
    return bets


def log_capital(x: ArrayLike, m: ArrayLike, bets: FloatArray, truncation: float) -> tuple[FloatArray, FloatArray]:
    """``(log K+_t(m), log K-_t(m))`` for every t (last axis), ``m`` in [0, 1] broadcast against ``x``."""
    x = np.asarray(x, dtype=float)
    m = np.asarray(m, dtype=float)
    with np.errstate(divide="ignore"):
        up = np.minimum(bets, truncation / m)
        down = np.minimum(bets, truncation / (1 - m))
    return np.cumsum(np.log1p(up * (x - m)), axis=-1), np.cumsum(np.log1p(-down * (x - m)), axis=-1)


def rejected(
    x: ArrayLike, m: ArrayLike, alpha: float, truncation: float, bets: FloatArray | None = None
) -> tuple[BoolArray, BoolArray]:
    """``(below, above)``: whether every mean at or below ``m`` (resp. at or above) has left the running
    intersection by each time t (last axis). Both are monotone in t."""
    bets = predictable_bets(x, alpha) if bets is None else bets
    up, down = log_capital(x, m, bets, truncation)
    threshold = np.log(1 / alpha) - np.log(THETA)  # theta K >= 1/alpha
    down_threshold = np.log(1 / alpha) - np.log(1 - THETA)
    return (np.maximum.accumulate(up, axis=-1) >= threshold, np.maximum.accumulate(down, axis=-1) >= down_threshold)


def left_out(x: FloatArray, m: ArrayLike, alpha: float, truncation: float, bets: FloatArray, side: int) -> BoolArray:
    """After the last observation: whether the running intersection has left out ``m`` and every mean
    below it (``side`` 0) or above it (``side`` 1); ``m`` has the leading shape of ``x``."""
    m = np.asarray(m, dtype=float)[..., None]
    with np.errstate(divide="ignore"):
        if side == 0:
            steps = np.log1p(np.minimum(bets, truncation / m) * (x - m))
            threshold = np.log(1 / alpha) - np.log(THETA)
        else:
            steps = np.log1p(-np.minimum(bets, truncation / (1 - m)) * (x - m))
            threshold = np.log(1 / alpha) - np.log(1 - THETA)
    gone: BoolArray = np.cumsum(steps, axis=-1).max(axis=-1) >= threshold
    return gone


def betting_cs_bounds(x: ArrayLike, alpha: float, truncation: float) -> tuple[Bound, Bound]:
    """The running-intersection interval after the last observation of ``x`` (in [0, 1], last axis time):
    ``(lower, upper)``, arrays of the leading shape (floats for 1-D ``x``).

    Bisection on the monotone capitals, every row at once: ``lower`` is where ``max_s theta K+_s(m)``
    falls below ``1/alpha``, ``upper`` where ``max_s (1-theta) K-_s(m)`` rises to it.
    """
    x = np.asarray(x, dtype=float)
    shape = x.shape[:-1]
    if x.shape[-1] == 0:
        return np.zeros(shape)[()], np.ones(shape)[()]
    bets = predictable_bets(x, alpha)

    def out(m: FloatArray, side: int) -> BoolArray:
        return left_out(x, m, alpha, truncation, bets, side)

    bounds = []
    for side in (0, 1):
        # side 0: the lower bound, rejected below it; side 1: the upper bound, rejected above it.
        low, high = np.zeros(shape), np.ones(shape)
        for _ in range(BISECTION_STEPS):
            middle = (low + high) / 2
            gone = out(middle, side)
            if side == 0:
                low, high = np.where(gone, middle, low), np.where(gone, high, middle)
            else:
                low, high = np.where(gone, low, middle), np.where(gone, middle, high)
        # The outer end of the last bracket: the interval is never narrower than the exact one.
        edge = np.full(shape, float(side))
        if side == 0:
            bounds.append(np.where(out(edge, 0), low, 0.0))
        else:
            bounds.append(np.where(out(edge, 1), high, 1.0))
    lower, upper = bounds
    return lower[()], np.maximum(upper, lower)[()]


def to_unit(differences: ArrayLike) -> FloatArray:
    """Differences on [-3, 3] as the [0, 1] observations the sequence is defined on."""
    return (np.asarray(differences, dtype=float) + SCORE_RANGE) / (2 * SCORE_RANGE)


def from_unit(value: Bound) -> Bound:
    return value * 2 * SCORE_RANGE - SCORE_RANGE


def difference_cs(differences: ArrayLike, alpha: float, truncation: float) -> tuple[Bound, Bound]:
    """The running-intersection confidence sequence's interval for the mean of paired differences
    ``D(i)`` in [-3, 3] after the last of them: ``(lower, upper)``."""
    lower, upper = betting_cs_bounds(to_unit(differences), alpha, truncation)
    return from_unit(lower), from_unit(upper)


def decisions_over_time(
    differences: ArrayLike, alpha: float, truncation: float, margin: float
) -> tuple[BoolArray, BoolArray, BoolArray]:
    """The decision after each observation (last axis), vectorised over leading axes (the simulation).

    Returns ``(better_first, better_second, tie)`` boolean arrays: the first system of the pair decided
    better (every difference at or below 0 rejected), the second, and a tie (every difference at or
    below -margin and at or above +margin rejected).
    """
    x = to_unit(differences)
    bets = predictable_bets(x, alpha)
    zero = to_unit(0.0)
    first, second = rejected(x, zero, alpha, truncation, bets)
    low_out, _ = rejected(x, to_unit(-margin), alpha, truncation, bets)
    _, high_out = rejected(x, to_unit(margin), alpha, truncation, bets)
    return first, second, low_out & high_out & ~first & ~second


def pair_alpha(alpha: float, systems: int) -> float:
    """The level of each pair's sequence: Bonferroni over the ``systems * (systems - 1) / 2`` pairs."""
    pairs = systems * (systems - 1) // 2
    return alpha / max(pairs, 1)


def decide(lower: ArrayLike, upper: ArrayLike, margin: float) -> str | NDArray[np.str_]:
    """``better`` when the interval excludes 0; ``tie`` when it lies inside (-margin, margin); else ``open``.

    Works on arrays too (returns an array of strings). A sign decision wins over a tie: an interval
    above 0 and below the margin says both, and the sign is the stronger statement.
    """
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    excludes_zero = (lower > 0) | (upper < 0)
    inside = (lower > -margin) & (upper < margin)
    decision = np.where(excludes_zero, BETTER, np.where(inside, TIE, OPEN))
    return decision.item() if decision.ndim == 0 else decision


@dataclass(frozen=True)
class PairDecision:
    """One unordered pair: ``better`` has the higher observed mean; figures are better minus worse."""

    better: str
    worse: str
    difference: float | None
    lower: float
    upper: float
    decision: str
    instances: int

    def as_dict(self) -> dict[str, str | float | None]:
        return {
            "better": self.better,
            "worse": self.worse,
            "difference": self.difference,
            "lower": self.lower,
            "upper": self.upper,
            "decision": self.decision,
        }


def pair_decision(
    name_a: str,
    name_b: str,
    scores_a: Sequence[float] | FloatArray,
    scores_b: Sequence[float] | FloatArray,
    alpha: float,
    truncation: float,
    margin: float,
) -> PairDecision:
    """The decision on one pair from their per-instance mean scores (see :func:`pair_decisions`)."""
    scores = np.vstack([np.asarray(scores_a, dtype=float), np.asarray(scores_b, dtype=float)])
    return pair_decisions([name_a, name_b], scores, [len(scores_a)] * 2, alpha, truncation, margin)[0]


def pair_decisions(
    names: Sequence[str],
    scores: ArrayLike,
    prefix: Sequence[int],
    alpha: float,
    truncation: float,
    margin: float,
) -> list[PairDecision]:
    """The decisions on every unordered pair of ``names`` (in ``combinations`` order).

    ``scores[k]`` holds system k's per-instance mean scores in the campaign's instance order and
    ``prefix[k]`` how many leading instances it is complete on; a pair reads the leading instances both
    are complete on (a prefix of the order, so a simple random sample). With no instance the interval
    is the whole [-3, 3] and the pair is open. Pairs of one length are computed together.
    """
    scores = np.asarray(scores, dtype=float)
    pairs = [(a, b) for a in range(len(names)) for b in range(a + 1, len(names))]
    lengths = [min(prefix[a], prefix[b]) for a, b in pairs]
    found: list[PairDecision | None] = [None] * len(pairs)
    for n in sorted(set(lengths)):
        members = [index for index, length in enumerate(lengths) if length == n]
        if n == 0:
            for index in members:
                better, worse = sorted((names[pairs[index][0]], names[pairs[index][1]]))
                found[index] = PairDecision(better, worse, None, -SCORE_RANGE, SCORE_RANGE, OPEN, 0)
            continue
        first_rows = [pairs[index][0] for index in members]
        second_rows = [pairs[index][1] for index in members]
        d = scores[first_rows, :n] - scores[second_rows, :n]
        means = d.mean(axis=1)
        # Orient every pair so that the first system has the higher observed mean (ties: by name).
        flip = (means < 0) | ((means == 0) & (np.array([names[b] < names[a] for a, b in zip(first_rows, second_rows)])))
        d = np.where(flip[:, None], -d, d)
        x = to_unit(d)
        bets = predictable_bets(x, alpha)
        shape = np.ones(len(members))
        first = left_out(x, to_unit(0.0) * shape, alpha, truncation, bets, 0)
        second = left_out(x, to_unit(0.0) * shape, alpha, truncation, bets, 1)
        tie = (
            left_out(x, to_unit(-margin) * shape, alpha, truncation, bets, 0)
            & left_out(x, to_unit(margin) * shape, alpha, truncation, bets, 1)
            & ~first
            & ~second
        )
        low, high = betting_cs_bounds(x, alpha, truncation)
        low, high = np.atleast_1d(from_unit(low)), np.atleast_1d(from_unit(high))
        for row, index in enumerate(members):
            a, b = pairs[index]
            better, worse = (names[b], names[a]) if flip[row] else (names[a], names[b])
            difference, lower, upper = abs(float(means[row])), float(low[row]), float(high[row])
            if second[row] and not first[row]:  # the interval favours the lower observed mean (rare): say so
                better, worse, difference, lower, upper = worse, better, -difference, -upper, -lower
            decision = BETTER if first[row] or second[row] else TIE if tie[row] else OPEN
            found[index] = PairDecision(better, worse, difference, lower, upper, decision, n)
    return cast("list[PairDecision]", found)  # every pair has one length, so every slot is filled


@dataclass(frozen=True)
class AdjacentPair:
    """Two systems next to each other in the current order and how their order is decided."""

    upper: str
    lower: str
    pair: PairDecision | None
    decided_by: str  # "direct", "transitivity" or "" (open)


def adjacent_decisions(order: Sequence[str], decisions: Mapping[frozenset[str], PairDecision]) -> list[AdjacentPair]:
    """Each adjacent pair of ``order`` (best first) and whether it is decided directly or by transitivity.

    ``decisions`` maps ``frozenset({a, b})`` to a :class:`PairDecision`. Directly: the pair's own
    decision is ``better`` or ``tie``. By transitivity: a chain of ``better`` decisions leads from
    one system of the pair to the other (a > c and c > b give a > b; ties do not chain, since two
    ties within the margin need not be one).
    """
    above: dict[str, set[str]] = {}  # system -> systems it is decided better than
    for known in decisions.values():
        if known.decision == BETTER:
            above.setdefault(known.better, set()).add(known.worse)

    def reaches(top: str, bottom: str) -> bool:
        seen: set[str] = set()
        frontier = [top]
        while frontier:
            node = frontier.pop()
            for lower in above.get(node, ()):
                if lower == bottom:
                    return True
                if lower not in seen:
                    seen.add(lower)
                    frontier.append(lower)
        return False

    found: list[AdjacentPair] = []
    for upper, lower in zip(order, order[1:]):
        pair = decisions.get(frozenset((upper, lower)))
        if pair is not None and pair.decision != OPEN:
            how = "direct"
        elif reaches(upper, lower) or reaches(lower, upper):
            how = "transitivity"
        else:
            how = ""
        found.append(AdjacentPair(upper, lower, pair, how))
    return found


def adjacent_pairs_decided(order: Sequence[str], decisions: Mapping[frozenset[str], PairDecision]) -> bool:
    """Whether every adjacent pair of ``order`` is decided directly or by transitivity ("settled")."""
    return all(adjacent.decided_by for adjacent in adjacent_decisions(order, decisions))


def all_pairs_decided(name: str, decisions: Mapping[frozenset[str], PairDecision]) -> bool:
    """Whether every pair ``name`` belongs to is decided (a racing campaign retires such a system)."""
    mine = [pair for key, pair in decisions.items() if name in key]
    return bool(mine) and all(pair.decision != OPEN for pair in mine)
