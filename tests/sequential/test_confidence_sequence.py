"""The confidence sequence of evalapp/compute/sequential.py: against a literal restatement of the paper's
formulas, on hand-made sequences, and its coverage over repeated looks by simulation (with rater effects,
pools rated in full)."""

import math

import numpy as np
import pytest
from scipy import stats

from core.defaults import SEQUENTIAL_BET_TRUNCATION
from evalapp.compute import sequential


def literal_hedged_capital(xs, m, alpha, c, theta=0.5):
    """Waudby-Smith and Ramdas (JRSS B 2024), Theorem 3 with the bets of eq. (26), one step at a time, as
    printed: the hedged capital K_t(m) = max(theta K+_t(m), (1 - theta) K-_t(m)) after each observation."""
    capitals = []
    k_plus = k_minus = 1.0
    total = total_sq = 0.0
    sigma2_previous = 0.25  # sigma2_hat_0
    for t, x in enumerate(xs, start=1):
        lam = math.sqrt(2 * math.log(2 / alpha) / (sigma2_previous * t * math.log(1 + t)))
        lam_plus = min(lam, c / m) if m > 0 else lam
        lam_minus = min(lam, c / (1 - m)) if m < 1 else lam
        k_plus *= 1 + lam_plus * (x - m)
        k_minus *= 1 - lam_minus * (x - m)
        capitals.append(max(theta * k_plus, (1 - theta) * k_minus))
        total += x
        mu_hat = (0.5 + total) / (t + 1)
        total_sq += (x - mu_hat) ** 2
        sigma2_previous = (0.25 + total_sq) / (t + 1)
    return np.array(capitals)


@pytest.mark.parametrize("alpha", [0.05, 0.05 / 45, 0.2])
@pytest.mark.parametrize("m", [0.1, 0.45, 0.5, 0.62, 0.97])
def test_capital_equals_the_literal_formulas(alpha, m):
    rng = np.random.default_rng(1)
    xs = rng.integers(0, 7, 300) / 6
    bets = sequential.predictable_bets(xs, alpha)
    up, down = sequential.log_capital(xs, m, bets, SEQUENTIAL_BET_TRUNCATION)
    hedged = np.maximum(0.5 * np.exp(up), 0.5 * np.exp(down))
    np.testing.assert_allclose(hedged, literal_hedged_capital(list(xs), m, alpha, SEQUENTIAL_BET_TRUNCATION), rtol=1e-9)


def test_first_bet_by_hand():
    # t = 1: lambda_1 = sqrt(2 log(2/alpha) / (1/4 * 1 * log 2)); for m = 0.5, c = 0.5 it is truncated at 1.
    bets = sequential.predictable_bets([1.0, 0.0], 0.05)
    assert bets[0] == pytest.approx(math.sqrt(2 * math.log(40) / (0.25 * math.log(2))))
    up, down = sequential.log_capital([1.0], 0.5, bets[:1], 0.5)
    assert np.exp(up[0]) == pytest.approx(1 + 1.0 * 0.5) and np.exp(down[0]) == pytest.approx(1 - 1.0 * 0.5)


def test_bounds_are_where_the_running_capital_crosses_one_over_alpha():
    rng = np.random.default_rng(3)
    d = np.clip(np.rint(rng.normal(0.4, 0.8, 200)), -3, 3)
    lower, upper = sequential.difference_cs(d, 0.01, 0.5)
    assert -3 < lower < d.mean() < upper < 3
    x = sequential.to_unit(d)
    step = 1e-4
    for bound, side in ((lower, 0), (upper, 1)):
        inside = sequential.to_unit(bound + (step if side == 0 else -step))
        outside = sequential.to_unit(bound - (step if side == 0 else -step))
        assert not sequential.rejected(x, inside, 0.01, 0.5)[side][-1]
        assert sequential.rejected(x, outside, 0.01, 0.5)[side][-1]
    # The running intersection: the interval of a prefix contains the interval of the whole.
    early_low, early_high = sequential.difference_cs(d[:50], 0.01, 0.5)
    assert early_low <= lower and upper <= early_high


def test_decisions_vectorised_over_campaigns_equal_one_by_one():
    rng = np.random.default_rng(2)
    d = np.clip(np.rint(rng.normal(0.3, 0.7, (6, 150))), -3, 3)
    first, second, tie = sequential.decisions_over_time(d, 0.01, 0.5, 0.1)
    for row in range(6):
        one = sequential.decisions_over_time(d[row], 0.01, 0.5, 0.1)
        np.testing.assert_array_equal(first[row], one[0])
        np.testing.assert_array_equal(tie[row], one[2])
        low, high = sequential.difference_cs(d[row], 0.01, 0.5)
        assert first[row][-1] == (low > 0) or abs(low) < 1e-5


@pytest.mark.parametrize(
    "lower,upper,margin,want",
    [
        (0.01, 0.5, 0.1, "better"),
        (-0.5, -0.01, 0.1, "better"),
        (-0.05, 0.05, 0.1, "tie"),
        (-0.1, 0.05, 0.1, "open"),
        (-0.2, 0.3, 0.1, "open"),
        (0.0, 0.3, 0.1, "open"),
        (0.02, 0.08, 0.1, "better"),
        (-0.09, 0.0999, 0.1, "tie"),
        (-3.0, 3.0, 0.1, "open"),
    ],
)
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
    tie = sequential.pair_decision("A", "B", [2, 1] * 200, [2, 1] * 200, 0.05, 0.5, 0.1)
    assert tie.decision == "tie" and -0.1 < tie.lower <= 0 <= tie.upper < 0.1
    assert sequential.pair_decision("A", "B", [2, 1] * 5, [2, 1] * 5, 0.05, 0.5, 0.1).decision == "open"


