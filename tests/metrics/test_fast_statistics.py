"""The vectorised statistics of the metric study equal the one-at-a-time definitions (issue 22).

Each fast path is held to the slow one it replaced, on the same random numbers: the permutation
tests give the same p-values, the bootstrap's system-level coefficients the same values (up to
rounding), and the Kendall taus scipy's.
"""

import numpy as np
import pytest
from scipy import stats

from evalapp.compute import correlation as corr
from evalapp.compute.correlation_study import _system_samples


def _direct_permutation_p(a, b, human, name, resamples, seed):
    """The permutation test as it was written before: every swapped row built and correlated (on the same
    coin flips; their distribution against the former flips' is tests/metrics/test_permutation_flips.py)."""
    observed = corr.coefficient_value(name, a, human) - corr.coefficient_value(name, b, human)
    rng = np.random.default_rng(seed)
    za, zb = corr.standardize(a), corr.standardize(b)
    swaps = corr.coin_flips(rng, resamples, len(a))
    left, right = np.where(swaps, zb, za), np.where(swaps, za, zb)
    if name == "pearson":
        deltas = corr._rowwise_pearson(left, human) - corr._rowwise_pearson(right, human)
    else:
        deltas = np.array(
            [
                corr.coefficient_value(name, left[i], human) - corr.coefficient_value(name, right[i], human)
                for i in range(resamples)
            ]
        )
    extreme = np.count_nonzero(np.abs(deltas) >= abs(observed) - 1e-12 * max(1.0, abs(observed)))
    return (1 + extreme) / (1 + resamples)


@pytest.mark.parametrize("n", [4, 5, 17, 60, 3000])
@pytest.mark.parametrize("seed", range(3))
def test_permutation_p_values_are_the_direct_ones(n, seed):
    rng = np.random.default_rng(seed)
    human = np.round(rng.normal(2, 0.7, n) * 3) / 3  # few distinct values, as mean ratings
    a = human + rng.normal(0, 1, n)
    b = np.round(human + rng.normal(0, 1.3, n), 1)  # ties in one metric
    for name in ("pearson", "kendall_b"):
        found = corr.paired_permutation_test(a, b, human, name, 500, np.random.default_rng(seed + 10))
        assert found["p"] == _direct_permutation_p(a, b, human, name, 500, seed + 10)


@pytest.mark.parametrize("seed", range(4))
def test_segment_kendall_permutation_p_values_are_the_direct_ones_with_heavy_ties(seed):
    """Beyond the system level, Kendall's permutation test counts S_left - S_right as a linear form in the
    swaps and the ties of each row from the candidates' groups of equal values; a metric with many
    ties (a BLEU of zero, rounded scores) makes the two rows' tau-b denominators differ, and rows near
    the threshold are computed directly: the p-value is the row-by-row loop's in every case."""
    rng = np.random.default_rng(seed)
    n = 1500
    human = np.round(rng.normal(2, 0.7, n) * 3) / 3
    close = human + rng.normal(0, 1, n)
    cases = [
        (np.round(close), np.round(human + rng.normal(0, 1.3, n), 1)),  # ties on both sides
        (np.maximum(close - 1.5, 0), close),  # a third of the outputs score 0
        (close, close + rng.normal(0, 0.02, n)),  # nearly the same metric: p near 1
        (close, np.clip(human + rng.normal(0, 0.3, n), 0, 3)),  # clearly different: p = 1 / (1 + resamples)
    ]
    for a, b in cases:
        found = corr.paired_permutation_test(a, b, human, "kendall_b", 200, np.random.default_rng(seed + 3))
        assert found["p"] == _direct_permutation_p(a, b, human, "kendall_b", 200, seed + 3)


def _tied_pairs(values):
    _, sizes = np.unique(values, return_counts=True)
    return float((sizes * (sizes - 1) / 2).sum())


