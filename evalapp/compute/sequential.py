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
``tests/results/test_sequential.py`` checks the coverage over repeated looks by simulation, with
rater effects, on pools rated in full.
"""
from dataclasses import dataclass

import numpy as np

SCORE_RANGE = 3.0  # D(i) lies in [-SCORE_RANGE, SCORE_RANGE]
BETTER, TIE, OPEN = "better", "tie", "open"
METHOD = ("hedged-capital betting confidence sequence with predictable plug-in bets (Waudby-Smith and Ramdas "
          "2024), running intersection, Bonferroni over pairs")


THETA = 0.5
BISECTION_STEPS = 24  # the bounds to 6 / 2**24 on the 0-3 scale's differences


def predictable_bets(x, alpha):
    """The predictable plug-in bets ``lambda_t`` (before the truncation at ``c/m``), last axis time."""
    x = np.asarray(x, dtype=float)
    t = np.arange(1, x.shape[-1] + 1, dtype=float)
    mu_hat = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    sigma2_hat = (0.25 + np.cumsum((x - mu_hat) ** 2, axis=-1)) / (t + 1)
    previous_sigma2 = np.concatenate([np.full(x.shape[:-1] + (1,), 0.25), sigma2_hat[..., :-1]], axis=-1)
    return np.sqrt(2 * np.log(2.0 / alpha) / (previous_sigma2 * t * np.log1p(t)))


def log_capital(x, m, bets, truncation):
    """``(log K+_t(m), log K-_t(m))`` for every t (last axis), ``m`` in [0, 1] broadcast against ``x``."""
    x = np.asarray(x, dtype=float)
    m = np.asarray(m, dtype=float)
    with np.errstate(divide="ignore"):
        up = np.minimum(bets, truncation / m)
        down = np.minimum(bets, truncation / (1 - m))
    return np.cumsum(np.log1p(up * (x - m)), axis=-1), np.cumsum(np.log1p(-down * (x - m)), axis=-1)


def rejected(x, m, alpha, truncation, bets=None):
    """``(below, above)``: whether every mean at or below ``m`` (resp. at or above) has left the running
    intersection by each time t (last axis). Both are monotone in t."""
    bets = predictable_bets(x, alpha) if bets is None else bets
    up, down = log_capital(x, m, bets, truncation)
    threshold = np.log(1 / alpha) - np.log(THETA)  # theta K >= 1/alpha
    down_threshold = np.log(1 / alpha) - np.log(1 - THETA)
    return (np.maximum.accumulate(up, axis=-1) >= threshold,
            np.maximum.accumulate(down, axis=-1) >= down_threshold)


def betting_cs_bounds(x, alpha, truncation):
    """The running-intersection interval after the last observation of ``x`` (1-D, in [0, 1]): ``(lower, upper)``.

    Bisection on the monotone capitals: ``lower`` is where ``max_s theta K+_s(m)`` falls below
    ``1/alpha``, ``upper`` where ``max_s (1-theta) K-_s(m)`` rises to it.
    """
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return 0.0, 1.0
    bets = predictable_bets(x, alpha)

    def out_below(m):
        return rejected(x, m, alpha, truncation, bets)[0][-1]

    def out_above(m):
        return rejected(x, m, alpha, truncation, bets)[1][-1]

    lower = 0.0
    if out_below(0.0):
        low, high = 0.0, 1.0
        for _ in range(BISECTION_STEPS):
            middle = (low + high) / 2
            low, high = (middle, high) if out_below(middle) else (low, middle)
        lower = high
    upper = 1.0
    if out_above(1.0):
        low, high = 0.0, 1.0
        for _ in range(BISECTION_STEPS):
            middle = (low + high) / 2
            low, high = (low, middle) if out_above(middle) else (middle, high)
        upper = low
    return lower, max(upper, lower)


def to_unit(differences):
    """Differences on [-3, 3] as the [0, 1] observations the sequence is defined on."""
    return (np.asarray(differences, dtype=float) + SCORE_RANGE) / (2 * SCORE_RANGE)


def from_unit(value):
    return value * 2 * SCORE_RANGE - SCORE_RANGE


def difference_cs(differences, alpha, truncation):
    """The running-intersection confidence sequence's interval for the mean of paired differences
    ``D(i)`` in [-3, 3] after the last of them: ``(lower, upper)``."""
    lower, upper = betting_cs_bounds(to_unit(differences), alpha, truncation)
    return from_unit(lower), from_unit(upper)


def decisions_over_time(differences, alpha, truncation, margin):
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


def pair_alpha(alpha, systems):
    """The level of each pair's sequence: Bonferroni over the ``systems * (systems - 1) / 2`` pairs."""
    pairs = systems * (systems - 1) // 2
    return alpha / max(pairs, 1)


