"""The WMT metrics tasks' statistics against hand-computed figures, scipy identities, literal
pair-by-pair restatements of mt-metrics-eval's definitions (KendallVariants acc23,
KendallWithTiesOpt with sample_rate=1.0, pce) and the shared real ratings."""

import itertools

import numpy as np
import pytest
from scipy import stats as scipy_stats

from evalapp.compute import official_bleu
from evalapp.compute.meta_evaluation import pairwise_accuracy, pairwise_accuracy_many
from evalapp.compute.metric_ranking import assign_ranks, rank_metrics
from evalapp.compute.soft_pairwise import pairwise_p_values, soft_pairwise_accuracy, swap_signs
from evalapp.compute.tie_calibration import (
    FlatPairs,
    GroupedPairs,
    flat_accuracy,
    flat_accuracy_at,
    grouped_accuracy,
)
from tests.metrics.real_ratings import butfit_scores

# --- literal restatements (written from the papers' and mt-metrics-eval's definitions) -----


def literal_acc23(human, metric):
    """KendallVariants(variant='acc23', epsilon=0): (concordant + tied in both) / pairs, pair by pair."""
    agree = pairs = 0
    for (h1, m1), (h2, m2) in itertools.combinations(zip(human, metric), 2):
        pairs += 1
        if h1 == h2 and m1 == m2:
            agree += 1
        elif h1 != h2 and m1 != m2 and (h1 > h2) == (m1 > m2):
            agree += 1
    return agree / pairs


def literal_acc_eq(human_rows, metric_rows):
    """tau_optimization(acc_23, sample_rate=1.0): every pair as an object, sorted, flipped one by one."""
    pairs, rows = [], set()
    for row, (h, m) in enumerate(zip(human_rows, metric_rows)):
        kept = [(a, b) for a, b in zip(h, m) if a is not None and b is not None]
        for i in range(len(kept)):
            for j in range(i + 1, len(kept)):
                (h1, m1), (h2, m2) = kept[i], kept[j]
                if h1 == h2 and m1 == m2:
                    kind = "tb"
                elif h1 == h2:
                    kind = "th"
                elif m1 == m2:
                    kind = "tm"
                elif (h1 > h2 and m1 > m2) or (h1 < h2 and m1 < m2):
                    kind = "c"
                else:
                    kind = "d"
                pairs.append((abs(m1 - m2), kind, "tb" if h1 == h2 else "tm", row))
                rows.add(row)
    counts = {r: dict.fromkeys(("c", "d", "th", "tm", "tb"), 0) for r in rows}
    for _, kind, _, r in pairs:
        counts[r][kind] += 1

    def acc(c):
        return (c["c"] + c["tb"]) / sum(c.values())

    total = sum(acc(c) for c in counts.values())
    thresholds, taus = [0.0], [total / len(rows)]
    for diff, kind, tie, r in sorted(pairs, key=lambda p: p[0]):
        total -= acc(counts[r])
        counts[r][kind] -= 1
        counts[r][tie] += 1
        total += acc(counts[r])
        if thresholds[-1] == diff:
            taus[-1] = total / len(rows)
        else:
            thresholds.append(diff)
            taus.append(total / len(rows))
    best = int(np.nanargmax(taus))
    return taus[best], thresholds[best], dict(zip(thresholds, taus))


def literal_p_values(seg_scores, signs):
    """pce.compute_pairwise_p_values with a given sign matrix: sums of segment scores, swapped."""
    n = seg_scores.shape[0]
    p = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i + 1, n):
            hits = 0
            for row in signs:
                keep = row > 0
                a = np.where(keep, seg_scores[i], seg_scores[j]).sum()
                b = np.where(keep, seg_scores[j], seg_scores[i]).sum()
                hits += (a - b) >= (seg_scores[i].sum() - seg_scores[j].sum()) - 1e-9
            p[i, j] = hits / len(signs)
    return p


def mean_stats(values):
    """Per-segment (value, 1) statistics whose summed ratio is the mean, as Resampler.mean makes them."""
    values = np.asarray(values, float)
    return np.stack([values, np.ones_like(values)], axis=-1)


def ratio(summed):
    return summed[:, 0] / summed[:, 1]


def random_with_ties(rng, n_systems, n_instances, missing=0.1):
    human = rng.integers(0, 4, (n_systems, n_instances)).astype(float) / rng.integers(1, 3)
    metric = np.round(rng.normal(size=(n_systems, n_instances)), int(rng.integers(0, 2)))
    human[rng.random(human.shape) < missing] = np.nan
    return human, metric


def rows_of(matrix_h, matrix_m):
    """mt-metrics-eval's average_by='item' rows: one per instance, None for a missing human score."""
    return (
        [[None if np.isnan(v) else float(v) for v in matrix_h[:, i]] for i in range(matrix_h.shape[1])],
        [[float(v) for v in matrix_m[:, i]] for i in range(matrix_m.shape[1])],
    )