def _decision(a, b, decision):
    return sequential.PairDecision(a, b, 0.5, 0.1, 0.9, decision, 10)


def test_settled_directly_and_by_transitivity():
    order = ["A", "B", "C"]
    direct = {
        frozenset("AB"): _decision("A", "B", "better"),
        frozenset("BC"): _decision("B", "C", "tie"),
        frozenset("AC"): _decision("A", "C", "open"),
    }
    assert sequential.adjacent_pairs_decided(order, direct)
    # B-C open, but B > D > C: decided through D.
    order = ["A", "B", "D", "C"]
    chain = {
        frozenset("AB"): _decision("A", "B", "better"),
        frozenset("BC"): _decision("B", "C", "open"),
        frozenset("BD"): _decision("B", "D", "better"),
        frozenset("DC"): _decision("D", "C", "better"),
    }
    assert sequential.adjacent_pairs_decided(["A", "B", "C"], chain)
    # Ties do not chain: B ~ D and D ~ C leave B-C open.
    ties = {
        frozenset("AB"): _decision("A", "B", "better"),
        frozenset("BC"): _decision("B", "C", "open"),
        frozenset("BD"): _decision("B", "D", "tie"),
        frozenset("DC"): _decision("D", "C", "tie"),
    }
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
        latent = mean[..., None] + np.take_along_axis(
            severity[:, None, :], who.reshape(campaigns, -1)[:, None, :], axis=2
        ).reshape(campaigns, pool, raters)
        return np.clip(np.rint(latent + rng.normal(0, noise_sd, latent.shape)), 0, 3).mean(axis=-1)

    d = scores(base + delta / 2) - scores(base - delta / 2)
    # The target: the expected D(i), averaged over raters and noise, per campaign's pool.
    draws = 40
    expected = np.mean([scores(base + delta / 2) - scores(base - delta / 2) for _ in range(draws)], axis=0)
    target = expected.mean(axis=1)
    order = np.argsort(rng.random((campaigns, pool)), axis=1)
    return np.take_along_axis(d, order, axis=1), target, draws


def _ever_missed(d, target, alpha):
    """Per campaign: whether the target ever left the running interval (over every look)."""
    below, above = sequential.rejected(
        sequential.to_unit(d), sequential.to_unit(target)[:, None], alpha, SEQUENTIAL_BET_TRUNCATION
    )
    return below[:, -1] | above[:, -1]


def test_coverage_over_repeated_looks_with_rater_effects_on_full_pools():
    """2,000 campaigns of 150 instances, each looked at after every instance up to the full pool: the
    share in which the target ever leaves the interval stays below alpha (Clopper-Pearson lower bound)."""
    rng = np.random.default_rng(23)
    alpha = 0.1
    d, target, draws = _campaigns(rng, 2000, 150, 0.3, 0.5, 0.3, 0.7)
    # The target is known only to Monte-Carlo precision (noise sd / sqrt(draws * pool)): move it towards
    # the observed mean by that much, which can only make a miss rarer to count.
    slack = 3 * 1.0 / math.sqrt(draws * 150)
    shrunk = target + np.clip(d.mean(axis=1) - target, -slack, slack)
    missed = _ever_missed(d, shrunk, alpha)
    low_bound = stats.binomtest(int(missed.sum()), missed.size).proportion_ci(0.95, method="exact").low
    assert low_bound < alpha, missed.mean()


def test_a_fully_rated_pool_does_not_make_a_noisy_difference_certain():
    """Two systems equal on every instance, rated by noisy raters: after the whole pool the interval still
    holds 0 in (about) every campaign and keeps a width of the noise's order, where the without-replacement
    correction would have shrunk it to the observed mean."""
    rng = np.random.default_rng(5)
    d, _, _ = _campaigns(rng, 300, 100, 0.0, 0.4, 0.3, 0.8)
    bounds = np.array([sequential.difference_cs(row, 0.05, SEQUENTIAL_BET_TRUNCATION) for row in d])
    assert np.mean((bounds[:, 0] <= 0) & (bounds[:, 1] >= 0)) >= 0.99
    noise = d.std(axis=1).mean() / math.sqrt(100)
    assert np.all(bounds[:, 1] - bounds[:, 0] > 2 * noise)
    # The observed mean of the full pool misses 0 by more than 1.5 noise units in about 13% of campaigns:
    # an interval of zero width there would be wrong that often.
    assert np.mean(np.abs(d.mean(axis=1)) > 1.5 * noise) > 0.05


def test_five_equal_systems_show_no_better_over_repeated_looks():
    rng = np.random.default_rng(11)
    systems, campaigns, pool = 5, 300, 200
    alpha = sequential.pair_alpha(0.05, systems)
    instance = rng.normal(1.5, 0.5, (campaigns, pool))
    scores = np.clip(
        np.rint(instance[:, None, :, None] + rng.normal(0, 0.8, (campaigns, systems, pool, 3))), 0, 3
    ).mean(axis=-1)
    wrong = np.zeros(campaigns, dtype=bool)
    for a in range(systems):
        for b in range(a + 1, systems):
            first, second, _ = sequential.decisions_over_time(
                scores[:, a] - scores[:, b], alpha, SEQUENTIAL_BET_TRUNCATION, 0.1
            )
            wrong |= first[:, -1] | second[:, -1]
    assert wrong.mean() <= 0.05
