"""Soft pairwise accuracy's faster computation gives the figures of the code it replaced, float for float.

The reference below is the permutation test as it was computed before (kept here, slow: one row of summed
statistics per permutation and pair, scored by the score function, the swaps of every instance drawn by
``swap_signs``), with the loop of ``_soft_pairwise`` over the resamples. The new code reads only the drawn
instances' swaps (``drawn_swaps``), computes the ratio score (formula (1), means of segment scores) on the
swapped sums directly and scores a corpus metric's kept totals in one call: the same draws, the same
operations on the same floats, so every p-value, SPA and bootstrap value is equal, not close.
"""

import numpy as np
import pytest

from evalapp.compute import correlation_study as cs
from evalapp.compute import official_bleu, soft_pairwise
from evalapp.compute.soft_pairwise import TOLERANCE, Prepared, drawn_swaps, pairwise_p_values, swap_signs
from evalapp.metrics.sacrebleu_metrics import chrf_scores


def reference_p_values(stats, score, signs, counts=None):
    """The one-sided paired permutation test as computed before: every (permutation, pair) row scored."""
    array = np.asarray(stats, float)
    n_systems, n_instances, width = array.shape
    matrix = array.transpose(1, 0, 2).reshape(n_instances, -1)
    sign_rows = np.asarray(signs, float)
    weights = np.ones(n_instances) if counts is None else np.asarray(counts, float)
    totals = (weights @ matrix).reshape(n_systems, width)
    observed = np.asarray(score(totals), float)
    drawn = slice(None) if counts is None else np.flatnonzero(weights > 0)  # the drawn instances' product
    swapped = (sign_rows[:, drawn] @ matrix[drawn]).reshape(len(sign_rows), n_systems, width)
    first, second = np.triu_indices(n_systems, 1)
    half_sum = (totals[first] + totals[second]) / 2
    half_diff = (swapped[:, first] - swapped[:, second]) / 2
    keep_i = (half_sum[None] + half_diff).reshape(-1, width)
    keep_j = (half_sum[None] - half_diff).reshape(-1, width)
    delta = (np.asarray(score(keep_i), float) - np.asarray(score(keep_j), float)).reshape(len(sign_rows), -1)
    target = observed[first] - observed[second]
    slack = TOLERANCE * np.maximum(1.0, np.abs(target))
    with np.errstate(invalid="ignore"):
        reached = delta >= (target - slack)[None, :]
        defined = np.isfinite(delta)
    p = np.full((n_systems, n_systems), np.nan)
    counts_defined = defined.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p[first, second] = np.where(
            np.isfinite(target) & (counts_defined > 0),
            (reached & defined).sum(axis=0) / np.maximum(counts_defined, 1),
            np.nan,
        )
    return p


def reference_soft_pairwise(data, draws, seed, permutations, resamples, resample_permutations):
    """``_soft_pairwise`` as it was: swap_signs over every instance, each score set through the reference."""
    domains = sorted({cs.CAMPAIGN_DOMAIN} | {m.resampler.domain for m in data.metrics if m.resampler is not None})
    rngs = {
        domain: np.random.default_rng(np.random.SeedSequence([seed, cs.SPA_STREAM + position]))
        for position, domain in enumerate(domains)
    }
    sizes = cs._domain_sizes(data)
    signs = {
        domain: swap_signs(permutations, np.ones(sizes[domain], dtype=np.int64), rngs[domain]) for domain in domains
    }
    human_p = reference_p_values(data.human.stats, data.human.score, signs[cs.CAMPAIGN_DOMAIN])
    metrics = [(m.name, m.resampler) for m in data.metrics if m.resampler is not None]
    metric_p = {name: reference_p_values(r.stats, r.score, signs[r.domain]) for name, r in metrics}
    spa = {name: soft_pairwise.soft_pairwise_accuracy(human_p, metric_p[name]) for name, _ in metrics}
    boot = {name: [] for name, _ in metrics}
    for b in range(resamples):
        counts = {domain: draws[domain][1][b] for domain in domains}
        resample_signs = {domain: swap_signs(resample_permutations, counts[domain], rngs[domain]) for domain in domains}
        human_b = reference_p_values(
            data.human.stats, data.human.score, resample_signs[cs.CAMPAIGN_DOMAIN], counts[cs.CAMPAIGN_DOMAIN]
        )
        for name, r in metrics:
            metric_b = reference_p_values(r.stats, r.score, resample_signs[r.domain], counts[r.domain])
            boot[name].append(soft_pairwise.soft_pairwise_accuracy(human_b, metric_b))
    return spa, boot, human_p, metric_p