@pytest.mark.parametrize("tied", [False, True])
def test_swapped_kendall_deltas_equal_scipy_row_by_row(tied):
    """Without ties the linear form is the difference itself; with ties it is within the bracket that
    |tau| <= 1 gives around the unknown S_left + S_right, (d_l + d_r) |d_r - d_l| / (2 d_l d_r)."""
    rng = np.random.default_rng(9)
    n = 400
    human = rng.integers(0, 10, n) / 3
    a = human + rng.normal(0, 1, n)
    b = np.maximum(human + rng.normal(0, 1, n) - 1, 0) if tied else human + rng.normal(0, 1.5, n)
    za, zb = corr.standardize(a), corr.standardize(b)
    swaps = rng.random((60, n)) < 0.5
    found = corr._swapped_kendall_deltas(za, zb, human, swaps, threshold=10.0)  # no row near: all by the linear form
    pairs = n * (n - 1) / 2
    for i, row in enumerate(swaps):
        left, right = np.where(row, zb, za), np.where(row, za, zb)
        expected = stats.kendalltau(left, human).statistic - stats.kendalltau(right, human).statistic
        d_left, d_right = np.sqrt(pairs - _tied_pairs(left)), np.sqrt(pairs - _tied_pairs(right))
        assert (d_left != d_right) == tied
        width = (d_left + d_right) * abs(d_right - d_left) / (2 * d_left * d_right)
        assert abs(found[i] - expected) <= width + 1e-12


def test_permutation_of_a_metric_with_itself_and_its_copy():
    rng = np.random.default_rng(4)
    human = rng.normal(size=17)
    a = human + rng.normal(0, 0.5, 17)
    for b in (a, a.copy(), a * 2 + 1):  # identical after standardising: every swap gives delta 0
        for name in ("pearson", "kendall_b"):
            found = corr.paired_permutation_test(a, b, human, name, 300, np.random.default_rng(1))
            assert found["p"] == _direct_permutation_p(a, b, human, name, 300, 1)


@pytest.mark.parametrize("variant", ["b", "c"])
def test_rowwise_kendall_equals_scipy(variant):
    rng = np.random.default_rng(7)
    rows = rng.integers(0, 5, (200, 12)).astype(float)  # many ties
    y = rng.integers(0, 4, (200, 12)).astype(float)
    rows[3] = 1.0  # a constant row: undefined
    found = corr.rowwise_kendall(rows, y, variant)
    for i in range(len(rows)):
        if np.ptp(rows[i]) == 0 or np.ptp(y[i]) == 0:
            assert np.isnan(found[i])
        else:
            assert found[i] == pytest.approx(stats.kendalltau(rows[i], y[i], variant=variant).statistic, abs=1e-12)


@pytest.mark.parametrize("name", corr.COEFFICIENTS)
def test_rowwise_coefficients_equal_one_pair_at_a_time(name):
    rng = np.random.default_rng(11)
    x = np.round(rng.normal(size=(300, 17)), 1)
    y = np.round(x * 0.5 + rng.normal(size=(300, 17)), 1)
    x[5] = 2.0
    found = corr.rowwise_coefficient(name, x, y)
    expected = np.array([corr.coefficient_value(name, x[i], y[i]) for i in range(len(x))])
    assert np.isnan(found[5]) and np.isnan(expected[5])
    np.testing.assert_allclose(found, expected, rtol=0, atol=1e-12)


