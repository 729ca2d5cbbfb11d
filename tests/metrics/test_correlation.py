"""evalapp.compute.correlation against SciPy and hand-worked examples."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from evalapp.compute import correlation as corr

RNG_SEED = 7


@pytest.fixture
def tied_pair():
    rng = np.random.default_rng(RNG_SEED)
    human = rng.integers(0, 4, 40).astype(float)  # 0-3 ratings: many ties
    metric = human + rng.normal(0, 1.2, 40)
    metric[:5] = metric[5]  # ties in the metric too
    return metric, human


def test_coefficients_equal_scipy(tied_pair):
    x, y = tied_pair
    assert corr.pearson(x, y)["r"] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    assert corr.pearson(x, y)["p"] == pytest.approx(stats.pearsonr(x, y).pvalue, rel=1e-9)
    assert corr.spearman(x, y)["r"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert corr.spearman(x, y)["p"] == pytest.approx(stats.spearmanr(x, y).pvalue, rel=1e-9)
    for variant in "bc":
        expected = stats.kendalltau(x, y, variant=variant)
        got = corr.kendall(x, y, variant)
        assert got["r"] == pytest.approx(expected.statistic, abs=1e-12)
        assert got["p"] == pytest.approx(expected.pvalue, rel=1e-9)


def test_fast_coefficient_values_equal_scipy(tied_pair):
    x, y = tied_pair
    assert corr.coefficient_value("pearson", x, y) == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    assert corr.coefficient_value("spearman", x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    for n in (7, 17, len(x)):  # the all-pairs path for small n
        for variant in "bc":
            assert corr.coefficient_value(f"kendall_{variant}", x[:n], y[:n]) == pytest.approx(
                stats.kendalltau(x[:n], y[:n], variant=variant).statistic, abs=1e-12
            )
    big_x, big_y = np.tile(x, 3) + np.arange(3 * len(x)) * 1e-3, np.tile(y, 3)
    assert corr.coefficient_value("kendall_b", big_x, big_y) == pytest.approx(
        stats.kendalltau(big_x, big_y).statistic, abs=1e-12
    )


def test_tau_c_differs_from_tau_b_on_a_rectangular_table():
    x = [1, 1, 2, 2, 3, 3, 4, 4]
    y = [0, 1, 0, 1, 1, 1, 0, 1]
    assert corr.kendall(x, y, "b")["r"] != pytest.approx(corr.kendall(x, y, "c")["r"])


def test_fisher_interval_by_hand():
    r, n = 0.6, 19
    half = 1.959963984540054 / math.sqrt(n - 3)  # z_{0.975} / sqrt(n - 3)
    low, high = corr.fisher_interval(r, n)
    assert low == pytest.approx(math.tanh(math.atanh(0.6) - half))
    assert high == pytest.approx(math.tanh(math.atanh(0.6) + half))
    assert low == pytest.approx(0.2004, abs=1e-4) and high == pytest.approx(0.8284, abs=1e-4)
    assert all(math.isnan(v) for v in corr.fisher_interval(r, 3))


@pytest.mark.parametrize("name", corr.COEFFICIENTS)
def test_constant_vector_gives_nan_without_warnings(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = corr.coefficient(name, [1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0])
        assert math.isnan(result["r"]) and math.isnan(result["p"])
        assert math.isnan(corr.coefficient_value(name, [5.0] * 4, [1.0, 2.0, 3.0, 4.0]))
        assert math.isnan(corr.coefficient(name, [1.0], [2.0])["r"])


def test_williams_test_hand_worked_example():
    # r12 = corr(human, A) = 0.8, r13 = corr(human, B) = 0.6, r23 = corr(A, B) = 0.5, n = 20.
    # |R| = 1 - 0.64 - 0.36 - 0.25 + 2 * 0.8 * 0.6 * 0.5 = 0.23
    # numerator   = (0.8 - 0.6) * sqrt(19 * 1.5) = 0.2 * 5.338539 = 1.0677078
    # denominator = sqrt(2 * 19 / 17 * 0.23 + (1.4 / 2)^2 * 0.5^3) = sqrt(0.5141176 + 0.06125) = 0.7585299
    # t = 1.4076 with 17 degrees of freedom; one-sided p = P(T_17 > 1.4076)
    result = corr.williams_test(0.8, 0.6, 0.5, 20)
    assert result["t"] == pytest.approx(1.0677078 / 0.7585299, rel=1e-6)
    assert result["t"] == pytest.approx(1.4076, abs=1e-4)
    assert result["df"] == 17
    assert result["p"] == pytest.approx(stats.t.sf(1.4076, 17), abs=1e-4)
    assert 0.08 < result["p"] < 0.09


def test_williams_test_is_antisymmetric_and_zero_for_equal_correlations():
    assert corr.williams_test(0.7, 0.7, 0.9, 30)["t"] == 0
    forward, backward = corr.williams_test(0.8, 0.6, 0.5, 20), corr.williams_test(0.6, 0.8, 0.5, 20)
    assert forward["t"] == pytest.approx(-backward["t"])
    assert forward["p"] + backward["p"] == pytest.approx(1.0)
    assert math.isnan(corr.williams_test(0.8, 0.6, 0.5, 3)["t"])


def test_wmt_kendall_like_by_hand():
    # instance a: human 3 > 1 > 0; metric orders (s1, s2) right, (s1, s3) right, (s2, s3) tied -> discordant
    # instance b: human 2 = 2 (pair skipped), 2 > 1: metric says 0.1 < 0.5 -> two discordant pairs
    human = [3, 1, 0, 2, 2, 1]
    metric = [0.9, 0.4, 0.4, 0.1, 0.3, 0.5]
    groups = ["a", "a", "a", "b", "b", "b"]
    result = corr.wmt_kendall_like(metric, human, groups)
    assert (result["concordant"], result["discordant"]) == (2, 3)
    assert result["r"] == pytest.approx((2 - 3) / 5)


def test_grouped_correlation_is_the_mean_of_defined_groups():
    metric = [1, 2, 3, 3, 2, 1, 5, 6, 7]
    human = [1, 2, 4, 1, 2, 3, 2, 2, 2]  # group c has constant human scores: undefined
    groups = ["a"] * 3 + ["b"] * 3 + ["c"] * 3
    result = corr.grouped("pearson", metric, human, groups)
    expected_a = stats.pearsonr([1, 2, 3], [1, 2, 4]).statistic
    assert result["r"] == pytest.approx((expected_a - 1.0) / 2)  # group b is exactly reversed: -1
    assert (result["groups_used"], result["groups_undefined"]) == (2, 1)


def test_permutation_test():
    rng = np.random.default_rng(RNG_SEED)
    human = rng.normal(size=60)
    good, bad = human + rng.normal(0, 0.3, 60), rng.normal(size=60)
    same = corr.paired_permutation_test(good, good, human, "pearson", 200, np.random.default_rng(1))
    assert same["delta"] == 0 and same["p"] == 1.0
    clear = corr.paired_permutation_test(good, bad, human, "pearson", 200, np.random.default_rng(1))
    assert clear["delta"] > 0.5 and clear["p"] == pytest.approx(1 / 201)
    kendall = corr.paired_permutation_test(good, bad, human, "kendall_b", 50, np.random.default_rng(1))
    assert kendall["p"] == pytest.approx(1 / 51)
    again = corr.paired_permutation_test(good, bad, human, "pearson", 200, np.random.default_rng(1))
    assert again == clear


def test_rowwise_pearson_matches_numpy():
    rng = np.random.default_rng(RNG_SEED)
    rows, y = rng.normal(size=(5, 12)), rng.normal(size=12)
    expected = [np.corrcoef(row, y)[0, 1] for row in rows]
    assert np.allclose(corr._rowwise_pearson(rows, y), expected)


def test_top_k_breaks_ties_by_name():
    assert corr.top_k(["b", "a", "c", "d"], [2.0, 2.0, 3.0, 1.0], 2) == ["c", "a"]