def decide(lower, upper, margin):
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

    def as_dict(self):
        return {"better": self.better, "worse": self.worse, "difference": self.difference,
                "lower": self.lower, "upper": self.upper, "decision": self.decision}


def pair_decision(name_a, name_b, scores_a, scores_b, alpha, truncation, margin):
    """The decision on a pair from their per-instance mean scores, in the campaign's instance order.

    ``scores_a`` and ``scores_b`` are the leading instances both systems are complete on (a prefix of
    the order). With no instance the interval is the whole [-3, 3] and the pair is open.
    """
    scores_a, scores_b = np.asarray(scores_a, dtype=float), np.asarray(scores_b, dtype=float)
    n = len(scores_a)
    if n == 0:
        better, worse = sorted((name_a, name_b))
        return PairDecision(better, worse, None, -SCORE_RANGE, SCORE_RANGE, OPEN, 0)
    difference = float(np.mean(scores_a - scores_b))
    if difference < 0 or (difference == 0 and name_b < name_a):
        name_a, name_b, scores_a, scores_b, difference = name_b, name_a, scores_b, scores_a, -difference
    first, second, tie = (flags[-1] for flags in decisions_over_time(scores_a - scores_b, alpha, truncation, margin))
    low, high = difference_cs(scores_a - scores_b, alpha, truncation)
    if second and not first:  # the interval favours the lower observed mean (possible, if rare): say so
        name_a, name_b, difference, low, high = name_b, name_a, -difference, -high, -low
    decision = BETTER if first or second else TIE if tie else OPEN
    return PairDecision(name_a, name_b, difference, float(low), float(high), decision, n)


@dataclass(frozen=True)
class AdjacentPair:
    """Two systems next to each other in the current order and how their order is decided."""

    upper: str
    lower: str
    pair: PairDecision | None
    decided_by: str  # "direct", "transitivity" or "" (open)


def adjacent_decisions(order, decisions):
    """Each adjacent pair of ``order`` (best first) and whether it is decided directly or by transitivity.

    ``decisions`` maps ``frozenset({a, b})`` to a :class:`PairDecision`. Directly: the pair's own
    decision is ``better`` or ``tie``. By transitivity: a chain of ``better`` decisions leads from
    one system of the pair to the other (a > c and c > b give a > b; ties do not chain, since two
    ties within the margin need not be one).
    """
    above = {}  # system -> systems it is decided better than
    for pair in decisions.values():
        if pair.decision == BETTER:
            above.setdefault(pair.better, set()).add(pair.worse)

    def reaches(top, bottom):
        seen, frontier = set(), [top]
        while frontier:
            node = frontier.pop()
            for lower in above.get(node, ()):
                if lower == bottom:
                    return True
                if lower not in seen:
                    seen.add(lower)
                    frontier.append(lower)
        return False

    found = []
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


def adjacent_pairs_decided(order, decisions):
    """Whether every adjacent pair of ``order`` is decided directly or by transitivity ("settled")."""
    return all(adjacent.decided_by for adjacent in adjacent_decisions(order, decisions))


def all_pairs_decided(name, decisions):
    """Whether every pair ``name`` belongs to is decided (a racing campaign retires such a system)."""
    mine = [pair for key, pair in decisions.items() if name in key]
    return bool(mine) and all(pair.decision != OPEN for pair in mine)