def ratio(summed):
    return cs._ratio(summed)


def bleu_stats(rng, n_systems, n_instances):
    words = "a the cat dog sun ice is on mat hot cold bark sat".split()
    refs = [[" ".join(rng.choice(words, int(rng.integers(3, 8)))) for _ in range(2)] for _ in range(n_instances)]
    outputs = [[" ".join(rng.choice(words, int(rng.integers(2, 9)))) for _ in refs] for _ in range(n_systems)]
    return np.array(
        [[official_bleu.segment_stats(h, r).as_row() for h, r in zip(system, refs)] for system in outputs], dtype=float
    )


def resample_counts(rng, n_instances, spread=1.0):
    """Draw counts with zeros (undrawn instances) and, with spread > 1, instances drawn more than 8 times."""
    weights = rng.random(n_instances) ** spread
    return rng.multinomial(n_instances, weights / weights.sum())


def ratings(rng, n_systems, n_instances, raters, missing):
    counts = rng.integers(1, raters + 1, (n_systems, n_instances)) if raters > 1 else np.ones((n_systems, n_instances))
    counts = np.where(rng.random(counts.shape) < missing, 0, counts)
    sums = np.array([[rng.integers(0, 4, int(c)).sum() for c in row] for row in counts], float)
    return np.stack([sums, counts.astype(float)], axis=-1)


def score_sets(rng, n_systems, n_instances):
    """(name, statistics, score, drawn from the ratio path or not) of every kind the report tests."""
    segment = rng.normal(0.5, 0.2, (n_systems, n_instances))
    with_missing = np.where(rng.random(segment.shape) < 0.15, np.nan, segment)
    chrf = rng.integers(0, 30, (n_systems, n_instances, 18)).astype(float)
    chrf[..., 2::3] = np.minimum(chrf[..., 2::3], chrf[..., 0::3])
    return [
        ("ratings, 3 each (equal denominators, ties)", ratings(rng, n_systems, n_instances, 1, 0.0) * [1, 3], ratio),
        ("ratings, 1 to 3 each and missing", ratings(rng, n_systems, n_instances, 3, 0.1), ratio),
        ("segment means", cs.Resampler.mean(segment, "campaign").stats, ratio),
        ("segment means, missing", cs.Resampler.mean(with_missing, "campaign").stats, ratio),
        ("segment means, tied", cs.Resampler.mean(np.round(segment, 1), "campaign").stats, ratio),
        ("official BLEU", bleu_stats(rng, n_systems, n_instances), official_bleu.bleu_from_totals_array),
        ("chrF", chrf, lambda rows: chrf_scores(rows, 6, 2.0)),
        ("fractional statistics", rng.normal(1, 1, (n_systems, n_instances, 3)), fractional_score),
    ]


def fractional_score(rows):
    """A score of fractional statistics that is no ratio: the generic path in float64."""
    return np.sin(rows[:, 0]) * rows[:, 1] - np.sqrt(np.abs(rows[:, 2]))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_systems", [1, 2, 5])
def test_p_values_equal_the_reference(seed, n_systems):
    rng = np.random.default_rng(seed)
    n_instances = 40
    for name, stats, score in score_sets(rng, n_systems, n_instances):
        for counts in (None, resample_counts(rng, n_instances), resample_counts(rng, n_instances, spread=12)):
            copies = np.ones(n_instances, dtype=np.int64) if counts is None else counts
            signs = swap_signs(60, copies, np.random.default_rng(seed + 100))
            expected = reference_p_values(stats, score, signs, counts)
            found = pairwise_p_values(stats, score, signs, counts)
            np.testing.assert_array_equal(found, expected, err_msg=name)
            if score is ratio:  # the ratio path, on the drawn instances' swaps
                drawn = None if counts is None else np.flatnonzero(copies > 0)
                drawn_signs = signs if drawn is None else signs[:, drawn]
                weights = None if counts is None else np.asarray(counts, float)
                by_ratio = soft_pairwise.drawn_p_values(Prepared(stats), None, drawn_signs, drawn, weights)
                np.testing.assert_array_equal(by_ratio, expected, err_msg=name)