# --- pairwise accuracy -------------------------------------------------------------------


def test_pairwise_accuracy_by_hand():
    # pairs: AB both ordered A>B (agree); AC human tie, metric not (disagree); AD agree;
    # BC agree; BD metric tie, human not (disagree); CD agree
    human = [3.0, 2.0, 3.0, 1.0]
    metric = [0.9, 0.5, 0.7, 0.5]
    assert pairwise_accuracy(human, metric) == pytest.approx(4 / 6, abs=1e-15)
    assert pairwise_accuracy([1.0, 1.0], [2.0, 2.0]) == 1.0  # tied in both: agreement
    assert np.isnan(pairwise_accuracy([1.0], [2.0]))


def test_tie_free_pairwise_accuracy_is_one_plus_kendall_tau_over_two():
    rng = np.random.default_rng(7)
    for _ in range(50):
        human, metric = rng.normal(size=9), rng.normal(size=9)
        tau = scipy_stats.kendalltau(human, metric).statistic
        assert pairwise_accuracy(human, metric) == pytest.approx((1 + tau) / 2, abs=1e-12)


def test_pairwise_accuracy_equals_acc23_with_ties_and_is_vectorised():
    rng = np.random.default_rng(8)
    rows_h, rows_m = [], []
    for _ in range(40):
        human, metric = rng.integers(0, 3, 7).astype(float), rng.integers(0, 3, 7).astype(float)
        assert pairwise_accuracy(human, metric) == pytest.approx(literal_acc23(human, metric), abs=1e-15)
        rows_h.append(human)
        rows_m.append(metric)
    many = pairwise_accuracy_many(np.array(rows_h), np.array(rows_m))
    assert many == pytest.approx([literal_acc23(h, m) for h, m in zip(rows_h, rows_m)], abs=1e-15)


# --- acc_eq ----------------------------------------------------------------------------------


def test_acc_eq_by_hand():
    # the human tie (a, b) agrees once the metric ties its 0.05 gap; (a, c) and (b, c) stay concordant
    human = np.array([[1.0], [1.0], [2.0]])
    metric = np.array([[0.1], [0.15], [0.9]])
    result = flat_accuracy(human, metric)
    assert result.value == 1.0 and result.epsilon == abs(0.1 - 0.15) and result.pairs == 3
    # a threshold that would also tie a concordant pair costs more than it gains
    metric = np.array([[0.1], [0.5], [0.6]])
    result = flat_accuracy(human, metric)
    assert result.value == pytest.approx(2 / 3) and result.epsilon == 0.0
    # grouped: two instances with three systems; the mean of the instances' accuracies
    human = np.array([[1.0, 2.0], [1.0, 1.0], [2.0, 0.0]])
    metric = np.array([[0.1, 0.3], [0.15, 0.2], [0.9, 0.0]])
    result = grouped_accuracy(human, metric)
    # eps = 0.05 ties (0.1, 0.15) in instance 1 (3/3); in instance 2 all pairs stay concordant (3/3)
    assert result.value == pytest.approx(1.0, abs=1e-15) and result.epsilon == abs(0.1 - 0.15) and result.pairs == 6
    assert grouped_accuracy(human, np.array([[0.1, 0.3], [0.5, 0.2], [0.9, 0.0]])).value == pytest.approx(
        (2 / 3 + 1) / 2
    )  # no threshold helps: the human tie's metric gap (0.4) exceeds the instance's others


def test_acc_eq_equals_the_literal_search_on_random_data_with_ties():
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(150):
        human, metric = random_with_ties(rng, int(rng.integers(2, 6)), int(rng.integers(2, 8)))
        flat_rows = ([[None if np.isnan(v) else float(v) for v in human.ravel()]], [[float(v) for v in metric.ravel()]])
        if sum(v is not None for v in flat_rows[0][0]) < 2:
            continue
        value, epsilon, _ = literal_acc_eq(*flat_rows)
        result = flat_accuracy(human, metric)
        assert result.value == pytest.approx(value, abs=1e-12) and result.epsilon == epsilon
        item_rows = rows_of(human, metric)
        if not any(sum(v is not None for v in row) >= 2 for row in item_rows[0]):
            continue
        value, epsilon, by_threshold = literal_acc_eq(*item_rows)
        result = grouped_accuracy(human, metric)
        assert result.value == pytest.approx(value, abs=1e-12)
        # maxima equal up to float rounding are ties: ours is the first; the literal's running sum may pick another
        assert by_threshold[result.epsilon] == pytest.approx(value, abs=1e-12) and result.epsilon <= epsilon
        checked += 1
    assert checked > 100


