"""acc_eq's fast bootstrap (issue 22) against the definitions it replaces: the grouped search's chunked
branch and bound against the running sum over every pair for every resample, and the flattened
accuracy's quadratic form in the draw counts against the counting of every resample one by one.
Same values (grouped: to float rounding; flattened: exactly) and the same epsilons."""

import itertools
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from bench import acc_eq_bench
from evalapp.compute import correlation_study, tie_calibration
from evalapp.compute.correlation_study import _flat_accuracy_many
from evalapp.compute.tie_calibration import FlatPairs, GroupedPairs, flat_accuracy, flat_accuracy_at
from tests.conftest import REPO
from tests.metrics.real_ratings import butfit_scores

BENCH_SMOKE_TIMEOUT_SECONDS = 300


def reference_optimise_many(pairs, weights):
    """The grouped search as it was before issue 22: a running sum over every pair, for every resample."""
    if weights is None:
        weights = np.ones((1, pairs.n_instances))
    weights = np.where(pairs.groups, np.asarray(weights, np.float64), 0.0)
    total = weights.sum(axis=1)
    values = np.full(len(weights), np.nan)
    epsilons = np.full(len(weights), np.nan)
    if not pairs.pairs:
        return values, epsilons
    per_pair = np.zeros(pairs.n_instances)
    per_pair[pairs.groups] = 1.0 / pairs.pairs_per_group[pairs.groups]
    step = pairs.flip * per_pair[pairs.group]
    curve = np.cumsum(step[None, :] * weights[:, pairs.group], axis=1)[:, pairs.ends]
    base = weights @ (pairs.agree_per_group * per_pair)
    candidates = np.concatenate([base[:, None], base[:, None] + curve], axis=1)
    ok = total > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        candidates = candidates / np.where(ok, total, 1.0)[:, None]
    best = candidates.max(axis=1)
    reached = candidates >= best[:, None] - tie_calibration.RELATIVE_TOLERANCE * np.maximum(1.0, np.abs(best[:, None]))
    index = reached.argmax(axis=1)
    thresholds = np.concatenate([[0.0], pairs.thresholds])
    values = np.where(ok, candidates[np.arange(len(weights)), index], np.nan)
    epsilons = np.where(ok, thresholds[index], np.nan)
    return values, epsilons


def bootstrap_counts(rng, n_instances, resamples):
    return np.stack(
        [np.bincount(rng.integers(0, n_instances, n_instances), minlength=n_instances) for _ in range(resamples)]
    )


