"""Anytime-valid decisions per pair of systems: confidence sequences, the decision rule, "settled". No Django.

Why a confidence sequence: an organizer looks at a running campaign as often as they like and stops
when the ranking looks done. A fixed-n interval or test read after every rating is wrong far more
often than its level says. A confidence sequence ``C_1, C_2, ...`` covers the true value at every
time at once, ``P(for all t: mu in C_t) >= 1 - alpha``, so a decision read from it at any stopping
time (however chosen, however often one looked) is wrong with probability at most ``alpha``.

The sequence is the predictable plug-in empirical-Bernstein confidence sequence (PrPl-EB) of
Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting", JRSS B 86(1),
2024, Theorem 2 (eq. 13-15), for observations in [0, 1]:

    mu_hat_t    = (1/2 + sum_{i<=t} x_i) / (t + 1)
    sigma2_hat_t = (1/4 + sum_{i<=t} (x_i - mu_hat_i)^2) / (t + 1)
    lambda_t    = min( sqrt( 2 log(2/alpha) / (sigma2_hat_{t-1} t log(1 + t)) ), c )
    v_t         = 4 (x_t - mu_hat_{t-1})^2,   psi_E(l) = (-log(1 - l) - l) / 4
    C_t         = sum lambda_i x_i / sum lambda_i  +-  (log(2/alpha) + sum v_i psi_E(lambda_i)) / sum lambda_i

with ``mu_hat_0 = 1/2``, ``sigma2_hat_0 = 1/4`` and ``c`` = :data:`core.defaults.SEQUENTIAL_BET_TRUNCATION`,
and the running intersection of the intervals (still a confidence sequence, never wider).

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
METHOD = ("predictable plug-in empirical-Bernstein confidence sequence (Waudby-Smith and Ramdas 2024), "
          "running intersection, Bonferroni over pairs")


def empirical_bernstein_cs(x, alpha, truncation):
    """The PrPl-EB confidence sequence of observations ``x`` in [0, 1] (last axis: time).

    Returns ``(lower, upper)``, arrays of the shape of ``x``: the interval after each observation,
    before the running intersection. Vectorised over leading axes (the simulation's campaigns).
    """
    x = np.asarray(x, dtype=float)
    t = np.arange(1, x.shape[-1] + 1, dtype=float)
    log_term = np.log(2.0 / alpha)
    mu_hat = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    sigma2_hat = (0.25 + np.cumsum((x - mu_hat) ** 2, axis=-1)) / (t + 1)
    previous_mu = np.concatenate([np.full(x.shape[:-1] + (1,), 0.5), mu_hat[..., :-1]], axis=-1)
    previous_sigma2 = np.concatenate([np.full(x.shape[:-1] + (1,), 0.25), sigma2_hat[..., :-1]], axis=-1)
    bets = np.minimum(np.sqrt(2 * log_term / (previous_sigma2 * t * np.log1p(t))), truncation)
    psi = (-np.log1p(-bets) - bets) / 4
    penalty = 4 * (x - previous_mu) ** 2 * psi
    bet_sum = np.cumsum(bets, axis=-1)
    centre = np.cumsum(bets * x, axis=-1) / bet_sum
    half_width = (log_term + np.cumsum(penalty, axis=-1)) / bet_sum
    return centre - half_width, centre + half_width


def difference_cs(differences, alpha, truncation):
    """The running-intersection confidence sequence of paired differences ``D(i)`` in [-3, 3].

    Returns ``(lower, upper)`` after each instance, clipped to [-3, 3] (last axis: time).
    """
    differences = np.asarray(differences, dtype=float)
    x = (differences + SCORE_RANGE) / (2 * SCORE_RANGE)
    lower, upper = empirical_bernstein_cs(x, alpha, truncation)
    lower = np.maximum.accumulate(np.clip(lower, 0.0, 1.0), axis=-1)
    upper = np.minimum.accumulate(np.clip(upper, 0.0, 1.0), axis=-1)
    scale = 2 * SCORE_RANGE
    return lower * scale - SCORE_RANGE, upper * scale - SCORE_RANGE


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
    lower, upper = difference_cs(scores_a - scores_b, alpha, truncation)
    low, high = float(lower[-1]), float(upper[-1])
    return PairDecision(name_a, name_b, difference, low, high, decide(low, high, margin), n)


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
