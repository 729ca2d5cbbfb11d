"""Formula (1), ranks, bootstrap and significance: hand-computed cases and reference implementations."""

import numpy as np
import pytest
from scipy import stats

from evalapp.compute import bootstrap, significance
from evalapp.compute.human_score import RatingRecords, score_matrix, system_scores
from evalapp.compute.ranks import competition_ranks, display

TOLERANCE = 1e-9


def records(rows):
    return RatingRecords.from_tuples(rows)


def test_formula_1_is_the_sum_over_n_times_m_when_complete():
    # N=2 instances, M=3 raters: (3+2+2 + 1+1+0) / (2*3) = 9/6.
    rows = [("a", "S", r, s) for r, s in zip("xyz", (3, 2, 2))] + [("b", "S", r, s) for r, s in zip("xyz", (1, 1, 0))]
    score = system_scores(records(rows), n_instances=2, raters_per_item=3)["S"]
    assert score.human == 9 / 6 and score.ratings == score.expected_ratings == 6 and score.complete


def test_incomplete_system_gets_mean_over_present_ratings_and_is_marked():
    rows = [("a", "S", "x", 3), ("a", "S", "y", 3), ("b", "S", "x", 1)]
    score = system_scores(records(rows), n_instances=2, raters_per_item=3)["S"]
    # Not (3+3+1)/6 = 1.17 as if complete: the mean of the 3 ratings present, flagged.
    assert score.human == pytest.approx(7 / 3) and not score.complete and score.coverage == 0.5


def test_system_without_ratings_is_listed_with_no_score():
    scores = system_scores(records([("a", "S", "x", 2)]), 1, 1, systems=["T", "S"])
    assert list(scores) == ["T", "S"]
    assert scores["T"].human is None and scores["T"].ratings == 0 and not scores["T"].complete


def test_contradicting_records_are_refused():
    with pytest.raises(ValueError, match="at most 1"):
        system_scores(records([("a", "S", "x", 2), ("a", "S", "y", 2)]), 1, 1)
    with pytest.raises(ValueError, match="samples 1"):
        system_scores(records([("a", "S", "x", 2), ("b", "S", "x", 2)]), 1, 1)


def test_score_matrix_sums_and_counts_per_cell():
    matrix = score_matrix(records([("a", "S", 1, 3), ("a", "S", 2, 1), ("b", "T", 1, 2)]), ["S", "T"], ["a", "b", "c"])
    assert matrix.sums.tolist() == [[4, 0, 0], [0, 2, 0]]
    assert matrix.counts.tolist() == [[2, 0, 0], [0, 1, 0]]


@pytest.mark.parametrize(
    "values, digits, expected",
    [
        ([2.10, 2.08, 1.94, 1.84, 1.84, 1.80], 2, [1, 2, 3, 4, 4, 6]),
        ([1.8433, 1.8367, 1.75], 2, [1, 1, 3]),  # both show 1.84
        ([22.44, 22.36, None, 19.3], 1, [1, 1, None, 3]),
        ([1.845, 1.84], 2, [1, 2]),  # 1.845 shows as 1.85 (half-up), not 1.84
    ],
)
def test_competition_ranks_on_displayed_values(values, digits, expected):
    assert competition_ranks(values, digits) == expected


def test_display_rounds_half_up_and_shows_missing():
    assert display(1.845, 2) == "1.85" and display(22.0695, 1) == "22.1" and display(None, 1) == "-"


def test_bootstrap_is_reproducible_from_its_seed_and_brackets_the_estimate():
    rng = np.random.default_rng(0)
    counts = np.full((3, 50), 3)
    sums = rng.integers(0, 10, size=(3, 50))
    first = bootstrap.ratio_intervals(sums, counts, 400, seed=5)
    again = bootstrap.ratio_intervals(sums, counts, 400, seed=5)
    other = bootstrap.ratio_intervals(sums, counts, 400, seed=6)
    assert first == again and first != other
    for k, interval in enumerate(first):
        assert interval.low <= sums[k].sum() / counts[k].sum() <= interval.high