def test_flattened_counts_equal_an_enumeration_of_every_pair():
    """The counting behind acc_eq never lists the pairs; here 2,000 outputs' 2 million pairs are listed."""
    rng = np.random.default_rng(5)
    human = np.round(rng.integers(0, 10, 2000) / 3, 6)
    metric = human + rng.normal(size=2000) * 0.3
    first, second = np.triu_indices(2000, 1)
    dh, dm = human[first] - human[second], metric[first] - metric[second]
    pairs = FlatPairs(human, metric)
    for epsilon in (0.0, 0.01, 0.2, abs(metric[3] - metric[17]), 5.0):
        tied = np.abs(dm) <= epsilon
        agree = np.where(tied, dh == 0, np.sign(dh) == np.sign(dm)).sum()
        assert pairs.agreement([epsilon])[0] == agree
    # the search equals an exhaustive sweep over all pairs sorted by difference
    diff = np.abs(dm)
    flip = (dh == 0).astype(np.int64) - np.where(diff == 0, dh == 0, np.sign(dh) == np.sign(dm))
    order = np.argsort(diff, kind="stable")
    diff, flip = diff[order], flip[order]
    ends = np.r_[diff[1:] != diff[:-1], True]
    base = np.where(np.abs(dm) == 0, dh == 0, np.sign(dh) == np.sign(dm)).sum()
    curve = np.r_[base, base + np.cumsum(flip)[ends]]
    thresholds = np.r_[0.0, diff[ends]]
    best = int(np.argmax(curve))
    result = flat_accuracy(human, metric)
    assert result.value == curve[best] / len(first) and result.epsilon == thresholds[best]
    # with weights: a resample's copies are outputs of their own, copies of one output tie
    weights = rng.integers(0, 3, 2000)
    expanded_h, expanded_m = np.repeat(human, weights), np.repeat(metric, weights)
    a, b = np.triu_indices(len(expanded_h), 1)
    tied = np.abs(expanded_m[a] - expanded_m[b]) <= 0.1
    agree = np.where(
        tied,
        expanded_h[a] == expanded_h[b],
        np.sign(expanded_h[a] - expanded_h[b]) == np.sign(expanded_m[a] - expanded_m[b]),
    ).mean()
    assert flat_accuracy_at(pairs, 0.1, weights) == pytest.approx(agree, abs=1e-12)


def test_grouped_resamples_reweight_the_instances():
    rng = np.random.default_rng(3)
    human, metric = random_with_ties(rng, 5, 12, missing=0.0)
    pairs = GroupedPairs(human, metric)
    counts = rng.multinomial(12, [1 / 12] * 12, size=5)
    values, epsilons = pairs.optimise_many(counts)
    for row, value, epsilon in zip(counts, values, epsilons):
        columns = np.repeat(np.arange(12), row)
        expected = grouped_accuracy(human[:, columns], metric[:, columns])
        assert value == pytest.approx(expected.value, abs=1e-12) and epsilon == expected.epsilon


# --- soft pairwise accuracy ----------------------------------------------------------------


def test_pairwise_p_values_equal_the_permutation_test_of_pce():
    rng = np.random.default_rng(4)
    segments = rng.random((4, 30)) + np.arange(4)[:, None] * 0.05
    signs = swap_signs(200, np.ones(30, dtype=np.int64), rng)
    ours = pairwise_p_values(mean_stats(segments), ratio, signs)
    np.testing.assert_array_equal(ours, literal_p_values(segments, signs))


def test_soft_pairwise_accuracy_by_hand():
    human = np.array([[np.nan, 0.01, 0.2], [np.nan, np.nan, 0.5], [np.nan] * 3])
    metric = np.array([[np.nan, 0.11, 0.2], [np.nan, np.nan, 0.9], [np.nan] * 3])
    assert soft_pairwise_accuracy(human, metric) == pytest.approx(1 - (0.1 + 0.0 + 0.4) / 3)


def test_spa_of_a_corpus_metric_recomputes_bleu_from_swapped_statistics():
    rng = np.random.default_rng(6)
    refs = [
        ["a cat sat on the mat", "the cat is on the mat"],
        ["dogs bark at night", "a dog barks"],
        ["the sun is hot", "sun gives heat"],
        ["ice is cold", "cold ice melts"],
    ] * 3
    words = "a the cat dog sun ice is on mat hot cold bark sat".split()
    outputs = [[" ".join(rng.choice(words, 5)) for _ in refs] for _ in range(3)]
    stats = np.array(
        [[official_bleu.segment_stats(h, r).as_row() for h, r in zip(system, refs)] for system in outputs], dtype=float
    )
    signs = swap_signs(64, np.ones(len(refs), dtype=np.int64), rng)
    ours = pairwise_p_values(stats, official_bleu.bleu_from_totals_array, signs)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        observed = official_bleu.bleu_from_totals_array(stats[[i, j]].sum(axis=1))
        hits = 0
        for row in signs:
            keep = row > 0
            a = np.where(keep[:, None], stats[i], stats[j]).sum(axis=0)
            b = np.where(keep[:, None], stats[j], stats[i]).sum(axis=0)
            swapped = official_bleu.bleu_from_totals_array(np.stack([a, b]))
            hits += swapped[0] - swapped[1] >= observed[0] - observed[1] - 1e-9
        assert ours[i, j] == hits / len(signs)


