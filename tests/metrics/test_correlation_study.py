"""The whole correlation report on plain arrays (evalapp.compute.correlation_study)."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from evalapp.compute import bootstrap as bootstrap_compute
from evalapp.compute import official_bleu
from evalapp.compute.correlation_study import (
    CAMPAIGN_DOMAIN,
    MetricData,
    Resampler,
    StudyData,
    correlation_report,
    default_top_k,
)

N_SYSTEMS, N_INSTANCES, RATERS = 6, 30, 3


def make_study(seed=3, constant_metric=False):
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.5, 2.5, N_SYSTEMS)[:, None] + rng.normal(0, 0.3, (N_SYSTEMS, N_INSTANCES))
    ratings = np.clip(np.rint(quality[..., None] + rng.normal(0, 0.7, (N_SYSTEMS, N_INSTANCES, RATERS))), 0, 3)
    human = Resampler.ratio(ratings.sum(-1), np.full((N_SYSTEMS, N_INSTANCES), RATERS), CAMPAIGN_DOMAIN)
    segment = quality + rng.normal(0, 0.5, quality.shape)
    if constant_metric:
        segment = np.ones_like(segment)
    seg_metric = MetricData(
        "seg", Resampler.mean(segment, CAMPAIGN_DOMAIN).scores(), Resampler.mean(segment, CAMPAIGN_DOMAIN), segment
    )
    corpus = rng.integers(1, 9, (N_SYSTEMS, 50, 2)).astype(float)
    corpus[:, :, 0] += np.arange(N_SYSTEMS)[:, None]
    corpus_resampler = Resampler("dataset", corpus, lambda summed: summed[:, 0] / summed[:, 1])
    corpus_metric = MetricData("corpus", corpus_resampler.scores(), corpus_resampler)
    return StudyData([f"sys{k}" for k in range(N_SYSTEMS)], human, [seg_metric, corpus_metric])


def test_point_figures_equal_scipy():
    data = make_study()
    report = correlation_report(data, bootstrap=0, permutations=20)
    human = data.human_system
    seg = data.metrics[0]
    assert report["system_level"]["seg"]["pearson"]["r"] == pytest.approx(stats.pearsonr(seg.system, human).statistic)
    assert report["system_level"]["corpus"]["kendall_c"]["r"] == pytest.approx(
        stats.kendalltau(data.metrics[1].system, human, variant="c").statistic
    )
    flat_m, flat_h = seg.segment.ravel(), data.human_segment.ravel()
    flattened = report["segment_level"]["seg"]["flattened"]
    assert flattened["spearman"]["r"] == pytest.approx(stats.spearmanr(flat_m, flat_h).statistic)
    assert flattened["kendall_b"]["r"] == pytest.approx(stats.kendalltau(flat_m, flat_h).statistic)
    per_instance = [
        stats.pearsonr(seg.segment[:, i], data.human_segment[:, i]).statistic
        for i in range(N_INSTANCES)
        if np.ptp(data.human_segment[:, i]) > 0
    ]
    grouped = report["segment_level"]["seg"]["grouped_by_instance"]["pearson"]
    assert grouped["r"] == pytest.approx(np.mean(per_instance))
    assert "corpus" not in report["segment_level"]  # no segment scores, no segment figures


def test_report_has_every_section_and_intervals():
    report = correlation_report(make_study(), bootstrap=50, seed=11, permutations=30)
    for name in ("pearson", "spearman", "kendall_b", "kendall_c"):
        entry = report["system_level"]["seg"][name]
        assert set(entry) >= {"r", "p", "ci", "bootstrap_ci", "n"}
        low, high = entry["bootstrap_ci"]
        assert low <= high
    # Pearson's ci is Fisher's; the others are the bootstrap's
    pearson = report["system_level"]["seg"]["pearson"]
    assert pearson["ci"] != pearson["bootstrap_ci"]
    assert report["system_level"]["seg"]["spearman"]["ci"] == report["system_level"]["seg"]["spearman"]["bootstrap_ci"]
    assert all(not math.isnan(v) for v in report["segment_level"]["seg"]["wmt_kendall"]["ci"])
    assert report["top_k"]["k"] == default_top_k(N_SYSTEMS) == 3
    assert report["top_k"]["systems"] == ["sys5", "sys4", "sys3"]
    assert set(report["top_k"]["system_level"]) == {"seg", "corpus"}
    levels = sorted(c["level"] for c in report["comparisons"])
    assert levels == ["system"]  # only one metric has segment scores
    comparison = report["comparisons"][0]
    assert comparison["williams"]["r_a"] >= comparison["williams"]["r_b"]
    assert set(comparison["permutation"]) == {"pearson", "kendall_b"}
    assert report["bootstrap"]["seed"] == 11


def test_same_seed_same_report_other_seed_other_intervals():
    first = correlation_report(make_study(), bootstrap=40, seed=5, permutations=20)
    again = correlation_report(make_study(), bootstrap=40, seed=5, permutations=20)
    other = correlation_report(make_study(), bootstrap=40, seed=6, permutations=20)
    assert first == again
    assert first["system_level"]["seg"]["spearman"]["ci"] != other["system_level"]["seg"]["spearman"]["ci"]


def test_constant_metric_gives_nan_and_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = correlation_report(make_study(constant_metric=True), bootstrap=10, permutations=10)
    assert math.isnan(report["system_level"]["seg"]["pearson"]["r"])
    assert math.isnan(report["segment_level"]["seg"]["flattened"]["kendall_b"]["r"])
    assert all(math.isnan(v) for v in report["system_level"]["seg"]["spearman"]["ci"])


def test_corpus_statistics_resample_equals_recomputing_bleu():
    """A bootstrap resample of sufficient statistics gives the BLEU of the resampled corpus."""
    hypotheses = ["the cat sat on the mat", "a dog can not fly at all", "ice is cold", "fish live in water"]
    references = [
        ["the cat sat on a mat", "a cat is on the mat"],
        ["dogs can not fly", "a dog has no wings"],
        ["ice is very cold"],
        ["fish live in the water", "water is where fish live"],
    ]
    stats_rows = official_bleu.stats_matrix(official_bleu.corpus_stats(hypotheses, references))
    resampler = Resampler(CAMPAIGN_DOMAIN, stats_rows[None].astype(float), official_bleu.bleu_from_totals_array)
    indices = bootstrap_compute.resample_indices(len(hypotheses), 5, seed=1)
    counts = bootstrap_compute.resample_counts(indices, len(hypotheses))
    for row, weights in zip(indices, counts):
        direct = official_bleu.corpus_bleu([hypotheses[i] for i in row], [references[i] for i in row]).score
        assert resampler.scores(weights)[0] == pytest.approx(direct, abs=1e-9)
    assert resampler.scores()[0] == pytest.approx(official_bleu.corpus_bleu(hypotheses, references).score)


def test_human_resamples_are_the_results_modules():
    """Same seed: the campaign's instances are drawn exactly as results.bootstrap_intervals draws them."""
    data = make_study()
    sums, counts = data.human.stats[..., 0], data.human.stats[..., 1]
    intervals = bootstrap_compute.ratio_intervals(sums, counts, n_resamples=30, seed=9)
    indices = bootstrap_compute.resample_indices(N_INSTANCES, 30, 9)
    weights = bootstrap_compute.resample_counts(indices, N_INSTANCES)
    ours = np.array([data.human.scores(w) for w in weights])
    low, high = bootstrap_compute.percentile_interval(ours)
    assert np.allclose(low, [i.low for i in intervals]) and np.allclose(high, [i.high for i in intervals])