def test_bootstrap_equals_a_plain_loop_over_resamples():
    sums = np.array([[3.0, 6.0, 1.0, 9.0, 4.0]])
    counts = np.array([[3.0, 3.0, 1.0, 3.0, 2.0]])
    indices = bootstrap.resample_indices(5, 300, seed=3)
    expected = [sums[0, idx].sum() / counts[0, idx].sum() for idx in indices]
    low, high = np.percentile(expected, [2.5, 97.5])
    interval = bootstrap.ratio_intervals(sums, counts, 300, seed=3)[0]
    assert (interval.low, interval.high) == pytest.approx((low, high), abs=TOLERANCE)


def test_exact_permutation_pvalue_equals_scipy():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 4, 10).astype(float), rng.integers(0, 4, 10).astype(float)
    b[:3] = a[:3] - 1
    ours = significance.paired_permutation_pvalues(a - b, permutations=2**10)[0]
    reference = stats.permutation_test(
        (a, b), lambda x, y: np.mean(x - y), permutation_type="samples", n_resamples=np.inf, alternative="two-sided"
    ).pvalue
    assert ours == pytest.approx(reference, abs=TOLERANCE)


def test_randomised_pvalue_is_seeded_and_missing_instances_are_ignored():
    d = np.array([1.0, 0.5, 1.0, np.nan, 0.3, 1.0, 0.7, 0.2, 1.0, 0.9, 0.4, 0.8, 1.0, 0.6, 0.5, 1.0])
    p1 = significance.paired_permutation_pvalues(d, permutations=999, seed=4)
    p2 = significance.paired_permutation_pvalues(d, permutations=999, seed=4)
    assert p1 == p2 and p1[0] == pytest.approx(1 / 1000)  # all differences positive: only the identity


def test_holm_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests

    pvalues = np.array([0.01, 0.04, 0.03, 0.2, 0.005])
    assert significance.holm(pvalues) == pytest.approx(multipletests(pvalues, method="holm")[1], abs=TOLERANCE)


def test_clusters_split_only_where_everyone_above_beats_everyone_below():
    comparisons = [
        significance.Comparison(b, w, 1.0, 0.0, 0.0, True)
        for b, w in [("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]
    ]
    comparisons.append(significance.Comparison("A", "B", 0.1, 0.5, 0.5, False))
    assert significance.clusters(["A", "B", "C", "D"], comparisons) == [1, 1, 2, 3]
    # B not beating C keeps A, B, C together although A beats C.
    weaker = [c for c in comparisons if (c.better, c.worse) != ("B", "C")]
    assert significance.clusters(["A", "B", "C", "D"], weaker) == [1, 1, 1, 2]


def test_clearly_different_systems_fall_in_different_clusters():
    rng = np.random.default_rng(2)
    means = np.vstack([np.clip(rng.normal(mu, 0.3, 100), 0, 3) for mu in (2.5, 2.45, 1.0)])
    comparisons = significance.compare_systems(["A", "B", "C"], means, permutations=2000, seed=1)
    assert significance.clusters(["A", "B", "C"], comparisons) == [1, 1, 2]


@pytest.mark.parametrize("missing_share", [0.0, 0.1])
def test_all_pairs_give_the_direct_permutation_test_of_each_difference(missing_share):
    """The per-system projection shortcut must give exactly the p-values of testing each pair's differences."""
    rng = np.random.default_rng(7)
    raters = 5
    means = rng.integers(0, 3 * raters + 1, size=(12, 60)) / raters
    means[3] = means[2]  # an exact tie: statistic 0
    means[5] = np.roll(means[4], 1)  # same total as system 4 on other instances: a statistic of rounding noise
    means[rng.random(means.shape) < missing_share] = np.nan
    names = [f"s{k}" for k in range(len(means))]
    pairs = [(a, b) for a in range(len(means)) for b in range(a + 1, len(means))]
    comparisons = significance.compare_systems(names, means, permutations=999, seed=3)
    direct = significance.paired_permutation_pvalues(np.array([means[a] - means[b] for a, b in pairs]), 999, 3)
    assert [c.p_value for c in comparisons] == direct.tolist()
    expected_deltas = [abs(np.nanmean(means[a] - means[b])) for a, b in pairs]
    assert [c.difference for c in comparisons] == expected_deltas