def test_system_samples_leave_out_missing_systems_as_before():
    rng = np.random.default_rng(2)
    scores = rng.normal(size=(50, 9))
    human = scores + rng.normal(size=(50, 9))
    scores[::7, 2] = np.nan  # a resample where a system has no score
    human[3, 4] = np.nan
    found = _system_samples(scores, human)
    for name in corr.COEFFICIENTS:
        for b in range(50):
            keep = np.isfinite(scores[b]) & np.isfinite(human[b])
            expected = corr.coefficient_value(name, scores[b][keep], human[b][keep])
            assert found[name][b] == pytest.approx(expected, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("name", ["pearson", "spearman", "kendall_b"])
def test_flattened_coefficients_of_resamples_are_those_of_the_repeated_points(name):
    from evalapp.compute.correlation_study import FlattenedPoints

    rng = np.random.default_rng(5)
    n_systems, n_instances = 6, 40
    human = np.round(rng.normal(2, 0.8, (n_systems, n_instances)) * 3) / 3
    metric = np.round(human + rng.normal(0, 1, human.shape), 1)  # ties on both sides
    metric[rng.random(human.shape) < 0.1] = np.nan  # missing outputs
    keep = np.isfinite(metric)
    instances = np.broadcast_to(np.arange(n_instances), human.shape)[keep]
    flat = FlattenedPoints(metric[keep], human[keep], instances)
    draws = rng.integers(0, n_instances, (30, n_instances))
    draws[0] = 3  # one instance drawn 40 times
    counts = np.stack([np.bincount(row, minlength=n_instances) for row in draws])
    found = flat.coefficient_many(name, counts)
    for b, columns in enumerate(draws):
        m, h = metric[:, columns], human[:, columns]
        present = np.isfinite(m)
        expected = corr.coefficient_value(name, m[present], h[present])
        assert found[b] == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_flattened_kendall_of_resamples_over_many_chunks_and_a_large_tie():
    """Enough points for the pair matrix to be cut into several chunks, one of them a single block of equal
    scores (a BLEU of zero), and human scores with few levels."""
    from evalapp.compute import correlation_study
    from evalapp.compute.correlation_study import FlattenedPoints

    rng = np.random.default_rng(8)
    n_systems, n_instances = 9, 150
    human = rng.integers(0, 10, (n_systems, n_instances)) / 3
    metric = np.maximum(human + rng.normal(0, 1, human.shape) - 1, 0)  # about a third exactly 0
    metric[rng.random(human.shape) < 0.05] = np.nan
    keep = np.isfinite(metric)
    instances = np.broadcast_to(np.arange(n_instances), human.shape)[keep]
    assert keep.sum() > 3 * correlation_study.KENDALL_CHUNK
    flat = FlattenedPoints(metric[keep], human[keep], instances)
    draws = rng.integers(0, n_instances, (12, n_instances))
    counts = np.stack([np.bincount(row, minlength=n_instances) for row in draws])
    found = flat.coefficient_many("kendall_b", counts)
    for b, columns in enumerate(draws):
        m, h = metric[:, columns], human[:, columns]
        present = np.isfinite(m)
        assert found[b] == pytest.approx(stats.kendalltau(m[present], h[present]).statistic, abs=1e-12)


def test_grouped_and_wmt_samples_are_the_mean_over_the_drawn_instances():
    from evalapp.compute.correlation_study import _grouped_samples

    rng = np.random.default_rng(3)
    n_instances = 30
    grouped = {name: rng.normal(size=n_instances) for name in corr.SEGMENT_COEFFICIENTS}
    grouped["spearman"][[2, 5]] = np.nan  # undefined for two instances
    pairs = rng.integers(0, 20, (n_instances, 2))
    draws = rng.integers(0, n_instances, (25, n_instances))
    draws[0] = 2  # only an undefined instance drawn
    counts = np.stack([np.bincount(row, minlength=n_instances) for row in draws])
    bucket = {}
    _grouped_samples({"grouped": grouped, "pairs": pairs}, counts, bucket)
    for b, columns in enumerate(draws):
        for name in corr.SEGMENT_COEFFICIENTS:
            values = grouped[name][columns]
            values = values[np.isfinite(values)]
            expected = values.mean() if len(values) else np.nan
            assert bucket[("grouped_by_instance", name)][b] == pytest.approx(expected, abs=1e-12, nan_ok=True)
        concordant, discordant = pairs[columns].sum(axis=0)
        assert bucket[("wmt_kendall", None)][b] == pytest.approx(corr.tau_from_counts(concordant, discordant))


@pytest.mark.parametrize("name", corr.SEGMENT_COEFFICIENTS)
def test_per_group_values_equal_the_group_by_group_loop(name):
    """Groups of unequal sizes (missing outputs), in order of first appearance, one constant group."""
    rng = np.random.default_rng(12)
    groups = rng.integers(0, 40, 500) * 7 + 3
    human = rng.integers(0, 10, 500) / 3
    metric = np.round(human + rng.normal(0, 1, 500), 1)
    metric[groups == groups[0]] = 1.0
    found = corr.per_group_values(name, metric, human, groups)
    _, first = np.unique(groups, return_index=True)
    keys = groups[np.sort(first)]
    expected = [corr.coefficient_value(name, metric[groups == key], human[groups == key]) for key in keys]
    np.testing.assert_allclose(found, expected, rtol=0, atol=1e-12)
    assert np.isnan(found[0])
    pairs = corr.wmt_pair_counts(metric, human, groups)
    for slot, key in enumerate(keys):
        m, h = metric[groups == key], human[groups == key]
        first_i, second_i = np.triu_indices(len(m), 1)
        differ = h[first_i] != h[second_i]
        agree = np.sign(h[first_i] - h[second_i]) == np.sign(m[first_i] - m[second_i])
        assert list(pairs[slot]) == [int((agree & differ).sum()), int((~agree & differ).sum())]


def test_swaps_of_resampled_instances_are_binomial():
    """The bits of a random byte give 2 Binomial(c, 1/2) - c for c up to 8 copies (NumPy's binomial beyond):
    every total's frequency is the binomial's within 4 standard errors."""
    from scipy.stats import binom

    from evalapp.compute.soft_pairwise import swap_signs

    counts = np.arange(0, 12)
    signs = swap_signs(40_000, counts, np.random.default_rng(5))
    for column, c in enumerate(counts):
        heads = (signs[:, column] + c) / 2
        assert np.all(heads == np.round(heads)) and heads.min() >= 0 and heads.max() <= c
        for k in range(c + 1):
            expected = binom.pmf(k, c, 0.5)
            found = np.mean(heads == k)
            assert abs(found - expected) <= 4 * np.sqrt(expected * (1 - expected) / len(signs)) + 1e-12


def test_integer_statistics_in_float32_give_the_float64_products():
    from evalapp.compute.soft_pairwise import Prepared, swap_signs

    rng = np.random.default_rng(6)
    stats = rng.integers(0, 40, (5, 300, 4)).astype(float)
    prepared = Prepared(stats)
    assert prepared.matrix32 is not None
    counts = np.bincount(rng.integers(0, 300, 300), minlength=300)
    signs = swap_signs(50, counts, rng)
    drawn = np.flatnonzero(counts > 0)
    assert np.array_equal(prepared.swapped(signs[:, drawn], drawn), signs @ prepared.matrix)
    assert Prepared(stats + 0.5).matrix32 is None  # fractional statistics stay in float64


def test_flat_accuracy_of_every_resample_equals_one_at_a_time():
    """acc_eq's bootstrap values at the full sample's epsilon, all resamples at once, equal flat_accuracy_at's."""
    from evalapp.compute import tie_calibration
    from evalapp.compute.correlation_study import _flat_accuracy_many

    rng = np.random.default_rng(13)
    n_systems, n_instances = 7, 90
    human = rng.integers(0, 10, (n_systems, n_instances)) / 3
    metric = np.round(human + rng.normal(0, 1, human.shape), 1)  # ties within and across levels
    human[rng.random(human.shape) < 0.1] = np.nan
    flat = tie_calibration.FlatPairs(human, metric)
    epsilon = tie_calibration.flat_accuracy(human, metric).epsilon
    counts = np.stack(
        [np.bincount(rng.integers(0, n_instances, n_instances), minlength=n_instances) for _ in range(30)]
    )
    counts[0] = 0
    counts[0, 4] = 1  # one output drawn once per system: fewer than two outputs for no system, but one instance
    found = _flat_accuracy_many(flat, epsilon, counts)
    for b, row in enumerate(counts):
        expected = tie_calibration.flat_accuracy_at(flat, epsilon, np.tile(row, n_systems)[flat.keep])
        assert found[b] == pytest.approx(expected, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("name", ["pearson", "spearman", "kendall_b"])
@pytest.mark.parametrize("case", ["continuous", "tied", "one_system", "constant_human"])
def test_flattened_coefficients_of_resamples_equal_scipy_on_the_repeated_points_in_edge_cases(case, name):
    """Spearman's rho over resamples in integer arithmetic (doubled centred ranks, closed-form sums of
    squares with the copies of a drawn point tied), Pearson's and Kendall's equal SciPy's on the repeated
    points, with and without ties among distinct scores, with one system, with an instance without any
    point, and undefined where a side is constant."""
    from evalapp.compute.correlation_study import FlattenedPoints

    reference = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall_b": stats.kendalltau}[name]
    rng = np.random.default_rng(12)
    n_systems, n_instances = (1, 60) if case == "one_system" else (5, 40)
    human = np.round(rng.normal(2, 0.8, (n_systems, n_instances)) * 3) / 3
    metric = human + rng.normal(0, 1, human.shape)  # distinct scores
    if case == "tied":
        metric = np.maximum(np.round(metric), 0)
    if case == "constant_human":
        human[:, :20] = 2.0
    metric[rng.random(human.shape) < 0.1] = np.nan
    metric[:, -1] = np.nan  # the last instance has no point: the counts are wider than the points
    keep = np.isfinite(metric)
    instances = np.broadcast_to(np.arange(n_instances), human.shape)[keep]
    flat = FlattenedPoints(metric[keep], human[keep], instances)
    draws = rng.integers(0, n_instances, (40, n_instances))
    draws[0] = 3  # one instance drawn every time: with one system, a single point repeated
    draws[1] = rng.integers(0, 20, n_instances)  # for constant_human: only the constant instances
    draws[2, : n_instances - 1] = n_instances - 1  # mostly the instance without points
    counts = np.stack([np.bincount(row, minlength=n_instances) for row in draws])
    found = flat.coefficient_many(name, counts)
    for b, columns in enumerate(draws):
        m, h = metric[:, columns], human[:, columns]
        present = np.isfinite(m)
        if present.sum() < 2 or np.ptp(m[present]) == 0 or np.ptp(h[present]) == 0:
            assert np.isnan(found[b])
        else:
            assert found[b] == pytest.approx(reference(m[present], h[present]).statistic, abs=1e-13)
    assert np.isnan(found[0]) == (case in ("one_system", "constant_human"))
    assert np.isnan(found[1]) == (case == "constant_human")


def _kendall_swap_weights_by_search(za, zb, levels):
    """The swap weights as first written: two binary searches per human score level and candidate."""
    twice_g = np.zeros(len(za))
    for values in (za, zb):
        for level in range(int(levels.max()) + 1):
            ordered = np.sort(values[levels == level])
            direction = np.sign(levels - level)
            for query, sign in ((zb, 1.0), (za, -1.0)):
                below = np.searchsorted(ordered, query, side="left")
                above = len(ordered) - np.searchsorted(ordered, query, side="right")
                twice_g += sign * direction * (below - above)
    return twice_g


@pytest.mark.parametrize("seed", range(6))
def test_kendall_swap_weights_from_running_counts_equal_the_binary_searches(seed):
    """Ties within and across the two metrics, one human score level or many, a metric equal to the other."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    levels = rng.integers(0, [1, 2, 5, 12, 12, 30][seed], n)
    levels = np.unique(levels, return_inverse=True)[1].ravel()
    za = np.round(rng.normal(size=n), seed % 3)
    zb = za.copy() if seed == 4 else np.round(rng.normal(size=n), 1)
    zb[: n // 4] = za[: n // 4]  # some points score alike on both metrics
    found = corr._kendall_swap_weights(za, zb, levels)
    assert np.array_equal(found, _kendall_swap_weights_by_search(za, zb, levels))


@pytest.mark.parametrize("tied", [False, True])
def test_flattened_spearman_in_floats_beyond_exact_cubes_is_the_integer_one(monkeypatch, tied):
    """Past CUBES_EXACT points a resample's sums of squares are rounded floats (int64 cubes would overflow):
    the same coefficients to rounding, and still undefined where every drawn score is equal."""
    from evalapp.compute import correlation_study
    from evalapp.compute.correlation_study import FlattenedPoints

    rng = np.random.default_rng(4)
    human = np.round(rng.normal(2, 0.8, (3, 30)) * 3) / 3
    human[:, 0] = 1.0
    metric = human + rng.normal(0, 1, human.shape)
    metric[:, 0] = 0.5  # instance 0 alone: both sides constant
    if tied:
        metric = np.round(metric)
    instances = np.broadcast_to(np.arange(30), human.shape).ravel()
    draws = rng.integers(0, 30, (20, 30))
    draws[0] = 0
    counts = np.stack([np.bincount(row, minlength=30) for row in draws])
    exact = FlattenedPoints(metric.ravel(), human.ravel(), instances).coefficient_many("spearman", counts)
    monkeypatch.setattr(correlation_study, "CUBES_EXACT", 1)
    rounded = FlattenedPoints(metric.ravel(), human.ravel(), instances).coefficient_many("spearman", counts)
    assert np.isnan(exact[0]) and np.isnan(rounded[0])
    np.testing.assert_allclose(rounded, exact, rtol=0, atol=1e-13)