def _nan_safe(value):
    """The report with NaN replaced by a marker, so that equal reports compare equal."""
    if isinstance(value, dict):
        return {key: _nan_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_nan_safe(item) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, np.ndarray):
        return _nan_safe(value.tolist())
    return value


def test_two_processes_give_the_figures_of_one_and_report_progress_from_the_callers_thread():
    import os
    import threading

    callers = set()

    def progress(fraction, detail):
        callers.add((os.getpid(), threading.get_ident()))

    one = correlation_report(make_study(), bootstrap=60, seed=8, permutations=30, processes=1)
    two = correlation_report(make_study(), bootstrap=60, seed=8, permutations=30, processes=2, progress=progress)
    assert _nan_safe(two) == _nan_safe(one)
    assert _nan_safe(two["soft_pairwise"]) == _nan_safe(one["soft_pairwise"])
    assert callers == {(os.getpid(), threading.get_ident())}, "the child process reports no progress of its own"


def test_an_error_in_the_child_process_is_raised_by_the_report():
    import os

    data = make_study()
    score = data.metrics[1].resampler.score
    parent = os.getpid()

    def broken(summed):
        if os.getpid() != parent:
            raise ArithmeticError("the corpus metric cannot score this resample")
        return score(summed)

    data.metrics[1] = MetricData(
        "corpus", data.metrics[1].system, Resampler("dataset", data.metrics[1].resampler.stats, broken)
    )
    with pytest.raises(ArithmeticError, match="cannot score") as raised:
        correlation_report(data, bootstrap=20, seed=1, permutations=10, processes=2)
    assert any("raised in the child process" in note for note in raised.value.__notes__)
    correlation_report(data, bootstrap=20, seed=1, permutations=10, processes=1)  # the caller's side scores it