def assert_same_search(human, metric, weights):
    pairs = GroupedPairs(human, metric)
    values, epsilons = pairs.optimise_many(weights)
    expected_values, expected_epsilons = reference_optimise_many(pairs, weights)
    np.testing.assert_allclose(values, expected_values, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(epsilons, expected_epsilons)
    return values, epsilons


def random_scores(rng, n_systems, n_instances, decimals, missing):
    human = rng.integers(0, 4, (n_systems, n_instances)).astype(float)
    metric = np.round(human * 0.3 + rng.normal(size=human.shape), decimals)
    human[rng.random(human.shape) < missing] = np.nan
    metric[rng.random(human.shape) < missing / 2] = np.nan
    return human, metric


@pytest.mark.parametrize("chunks", [1, 3, 128])
@pytest.mark.parametrize("seed", range(6))
def test_grouped_search_equals_the_running_sum(seed, chunks, monkeypatch):
    """Random scores with many ties (metric rounded to 0-2 decimals), missing scores, bootstrap counts
    and fractional weights; one chunk (everything enumerated), a few, and the default number."""
    monkeypatch.setattr(tie_calibration, "CHUNKS", chunks)
    rng = np.random.default_rng(seed)
    n_systems, n_instances = int(rng.integers(2, 9)), int(rng.integers(5, 120))
    human, metric = random_scores(rng, n_systems, n_instances, seed % 3, missing=0.15)
    counts = bootstrap_counts(rng, n_instances, 60)
    counts[0] = 0  # nothing drawn: no value
    values, _ = assert_same_search(human, metric, counts)
    assert np.isnan(values[0]) and np.isfinite(values[1:]).any()
    assert_same_search(human, metric, rng.random((20, n_instances)) * (rng.random((20, n_instances)) < 0.7))
    assert_same_search(human, metric, None)


def test_grouped_search_with_groups_without_pairs_and_zero_weights():
    rng = np.random.default_rng(11)
    human, metric = random_scores(rng, 5, 40, 1, missing=0.0)
    human[1:, :10] = np.nan  # instances 0-9: one output, no pair
    counts = bootstrap_counts(rng, 40, 50)
    counts[1] = 0
    counts[1, :10] = 3  # only instances without a pair drawn: no value
    counts[2] = 0
    counts[2, 17] = 5  # a single instance drawn
    values, epsilons = assert_same_search(human, metric, counts)
    assert np.isnan(values[1]) and np.isnan(epsilons[1]) and np.isfinite(values[2])


def test_grouped_search_with_one_system_or_constant_scores():
    rng = np.random.default_rng(12)
    human, metric = random_scores(rng, 1, 30, 1, missing=0.0)
    values, epsilons = GroupedPairs(human, metric).optimise_many(bootstrap_counts(rng, 30, 5))
    assert np.isnan(values).all() and np.isnan(epsilons).all()  # one system: no pair at all
    human, metric = random_scores(rng, 4, 30, 1, missing=0.0)
    values, epsilons = assert_same_search(human, np.ones_like(metric), bootstrap_counts(rng, 30, 20))
    assert (epsilons == 0.0).all()  # one threshold only
    assert_same_search(np.ones_like(human), metric, bootstrap_counts(rng, 30, 20))  # humans tie every pair


def test_grouped_search_finds_the_first_of_equal_maxima():
    """Two thresholds with the same value: the smaller is reported, as the exhaustive search does."""
    human = np.array([[1.0, 1.0], [1.0, 2.0], [2.0, 1.0]])
    metric = np.array([[0.0, 0.0], [0.5, 0.3], [0.4, 0.9]])
    pairs = GroupedPairs(human, metric)
    weights = np.array([[1.0, 1.0], [2.0, 1.0], [0.0, 1.0]])
    values, epsilons = pairs.optimise_many(weights)
    expected_values, expected_epsilons = reference_optimise_many(pairs, weights)
    np.testing.assert_allclose(values, expected_values, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(epsilons, expected_epsilons)


def literal_grouped_fraction(human, metric, weights, epsilon):
    """The grouped accuracy at ``epsilon`` with group weights, as an exact fraction, pair by pair."""
    numerator, total = Fraction(0), 0
    for g, weight in enumerate(weights):
        pairs = agree = 0
        for a, b in itertools.combinations(range(human.shape[0]), 2):
            h1, h2, m1, m2 = human[a, g], human[b, g], metric[a, g], metric[b, g]
            if np.isnan([h1, h2, m1, m2]).any():
                continue
            pairs += 1
            agree += bool(h1 == h2) if abs(m1 - m2) <= epsilon else bool(np.sign(h1 - h2) == np.sign(m1 - m2))
        if pairs:
            numerator += Fraction(int(weight) * agree, pairs)
            total += int(weight)
    return numerator / total


@pytest.mark.parametrize("seed", range(4))
def test_grouped_values_are_the_fractions_correctly_rounded(seed):
    """With integer weights every value is one division of integers: the float nearest the exact fraction, so
    equal fractions (two resamples, two metrics) are equal floats whatever order their pairs were summed in."""
    rng = np.random.default_rng(60 + seed)
    human, metric = random_scores(rng, int(rng.integers(2, 7)), 25, seed % 3, missing=0.15)
    counts = bootstrap_counts(rng, 25, 15)
    values, epsilons = GroupedPairs(human, metric).optimise_many(counts)
    checked = 0
    for row, value, epsilon in zip(counts, values, epsilons):
        if np.isfinite(value):
            assert value == float(literal_grouped_fraction(human, metric, row, epsilon))
            checked += 1
    assert checked >= 10


def assert_flat_resamples_exact(human, metric, counts, epsilons):
    flat = FlatPairs(human, metric)
    for epsilon in epsilons:
        found = _flat_accuracy_many(flat, epsilon, counts)
        for b, row in enumerate(counts):
            expected = flat_accuracy_at(flat, epsilon, np.tile(row, human.shape[0])[flat.keep])
            assert found[b] == expected or (np.isnan(found[b]) and np.isnan(expected)), (epsilon, b)


@pytest.mark.parametrize("single", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_flat_resamples_equal_the_counts_one_by_one_exactly(seed, single, monkeypatch):
    """The quadratic form's integers are the counts of every resample, bit for bit; small partner chunks
    make most partners counted through the chunk sums, large ones one by one; its product in float32
    (small sums) and in float64."""
    monkeypatch.setattr(tie_calibration, "PARTNER_CHUNK", [1, 4, 32, 1000][seed])
    if not single:
        monkeypatch.setattr(correlation_study, "SINGLE_PRECISION_EXACT", 0.0)
    rng = np.random.default_rng(20 + seed)
    n_systems, n_instances = int(rng.integers(1, 8)), int(rng.integers(3, 60))
    human, metric = random_scores(rng, n_systems, n_instances, seed % 3, missing=0.1)
    counts = bootstrap_counts(rng, n_instances, 25)
    counts[0] = 0
    counts[1] = 0
    counts[1, 0] = 1  # one instance drawn once
    epsilon = flat_accuracy(human, metric).epsilon
    finite = metric[np.isfinite(metric)]
    assert_flat_resamples_exact(human, metric, counts, [0.0, 0.1, abs(finite[0] - finite[-1]), 100.0, epsilon])


@pytest.mark.parametrize("single", [True, False])
def test_flat_resamples_exact_with_large_sums(single, monkeypatch):
    """Sums of the product well above what float16 holds exactly (2,048): float32 below 2^24, and float64."""
    if not single:
        monkeypatch.setattr(correlation_study, "SINGLE_PRECISION_EXACT", 0.0)
    rng = np.random.default_rng(70)
    human, metric = random_scores(rng, 8, 400, 2, missing=0.0)
    counts = bootstrap_counts(rng, 400, 4)
    counts[0, 5] = 40  # one instance drawn very often
    flat = FlatPairs(human, metric)
    matrix = flat.agreement_matrix(0.1, np.flatnonzero(flat.keep) % 400, 400)
    assert (counts @ matrix).max() > 10_000
    assert_flat_resamples_exact(human, metric, counts, [0.1])


def test_flat_agreement_matrix_counts_every_pair_of_outputs():
    """The matrix against a listing of every pair of outputs, by their instances."""
    rng = np.random.default_rng(30)
    human, metric = random_scores(rng, 6, 25, 1, missing=0.1)
    flat = FlatPairs(human, metric)
    groups = np.flatnonzero(flat.keep) % 25
    h, m = human.ravel()[flat.keep], metric.ravel()[flat.keep]
    for epsilon in (0.0, 0.3, 1.0):
        expected = np.zeros((25, 25))
        for p in range(len(h)):
            for q in range(p + 1, len(h)):
                tied = abs(m[p] - m[q]) <= epsilon
                if (h[p] == h[q]) if tied else (np.sign(h[p] - h[q]) == np.sign(m[p] - m[q])):
                    expected[groups[p], groups[q]] += 1
        found = flat.agreement_matrix(epsilon, groups, 25)
        np.testing.assert_array_equal(found + found.T, expected + expected.T)  # each pair once, in either cell
        assert found.sum() == flat.agreement([epsilon])[0]


@pytest.mark.shared
def test_acc_eq_resamples_on_the_real_ratings():
    """The real 0-3 ratings of four systems on 100 test instances, with sentence BLEU (many zeros) and chrF."""
    from sacrebleu.metrics import BLEU, CHRF

    sentence_bleu, sentence_chrf = BLEU(), CHRF()
    human, (bleu, chrf) = butfit_scores(
        lambda reason, references: sentence_bleu.sentence_score(reason, references).score,
        lambda reason, references: sentence_chrf.sentence_score(reason, references).score,
    )
    assert len(np.unique(bleu)) < 0.9 * bleu.size  # a BLEU-like metric: tied zeros and hundreds
    counts = bootstrap_counts(np.random.default_rng(2020), human.shape[1], 200)
    for metric in (bleu, chrf):
        assert_same_search(human, metric, counts)
        assert_flat_resamples_exact(human, metric, counts[:40], [flat_accuracy(human, metric).epsilon])


def set_cuts(monkeypatch, cut):
    """The flattened search's cutting (first bins, bins per cut, events listed, depth); None: the defaults."""
    for name, value in zip(("FIRST_BINS", "SPLIT_BINS", "ENUMERATED_EVENTS", "MAX_DEPTH"), cut or ()):
        monkeypatch.setattr(tie_calibration, name, value)


def exhaustive_flat_search(human, metric):
    """Every pair of outputs listed, sorted by metric difference, swept: (agreeing pairs, first best threshold)."""
    keep = np.isfinite(human) & np.isfinite(metric)
    h, m = human[keep], metric[keep]
    first, second = np.triu_indices(len(h), 1)
    dh, dm = h[first] - h[second], m[first] - m[second]
    diff = np.abs(dm)
    agree = np.where(diff == 0, dh == 0, np.sign(dh) == np.sign(dm))
    flip = (dh == 0).astype(np.int64) - agree
    order = np.argsort(diff, kind="stable")
    diff, flip = diff[order], flip[order]
    ends = np.r_[diff[1:] != diff[:-1], True]
    curve = np.r_[agree.sum(), agree.sum() + np.cumsum(flip)[ends]]
    thresholds = np.r_[0.0, diff[ends]]
    best = int(np.argmax(curve))
    return int(curve[best]), float(thresholds[best])


@pytest.mark.parametrize("cut", [None, (2, 2, 50, 30), (3, 4, 500, 3), (8, 2, 0, 4)])
@pytest.mark.parametrize("seed", range(5))
def test_flat_search_by_cutting_bins_equals_the_exhaustive_sweep(seed, cut, monkeypatch):
    """The flattened search's bins cut again where the maximum can be: with the defaults, and with tiny
    bins cut many times (few events listed per bin, deep cuts, every bin swept) so every path is taken."""
    set_cuts(monkeypatch, cut)
    rng = np.random.default_rng(40 + seed)
    n = int(rng.integers(50, 700))
    human = rng.integers(0, [2, 4, 10, 3, 6][seed], n).astype(float)
    noise = [0.05, 0.5, 2.0, 0.3, 1.0][seed]
    metric = np.round(human * 0.3 + rng.normal(0, noise, n), [3, 1, 2, 0, 6][seed])
    human[rng.random(n) < 0.05] = np.nan
    pairs = FlatPairs(human, metric)
    assert pairs.optimise() == exhaustive_flat_search(human, metric)


@pytest.mark.parametrize("cut", [(2, 2, 1, 30), None])
def test_flat_search_on_many_small_integer_cases(cut, monkeypatch):
    """Small integer scores: equal values at many thresholds, so the first threshold reaching the maximum
    is often inside a bin whose bound only equals the best value found at a later boundary."""
    set_cuts(monkeypatch, cut)
    rng = np.random.default_rng(50)
    for _ in range(300):
        n = int(rng.integers(2, 14))
        human = rng.integers(0, 3, n).astype(float)
        metric = rng.integers(0, 6, n).astype(float)
        assert FlatPairs(human, metric).optimise() == exhaustive_flat_search(human, metric), (human, metric)


def test_acc_eq_bench_smoke():
    """A tiny run of bench/acc_eq_bench.py against main before this change: it runs, and both codes agree."""
    baseline = acc_eq_bench.DEFAULT_BASELINE
    known = subprocess.run(["git", "cat-file", "-e", f"{baseline}^{{commit}}"], cwd=REPO, capture_output=True)
    if known.returncode != 0:
        pytest.skip(f"the baseline revision {baseline} is not in this clone")
    result = subprocess.run(
        [sys.executable, "bench/acc_eq_bench.py", "--systems", "4", "--instances", "30", "--resamples", "20"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=BENCH_SMOKE_TIMEOUT_SECONDS,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "acc_eq in all" in result.stdout
    tail = result.stdout.split("largest differences")[1].splitlines()[1:]
    differences = dict(line.strip().rsplit(": ", 1) for line in tail)
    assert len(differences) == 7 and all(float(value) <= 1e-12 for value in differences.values()), result.stdout
