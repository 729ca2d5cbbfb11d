"""The confidence sequence of evalapp/compute/sequential.py: against a literal restatement of the paper's
formulas, on hand-made sequences, and its coverage over repeated looks by simulation (with rater effects,
pools rated in full)."""
import math

import numpy as np
import pytest
from scipy import stats

from core.defaults import SEQUENTIAL_BET_TRUNCATION
from evalapp.compute import sequential


def literal_prpl_eb(xs, alpha, c):
    """Waudby-Smith and Ramdas (JRSS B 2024), Theorem 2 / eq. (13)-(15), one step at a time, as printed."""
    lows, highs = [], []
    mu_hats, sigma2_hats = [0.5], [0.25]  # mu_hat_0, sigma2_hat_0
    sum_lx = sum_l = sum_vpsi = 0.0
    running = 0.0
    running_sq = 0.0
    for t, x in enumerate(xs, start=1):
        lam = min(math.sqrt(2 * math.log(2 / alpha) / (sigma2_hats[-1] * t * math.log(1 + t))), c)
        v = 4 * (x - mu_hats[-1]) ** 2
        psi = (-math.log(1 - lam) - lam) / 4
        sum_lx += lam * x
        sum_l += lam
        sum_vpsi += v * psi
        centre = sum_lx / sum_l
        half = (math.log(2 / alpha) + sum_vpsi) / sum_l
        lows.append(centre - half)
        highs.append(centre + half)
        running += x
        mu = (0.5 + running) / (t + 1)
        mu_hats.append(mu)
        running_sq += (x - mu) ** 2
        sigma2_hats.append((0.25 + running_sq) / (t + 1))
    return np.array(lows), np.array(highs)