def test_p_values_with_zero_weights_everywhere_and_a_system_without_counts():
    rng = np.random.default_rng(8)
    stats = ratings(rng, 4, 30, 3, 0.0)
    stats[2, :, :] = 0.0  # a system with no rating at all: its score and its pairs' p-values undefined
    counts = np.zeros(30, dtype=np.int64)
    counts[[3, 7]] = [2, 1]
    signs = swap_signs(50, counts, rng)
    expected = reference_p_values(stats, ratio, signs, counts)
    np.testing.assert_array_equal(pairwise_p_values(stats, ratio, signs, counts), expected)
    drawn = np.flatnonzero(counts > 0)
    found = soft_pairwise.drawn_p_values(Prepared(stats), None, signs[:, drawn], drawn, counts.astype(float))
    np.testing.assert_array_equal(found, expected)
    assert np.isnan(found[0, 2]) and np.isnan(found[2, 3]) and np.isfinite(found[0, 1])


def test_equal_denominators_are_recognised_only_where_they_hold():
    rng = np.random.default_rng(2)
    assert Prepared(ratings(rng, 3, 20, 1, 0.0) * [1, 3]).equal_denominators
    assert Prepared(cs.Resampler.mean(rng.random((3, 20)), "campaign").stats).equal_denominators
    assert not Prepared(ratings(rng, 3, 20, 3, 0.0)).equal_denominators  # counts differ between systems
    with_missing = np.where(rng.random((3, 20)) < 0.2, np.nan, rng.random((3, 20)))
    assert not Prepared(cs.Resampler.mean(with_missing, "campaign").stats).equal_denominators
    assert not Prepared(rng.integers(0, 5, (3, 20, 10)).astype(float)).equal_denominators


@pytest.mark.parametrize(
    "copies",
    [np.ones(50, dtype=np.int64), np.array([0, 1, 2, 3, 9, 0, 8, 12, 1, 0] * 5), np.zeros(50, dtype=np.int64)],
)
def test_drawn_swaps_are_swap_signs_of_the_drawn_instances(copies):
    """The same totals from the same draws, and the generator left where swap_signs leaves it."""
    ours, theirs = np.random.default_rng(4), np.random.default_rng(4)
    drawn, signs = drawn_swaps(300, copies, ours)
    full = swap_signs(300, copies, theirs)
    np.testing.assert_array_equal(drawn, np.flatnonzero(copies > 0))
    np.testing.assert_array_equal(signs, full[:, drawn])
    assert ours.integers(0, 2**62) == theirs.integers(0, 2**62)


def study(rng, n_systems, n_instances):
    human = ratings(rng, n_systems, n_instances, 3, 0.05)
    segment = rng.normal(0.5, 0.2, (n_systems, n_instances)) + 0.02 * human[..., 0]
    metrics = [
        cs.MetricData(
            "bleu",
            np.zeros(n_systems),
            cs.Resampler("campaign", bleu_stats(rng, n_systems, n_instances), official_bleu.bleu_from_totals_array),
        ),
        cs.MetricData("seg", np.zeros(n_systems), cs.Resampler.mean(segment, "campaign"), segment),
        cs.MetricData(
            "seg-missing",
            np.zeros(n_systems),
            cs.Resampler.mean(np.where(rng.random(segment.shape) < 0.1, np.nan, segment), "campaign"),
        ),
        cs.MetricData("system-only", np.arange(n_systems, dtype=float)),
    ]
    return cs.StudyData([f"s{i}" for i in range(n_systems)], cs.Resampler("campaign", human, cs._ratio), metrics)


@pytest.mark.parametrize("seed", [0, 1])
def test_soft_pairwise_and_its_bootstrap_equal_the_reference(seed):
    rng = np.random.default_rng(seed)
    data = study(rng, 6, 50)
    draws = cs._domain_draws(cs._domain_sizes(data), 12, seed)
    spa, details = cs._soft_pairwise(data, draws, seed, 120, 12, 40, lambda fraction, detail: None)
    expected, boot, human_p, metric_p = reference_soft_pairwise(data, draws, seed, 120, 12, 40)
    assert set(spa) == set(expected) == {"bleu", "seg", "seg-missing"}
    for name, (value, samples) in spa.items():
        assert value == expected[name] or (np.isnan(value) and np.isnan(expected[name]))
        np.testing.assert_array_equal(samples, np.asarray(boot[name]))
    first, second = np.triu_indices(6, 1)
    for pair, i, j in zip(details["pairs"], first, second):
        assert pair["p_human"] == human_p[i, j]
        assert pair["p_metrics"] == {name: p[i, j] for name, p in metric_p.items()}