def test_spa_is_the_same_up_to_permutation_noise_with_another_generator():
    rng = np.random.default_rng(9)
    human = rng.random((5, 80)) + np.arange(5)[:, None] * 0.03
    metric = human + rng.normal(size=human.shape) * 0.2
    values = []
    for seed in (1, 2):
        generator = np.random.default_rng(seed)
        signs = swap_signs(2000, np.ones(80, dtype=np.int64), generator)
        values.append(
            soft_pairwise_accuracy(
                pairwise_p_values(mean_stats(human), ratio, signs), pairwise_p_values(mean_stats(metric), ratio, signs)
            )
        )
    assert abs(values[0] - values[1]) < 0.02 and 0.5 < values[0] <= 1


def test_resampled_swaps_count_every_copy():
    rng = np.random.default_rng(12)
    counts = np.array([0, 1, 3, 2])
    signs = swap_signs(5000, counts, rng)
    assert np.all(np.abs(signs) <= counts) and np.all((signs - counts) % 2 == 0)
    assert signs[:, 2].var() == pytest.approx(3, rel=0.1)  # a sum of 3 independent +-1


# --- ranking -------------------------------------------------------------------------------


def test_assign_ranks_as_mt_metrics_eval():
    p = np.full((4, 4), np.nan)
    p[0, 1], p[0, 2], p[0, 3] = 0.2, 0.01, 0.001
    p[1, 2], p[1, 3] = 0.3, 0.04
    p[2, 3] = 0.5
    # m2 is significantly below m0 (rank 2 starts at m2); m3 is not below m2, so it stays in rank 2
    assert assign_ranks(p, 0.05) == [1, 1, 2, 2]


def test_rank_metrics_uses_paired_bootstrap_values():
    rng = np.random.default_rng(2)
    base = rng.normal(size=500)
    samples = {
        "good": 0.8 + 0.01 * base,
        "close": 0.79 + 0.01 * base + 0.02 * rng.normal(size=500),
        "bad": 0.5 + 0.01 * base,
        "none": None,
    }
    ranking, p_values = rank_metrics({"good": 0.8, "close": 0.79, "bad": 0.5, "none": float("nan")}, samples, 0.05)
    assert [(r["metric"], r["rank"]) for r in ranking] == [("good", 1), ("close", 1), ("bad", 2)]
    assert p_values["good|bad"] == 0.0 and 0.05 < p_values["good|close"] < 0.5


# --- the shared real ratings ----------------------------------------------------------------


@pytest.mark.shared
def test_statistics_on_the_real_butfit_ratings():
    """One rater's 0-3 scores of four real systems on 100 test instances, and sentence chrF."""
    from sacrebleu.metrics import CHRF

    chrf = CHRF()
    human, (metric,) = butfit_scores(lambda reason, references: chrf.sentence_score(reason, references).score)
    assert human.shape == (4, 100) and np.isfinite(human).all()
    flat = flat_accuracy(human, metric)
    value, epsilon, _ = literal_acc_eq([[float(v) for v in human.ravel()]], [[float(v) for v in metric.ravel()]])
    assert flat.value == pytest.approx(value, abs=1e-12) and flat.epsilon == epsilon
    grouped = grouped_accuracy(human, metric)
    value, epsilon, by_threshold = literal_acc_eq(*rows_of(human, metric))
    assert grouped.value == pytest.approx(value, abs=1e-12)
    assert by_threshold[grouped.epsilon] == pytest.approx(value, abs=1e-12)
    system_human, system_metric = human.mean(axis=1), metric.mean(axis=1)
    assert pairwise_accuracy(system_human, system_metric) == literal_acc23(system_human, system_metric)
    signs = swap_signs(300, np.ones(100, dtype=np.int64), np.random.default_rng(4))
    human_p = pairwise_p_values(mean_stats(human), ratio, signs)
    metric_p = pairwise_p_values(mean_stats(metric), ratio, signs)
    np.testing.assert_array_equal(human_p, literal_p_values(human, signs))
    np.testing.assert_array_equal(metric_p, literal_p_values(metric, signs))
    assert 0 <= soft_pairwise_accuracy(human_p, metric_p) <= 1