@pytest.mark.parametrize("alpha", [0.05, 0.05 / 45, 0.2])
def test_equals_the_literal_formulas(alpha):
    rng = np.random.default_rng(1)
    xs = rng.integers(0, 7, 300) / 6
    low, high = sequential.empirical_bernstein_cs(xs, alpha, SEQUENTIAL_BET_TRUNCATION)
    want_low, want_high = literal_prpl_eb(list(xs), alpha, SEQUENTIAL_BET_TRUNCATION)
    np.testing.assert_allclose(low, want_low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(high, want_high, rtol=0, atol=1e-12)


def test_first_interval_by_hand():
    # t = 1, x = 1, alpha = 0.05: lambda_1 = min(sqrt(2 log 40 / (1/4 * log 2)), 1/2) = 1/2,
    # v_1 = 4 (1 - 1/2)^2 = 1, psi(1/2) = (log 2 - 1/2) / 4; centre 1, half (log 40 + psi) / (1/2).
    low, high = sequential.empirical_bernstein_cs([1.0], 0.05, 0.5)
    half = (math.log(40) + (math.log(2) - 0.5) / 4) / 0.5
    assert low[0] == pytest.approx(1 - half) and high[0] == pytest.approx(1 + half)


def test_difference_scale_and_running_intersection():
    d = np.array([1.0, 2.0, 1.0, 1.0, 3.0, 0.0] * 40)
    lower, upper = sequential.difference_cs(d, 0.05, 0.5)
    assert np.all(lower >= -3) and np.all(upper <= 3)
    assert np.all(np.diff(lower) >= 0) and np.all(np.diff(upper) <= 0)
    raw_low, raw_high = sequential.empirical_bernstein_cs((d + 3) / 6, 0.05, 0.5)
    assert lower[-1] == pytest.approx(max(np.max(np.clip(raw_low, 0, 1)) * 6 - 3, -3))
    assert upper[-1] == pytest.approx(np.min(np.clip(raw_high, 0, 1)) * 6 - 3)
    assert lower[-1] < d.mean() < upper[-1]


def test_vectorised_over_campaigns_equals_one_by_one():
    rng = np.random.default_rng(2)
    d = rng.integers(-3, 4, (5, 80)).astype(float)
    lower, upper = sequential.difference_cs(d, 0.01, 0.5)
    for row in range(5):
        one_low, one_high = sequential.difference_cs(d[row], 0.01, 0.5)
        np.testing.assert_allclose(lower[row], one_low)
        np.testing.assert_allclose(upper[row], one_high)


@pytest.mark.parametrize("lower,upper,margin,want", [
    (0.01, 0.5, 0.1, "better"), (-0.5, -0.01, 0.1, "better"), (-0.05, 0.05, 0.1, "tie"),
    (-0.1, 0.05, 0.1, "open"), (-0.2, 0.3, 0.1, "open"), (0.0, 0.3, 0.1, "open"), (0.02, 0.08, 0.1, "better"),
    (-0.09, 0.0999, 0.1, "tie"), (-3.0, 3.0, 0.1, "open"),
])
def test_decision_rule_on_hand_made_intervals(lower, upper, margin, want):
    assert sequential.decide(lower, upper, margin) == want


def test_pair_decision_orders_the_pair_and_reports_better_minus_worse():
    pair = sequential.pair_decision("B", "A", [1, 1, 2], [2, 3, 3], 0.05, 0.5, 0.1)
    assert (pair.better, pair.worse) == ("A", "B")
    assert pair.difference == pytest.approx(4 / 3) and pair.instances == 3 and pair.decision == "open"
    empty = sequential.pair_decision("B", "A", [], [], 0.05, 0.5, 0.1)
    assert (empty.decision, empty.difference, empty.lower, empty.upper) == ("open", None, -3.0, 3.0)


def test_a_constant_large_gap_is_decided_and_an_exact_tie_becomes_a_tie():
    gap = sequential.pair_decision("A", "B", [3] * 60, [0] * 60, 0.05 / 10, 0.5, 0.1)
    assert gap.decision == "better" and gap.lower > 1.5
    tie = sequential.pair_decision("A", "B", [2, 1] * 400, [2, 1] * 400, 0.05, 0.5, 0.1)
    assert tie.decision == "tie" and -0.1 < tie.lower <= 0 <= tie.upper < 0.1


def _decision(a, b, decision):
    return sequential.PairDecision(a, b, 0.5, 0.1, 0.9, decision, 10)


def test_settled_directly_and_by_transitivity():
    order = ["A", "B", "C"]
    direct = {frozenset("AB"): _decision("A", "B", "better"), frozenset("BC"): _decision("B", "C", "tie"),
              frozenset("AC"): _decision("A", "C", "open")}
    assert sequential.adjacent_pairs_decided(order, direct)
    # B-C open, but B > D > C: decided through D.
    order = ["A", "B", "D", "C"]
    chain = {frozenset("AB"): _decision("A", "B", "better"), frozenset("BC"): _decision("B", "C", "open"),
             frozenset("BD"): _decision("B", "D", "better"), frozenset("DC"): _decision("D", "C", "better")}
    assert sequential.adjacent_pairs_decided(["A", "B", "C"], chain)
    # Ties do not chain: B ~ D and D ~ C leave B-C open.
    ties = {frozenset("AB"): _decision("A", "B", "better"), frozenset("BC"): _decision("B", "C", "open"),
            frozenset("BD"): _decision("B", "D", "tie"), frozenset("DC"): _decision("D", "C", "tie")}
    assert not sequential.adjacent_pairs_decided(["A", "B", "C"], ties)
    assert sequential.all_pairs_decided("A", chain) and not sequential.all_pairs_decided("C", chain)


def _campaigns(rng, campaigns, pool, true_difference, instance_sd, rater_sd, noise_sd, raters=3):
    """Per-instance D(i) of one pair in ``campaigns`` campaigns rated in full, in random order, with a
    crossed model: instance effects, a pool of 20 raters with their own severity (different raters for
    the two systems), rounding to 0-3. Also the true difference over the pool with rater and noise
    effects averaged out (computed on the latent scale's expectation by Monte Carlo over raters)."""
    base = 1.5 + rng.normal(0, instance_sd, (campaigns, pool))
    delta = true_difference + rng.normal(0, instance_sd / 2, (campaigns, pool))
    severity = rng.normal(0, rater_sd, (campaigns, 20))

    def scores(mean):
        who = rng.integers(0, 20, (campaigns, pool, raters))
        latent = mean[..., None] + np.take_along_axis(severity[:, None, :], who.reshape(campaigns, -1)[:, None, :],
                                                      axis=2).reshape(campaigns, pool, raters)
        return np.clip(np.rint(latent + rng.normal(0, noise_sd, latent.shape)), 0, 3).mean(axis=-1)

    d = scores(base + delta / 2) - scores(base - delta / 2)
    # The target: the expected D(i), averaged over raters and noise, per campaign's pool.
    draws = 40
    expected = np.mean([scores(base + delta / 2) - scores(base - delta / 2) for _ in range(draws)], axis=0)
    target = expected.mean(axis=1)
    order = np.argsort(rng.random((campaigns, pool)), axis=1)
    return np.take_along_axis(d, order, axis=1), target, draws


def test_coverage_over_repeated_looks_with_rater_effects_on_full_pools():
    """2,000 campaigns of 150 instances, each looked at after every instance up to the full pool: the
    share in which the target ever leaves the interval stays below alpha (Clopper-Pearson lower bound)."""
    rng = np.random.default_rng(23)
    alpha = 0.1
    d, target, draws = _campaigns(rng, 2000, 150, 0.3, 0.5, 0.3, 0.7)
    lower, upper = sequential.difference_cs(d, alpha, SEQUENTIAL_BET_TRUNCATION)
    # The target is known only to Monte-Carlo precision (noise sd / sqrt(draws * pool)): allow it.
    slack = 3 * 1.0 / math.sqrt(draws * 150)
    missed = np.any((lower > target[:, None] + slack) | (upper < target[:, None] - slack), axis=1)
    low_bound = stats.binomtest(int(missed.sum()), missed.size).proportion_ci(0.95, method="exact").low
    assert low_bound < alpha, missed.mean()


def test_a_fully_rated_pool_does_not_make_a_noisy_difference_certain():
    """Two systems equal on every instance, rated by noisy raters: after the whole pool the interval still
    holds 0 in (about) every campaign and keeps a width of the noise's order, where the without-replacement
    correction would have shrunk it to the observed mean."""
    rng = np.random.default_rng(5)
    d, _, _ = _campaigns(rng, 1000, 100, 0.0, 0.4, 0.3, 0.8)
    lower, upper = sequential.difference_cs(d, 0.05, SEQUENTIAL_BET_TRUNCATION)
    assert np.mean((lower[:, -1] <= 0) & (upper[:, -1] >= 0)) >= 0.99
    noise = d.std(axis=1).mean() / math.sqrt(100)
    assert np.all(upper[:, -1] - lower[:, -1] > 2 * noise)
    # The observed mean of the full pool still misses 0 by more than 1.5 noise units in about 13% of
    # campaigns: an interval of zero width there would be wrong that often.
    assert np.mean(np.abs(d.mean(axis=1)) > 1.5 * noise) > 0.05


def test_five_equal_systems_show_no_better_over_repeated_looks():
    rng = np.random.default_rng(11)
    systems, campaigns, pool = 5, 300, 200
    alpha = sequential.pair_alpha(0.05, systems)
    instance = rng.normal(1.5, 0.5, (campaigns, pool))
    scores = np.clip(np.rint(instance[:, None, :, None] + rng.normal(0, 0.8, (campaigns, systems, pool, 3))),
                     0, 3).mean(axis=-1)
    wrong = np.zeros(campaigns, dtype=bool)
    for a in range(systems):
        for b in range(a + 1, systems):
            lower, upper = sequential.difference_cs(scores[:, a] - scores[:, b], alpha, SEQUENTIAL_BET_TRUNCATION)
            wrong |= np.any((lower > 0) | (upper < 0), axis=1)
    assert wrong.mean() <= 0.05
