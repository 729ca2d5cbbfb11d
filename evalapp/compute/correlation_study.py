"""Every correlation figure of the metric study (protocol.md#correlations) on plain arrays. No Django imports.

Inputs are per-system and per-(system, instance) arrays; the service builds them from the
database. Bootstrap intervals resample instances: each resample draws instances with
replacement from every instance set ("domain") once, so that the human scores and the
segment scores of the campaign's instances are resampled together (paired), and a corpus
metric computed on the whole test set is recomputed on a resample of the test set from its
per-segment sufficient statistics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse
from threadpoolctl import threadpool_limits

from core.defaults import (
    CONFIDENCE_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DEFAULT_TOP_K_MIN,
    METRIC_REPORT_PROCESSES,
    METRIC_STUDY_PERMUTATIONS,
    RANKING_ALPHA,
    SPA_BOOTSTRAP_PERMUTATIONS,
    SPA_BOOTSTRAP_RESAMPLES,
    SPA_PERMUTATIONS,
)
from evalapp.compute import bootstrap as bootstrap_compute
from evalapp.compute import correlation as corr
from evalapp.compute import meta_evaluation, metric_ranking, soft_pairwise, tie_calibration
from evalapp.compute.forked import ForkedCall

CAMPAIGN_DOMAIN = "campaign"
PERMUTED_COEFFICIENTS = ("pearson", "kendall_b")
PROGRESS_EVERY = 25  # resamples between two progress reports
PERMUTATION_STREAM = 0  # the bootstrap's non-campaign domains use streams 1, 2, ...
SPA_STREAM = 1000  # soft pairwise accuracy's permutations: streams 1000 + domain position
CORRELATION_SHARE = 0.6  # of the report's progress, the correlations' bootstrap; the rest is the WMT statistics
WMT_STATISTICS = {
    "pairwise_accuracy": "system_level",
    "soft_pairwise_accuracy": "system_level",
    "acc_eq": "segment_level",
    "acc_eq_grouped": "segment_level",
}
NAN = float("nan")
FloatArray = NDArray[np.float64]
Mask = NDArray[np.bool_]
Figures = dict[str, Any]  # a section of the report, as it is printed
Progress = Callable[[float, str], object]  # progress(fraction, detail)
# per subset ("all", "top_k"): {"system_level": {metric: {coefficient: values}},
#   "segment_level": {metric: {(section, coefficient or None): values}}}, values over the resamples
Samples = dict[str, dict[str, dict[str, dict[Any, FloatArray]]]]
Draws = dict[str, tuple[NDArray[np.int64], NDArray[np.int64]]]  # per domain: resampled indices, counts
SoftPairwise = tuple[dict[str, tuple[float, FloatArray | None]], dict[str, Any]]  # per metric; the pairs' p-values


@dataclass
class Resampler:
    """Per-segment sufficient statistics of a score over one instance set.

    ``stats`` has shape (systems, instances, k); ``score`` maps statistics summed over a
    (resampled) set of instances, shape (systems, k), to one score per system.
    """

    domain: str
    stats: FloatArray
    score: Callable[[FloatArray], ArrayLike]

    @property
    def size(self) -> int:
        return int(self.stats.shape[1])

    def scores(self, counts: ArrayLike | None = None) -> FloatArray:
        """System scores on the instances weighted by ``counts`` (how often each was drawn)."""
        if counts is None:
            summed = self.stats.sum(axis=1)
        else:
            summed = np.tensordot(self.stats, np.asarray(counts, float), axes=([1], [0]))
        return np.asarray(self.score(summed), dtype=float)

    def rows(self, index: ArrayLike) -> Resampler:
        """The same statistics for a subset of the systems."""
        return Resampler(self.domain, self.stats[np.asarray(index)], self.score)

    def scores_many(self, counts: ArrayLike) -> FloatArray:
        """(resamples, systems) scores, one row per row of ``counts`` (resamples, instances)."""
        weights = np.asarray(counts, float)
        summed = np.tensordot(weights, self.stats, axes=([1], [1]))  # (resamples, systems, k)
        flat = np.asarray(self.score(summed.reshape(-1, summed.shape[-1])), float)
        return flat.reshape(summed.shape[0], summed.shape[1])

    @classmethod
    def mean(cls, values: ArrayLike, domain: str) -> Resampler:
        """Average of per-segment values (NaN = missing) as a ratio of sum to count."""
        array = np.asarray(values, dtype=float)
        present = np.isfinite(array)
        stats = np.stack([np.where(present, array, 0.0), present.astype(float)], axis=-1)
        return cls(domain, stats, _ratio)

    @classmethod
    def ratio(cls, sums: ArrayLike, counts: ArrayLike, domain: str) -> Resampler:
        """Sum over count, e.g. formula (1): the sum of the ratings over their number."""
        return cls(domain, np.stack([np.asarray(sums, float), np.asarray(counts, float)], axis=-1), _ratio)


def _ratio(summed: FloatArray) -> FloatArray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(summed[:, 1] > 0, summed[:, 0] / np.where(summed[:, 1] > 0, summed[:, 1], 1), NAN)


@dataclass
class MetricData:
    """One metric: its system scores, how to recompute them, its segment scores (may be absent)."""

    name: str
    system: FloatArray
    resampler: Resampler | None = None
    segment: FloatArray | None = None  # (systems, campaign instances), NaN where missing


@dataclass
class StudyData:
    systems: list[str]
    human: Resampler  # domain "campaign": rating sums and counts per item
    metrics: list[MetricData] = field(default_factory=list)

    @property
    def human_system(self) -> FloatArray:
        return self.human.scores()

    @property
    def human_segment(self) -> FloatArray:
        """Mean rating of each (system, instance); NaN where unrated."""
        sums, counts = self.human.stats[..., 0], self.human.stats[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / np.where(counts > 0, counts, 1), NAN)


def default_top_k(n_systems: int) -> int:
    """Half of the systems, rounded up, but at least DEFAULT_TOP_K_MIN (fewer points make no correlation)."""
    return min(n_systems, max(DEFAULT_TOP_K_MIN, -(-n_systems // 2)))


def correlation_report(
    data: StudyData,
    bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    top_k: int | None = None,
    permutations: int = METRIC_STUDY_PERMUTATIONS,
    confidence: float = CONFIDENCE_LEVEL,
    progress: Progress | None = None,
    processes: int = METRIC_REPORT_PROCESSES,
) -> Figures:
    """System level, segment level, comparisons and top-k figures with bootstrap intervals, and
    the WMT statistics (:func:`wmt_statistics`) of all systems.

    ``progress(fraction, detail)``, when given, is called as the work advances. The matrix
    products here are small and many: OpenBLAS's threads only spin against each other and against
    the other processes of the machine (single-threaded, they took a tenth of the CPU time), so the
    report runs with one BLAS thread. With ``processes`` = 2, soft pairwise accuracy (the largest part
    that needs nothing else of the report, with random streams of its own) is computed in a forked
    child process (:class:`~evalapp.compute.forked.ForkedCall`) while this one computes the rest: both
    cores are used without the two sides waiting for one interpreter's lock, and the figures are
    those of one process.
    """
    with threadpool_limits(limits=1, user_api="blas"):
        return _correlation_report(data, bootstrap, seed, top_k, permutations, confidence, progress, processes)


def _correlation_report(
    data: StudyData,
    bootstrap: int,
    seed: int,
    top_k: int | None,
    permutations: int,
    confidence: float,
    progress: Progress | None,
    processes: int,
) -> Figures:
    human = data.human_system
    k = top_k if top_k is not None else default_top_k(len(data.systems))
    best = corr.top_k(data.systems, [h if np.isfinite(h) else -np.inf for h in human], k)
    subsets = {"all": np.ones(len(data.systems), bool), "top_k": np.isin(np.asarray(data.systems, dtype=object), best)}
    figures = {name: _point_figures(data, mask) for name, mask in subsets.items()}

    def correlation_step(done: int, total: int) -> None:
        if progress is not None:
            progress(
                done / max(1, total) * CORRELATION_SHARE,
                f"Bootstrap of {bootstrap:,} resamples: {done:,} of {total:,} metric outputs",
            )

    def wmt_step(fraction: float, detail: str) -> None:
        if progress is not None:
            progress(CORRELATION_SHARE + fraction * (1 - CORRELATION_SHARE), detail)

    # one matrix of resampled instances per domain for every statistic of a resample
    draws = _domain_draws(_domain_sizes(data), bootstrap, seed) if bootstrap else {}
    # the child's part first, so that it runs beside everything else; it reports no progress (the
    # run's progress is written by the caller's thread only)
    spa: ForkedCall[SoftPairwise] | None = None
    if processes >= 2 and bootstrap:
        spa = ForkedCall(lambda: _soft_pairwise_of(data, draws, seed, bootstrap, lambda fraction, detail: None))
    try:
        if bootstrap:
            samples = _bootstrap(data, subsets, bootstrap, seed, correlation_step, draws)
            for name in subsets:
                _attach_intervals(figures[name], samples[name], confidence)
        # the comparisons have their own stream: computing them before or after the rest changes nothing
        permutation_rng = np.random.default_rng(np.random.SeedSequence([seed, PERMUTATION_STREAM]))
        comparisons = _comparisons(data, subsets["all"], permutations, permutation_rng)
        wmt = wmt_statistics(
            data,
            bootstrap,
            seed,
            confidence,
            progress=wmt_step,
            draws=draws,
            spa=spa.result if spa is not None else None,
        )
    finally:
        if spa is not None:
            spa.close()  # a child still computing (an error here, a cancelled run) is stopped
    for level in ("system_level", "segment_level"):
        for metric, entries in wmt[level].items():
            figures["all"][level].setdefault(metric, {}).update(entries)
    return {
        "metric_ranking": wmt["metric_ranking"],
        "soft_pairwise": wmt["soft_pairwise"],
        "system_level": figures["all"]["system_level"],
        "segment_level": figures["all"]["segment_level"],
        "comparisons": comparisons,
        "top_k": {
            "k": k,
            "systems": best,
            "system_level": figures["top_k"]["system_level"],
            "segment_level": figures["top_k"]["segment_level"],
        },
        "bootstrap": {
            "resamples": bootstrap,
            "seed": seed,
            "confidence": confidence,
            "method": "percentile interval over resamples of instances (with replacement); "
            "corpus metrics recomputed from per-segment sufficient statistics",
        },
        "ci_methods": {
            "system_level.pearson.ci": "Fisher z",
            "bootstrap_ci": "bootstrap percentile",
            "every other ci": "bootstrap percentile",
        },
        "permutation": {"resamples": permutations, "seed": seed},
    }


# --- point estimates ---------------------------------------------------------------------


def _system_vectors(
    data: StudyData,
    metric: MetricData,
    mask: Mask,
    metric_scores: FloatArray | None = None,
    human: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    metric_scores = metric.system if metric_scores is None else metric_scores
    human = data.human_system if human is None else human
    keep = mask & np.isfinite(metric_scores) & np.isfinite(human)
    return np.asarray(metric_scores, float)[keep], np.asarray(human, float)[keep]


def _segment_of(metric: MetricData) -> FloatArray:
    """The metric's segment scores; only called for metrics that have them."""
    if metric.segment is None:
        raise ValueError(f"metric {metric.name} has no segment scores")
    return metric.segment


def _segment_rows(
    data: StudyData, metric: MetricData, mask: Mask, columns: ArrayLike | None = None
) -> tuple[FloatArray, FloatArray, NDArray[np.intp]]:
    """Flattened (metric, human, instance) rows of the systems in ``mask`` with both scores."""
    seg_metric, seg_human = _segment_of(metric)[mask], data.human_segment[mask]
    instances = np.broadcast_to(np.arange(seg_metric.shape[1]), seg_metric.shape)
    if columns is not None:
        chosen = np.asarray(columns, dtype=np.intp)
        seg_metric, seg_human, instances = seg_metric[:, chosen], seg_human[:, chosen], instances[:, chosen]
    keep = np.isfinite(seg_metric) & np.isfinite(seg_human)
    return seg_metric[keep], seg_human[keep], instances[keep]


def _point_figures(data: StudyData, mask: Mask) -> Figures:
    system_level, segment_level = {}, {}
    for metric in data.metrics:
        x, y = _system_vectors(data, metric, mask)
        system_level[metric.name] = {name: corr.coefficient(name, x, y) for name in corr.COEFFICIENTS}
        for entry in system_level[metric.name].values():
            entry.setdefault("ci", [NAN, NAN])  # Pearson's is Fisher-z; the others come from the bootstrap
        if metric.segment is not None:
            m, h, groups = _segment_rows(data, metric, mask)
            flattened = {name: corr.coefficient(name, m, h) for name in corr.SEGMENT_COEFFICIENTS}
            segment_level[metric.name] = {
                "flattened": flattened,
                "grouped_by_instance": {name: corr.grouped(name, m, h, groups) for name in corr.SEGMENT_COEFFICIENTS},
                "wmt_kendall": corr.wmt_kendall_like(m, h, groups),
            }
            # Fisher-z assumes independent points; outputs for one instance are not, so every
            # segment-level interval is the bootstrap's.
            for entry in [
                *flattened.values(),
                *segment_level[metric.name]["grouped_by_instance"].values(),
                segment_level[metric.name]["wmt_kendall"],
            ]:
                entry["ci"] = [NAN, NAN]
    return {"system_level": system_level, "segment_level": segment_level}


# --- bootstrap ---------------------------------------------------------------------------


def _domain_sizes(data: StudyData) -> dict[str, int]:
    sizes = {CAMPAIGN_DOMAIN: data.human.size}
    for metric in data.metrics:
        if metric.resampler is not None:
            size = sizes.setdefault(metric.resampler.domain, metric.resampler.size)
            if size != metric.resampler.size:
                raise ValueError(
                    f"metric {metric.name}: domain {metric.resampler.domain!r} has "
                    f"{metric.resampler.size} instances, another metric has {size}"
                )
    return sizes


def _segment_caches(data: StudyData, mask: Mask) -> dict[str, dict[str, Any]]:
    """Per-instance grouped coefficients and WMT pair counts, so a resample only re-aggregates them."""
    caches = {}
    for metric in data.metrics:
        if metric.segment is None:
            continue
        n_instances = metric.segment.shape[1]
        m, h, groups = _segment_rows(data, metric, mask)
        # the per-group functions return groups in order of first appearance
        keys = groups[np.sort(np.unique(groups, return_index=True)[1])]
        grouped = {}
        for name in corr.SEGMENT_COEFFICIENTS:
            grouped[name] = np.full(n_instances, NAN)
            grouped[name][keys] = corr.per_group_values(name, m, h, groups)
        pairs = np.zeros((n_instances, 2), dtype=np.int64)
        pairs[keys] = corr.wmt_pair_counts(m, h, groups)
        caches[metric.name] = {"grouped": grouped, "pairs": pairs}
    return caches


def _domain_draws(sizes: Mapping[str, int], resamples: int, seed: int) -> Draws:
    """Resampled instance indices and counts per domain, with the results module's resampler.

    The campaign's instances are drawn from ``seed`` itself, so the human scores see exactly
    the resamples of the human-score intervals with the same seed (results.bootstrap_intervals);
    every other domain gets its own stream derived from the seed.
    """
    draws = {}
    for position, (domain, size) in enumerate(sorted(sizes.items())):
        domain_seed = seed if domain == CAMPAIGN_DOMAIN else np.random.SeedSequence([seed, position + 1])
        indices = bootstrap_compute.resample_indices(size, resamples, domain_seed)
        draws[domain] = (indices, bootstrap_compute.resample_counts(indices, size))
    return draws


def _bootstrap(
    data: StudyData,
    subsets: Mapping[str, Mask],
    resamples: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    draws: Draws | None = None,
) -> Samples:
    """Every resample's coefficients, all resamples of a metric output at once: the system level from
    one matrix of resampled system scores, the segment level from the instances' draw counts.
    ``draws`` (:func:`_domain_draws` of the same seed) are the report's one set of resamples."""
    draws = draws if draws is not None else _domain_draws(_domain_sizes(data), resamples, seed)
    caches = {subset: _segment_caches(data, mask) for subset, mask in subsets.items()}
    samples: Samples = {subset: {"system_level": {}, "segment_level": {}} for subset in subsets}
    human = data.human.scores_many(draws[CAMPAIGN_DOMAIN][1])
    for metric in data.metrics:
        scores = (
            metric.resampler.scores_many(draws[metric.resampler.domain][1])
            if metric.resampler
            else np.broadcast_to(np.asarray(metric.system, float), human.shape)
        )
        for subset, mask in subsets.items():
            samples[subset]["system_level"][metric.name] = _system_samples(scores[:, mask], human[:, mask])
    segment_metrics = [metric for metric in data.metrics if metric.segment is not None]
    counts = draws[CAMPAIGN_DOMAIN][1]
    for position, metric in enumerate(segment_metrics):
        for subset, mask in subsets.items():
            flat = FlattenedPoints(*_segment_rows(data, metric, mask))
            bucket = samples[subset]["segment_level"].setdefault(metric.name, {})
            for name in corr.SEGMENT_COEFFICIENTS:
                bucket[("flattened", name)] = flat.coefficient_many(name, counts)
            _grouped_samples(caches[subset][metric.name], counts, bucket)
        if progress is not None:
            progress(position + 1, len(segment_metrics))
    return samples


def _system_samples(scores: FloatArray, human: FloatArray) -> dict[str, FloatArray]:
    """{coefficient: values over the resamples} of the rows of (resamples, systems) ``scores`` and ``human``.

    A resample where some system has no score correlates only the systems with both (as
    :func:`_system_vectors`); such rows are computed one by one, the complete ones together.
    """
    complete = np.isfinite(scores).all(axis=1) & np.isfinite(human).all(axis=1)
    result = {}
    for name in corr.COEFFICIENTS:
        values = np.full(len(scores), NAN)
        values[complete] = corr.rowwise_coefficient(name, scores[complete], human[complete])
        for b in np.flatnonzero(~complete):
            keep = np.isfinite(scores[b]) & np.isfinite(human[b])
            values[b] = corr.coefficient_value(name, scores[b][keep], human[b][keep])
        result[name] = values
    return result


SINGLE_PRECISION_EXACT = 2.0**24  # integer sums below this (in magnitude) are exact in float32
TIES_BLOCK = 100  # resamples whose tied pairs are counted together (memory: block x groups of equal values floats)
KENDALL_CHUNK = (
    200  # points per chunk of the flattened Kendall's pair matrix (pairs within a chunk are counted one by one)
)
PAIR_INDEX_SIZES = 64  # chunk sizes whose pair indices are kept
CUBES_EXACT = 1 << 20  # points of a resample up to which Spearman's sums of squares are exact int64 cubes
RESAMPLE_BLOCK = 16  # resamples ranked together: a few (block, points) arrays stay in the cache


class _SortedBlocks:
    """Values sorted once with their blocks of equal values, so that the ties of a weighted multiset (each
    value repeated as often as its weight) are sums over the blocks (:func:`_weighted_ties`)."""

    def __init__(self, values: FloatArray) -> None:
        self.order = np.argsort(values, kind="stable")
        ordered = values[self.order]
        new_block = np.r_[True, ordered[1:] != ordered[:-1]] if len(ordered) else np.zeros(0, bool)
        self.starts = np.flatnonzero(new_block)
        self.block_of = np.cumsum(new_block) - 1


@dataclass
class _RankCells:
    """The flattened points in order of metric score, with what a weighted rank correlation needs of them
    (:meth:`FlattenedPoints._spearman_many`)."""

    instances: NDArray[np.intp]  # each point's instance, points in order of metric score
    block_ends: NDArray[np.intp] | None  # last point of each block of equal metric scores; None: no ties
    block_of: NDArray[np.intp]  # each point's block of equal metric scores
    by_level: NDArray[np.intp]  # the points (in metric order) grouped by human score, lowest first
    level_starts: NDArray[np.intp]  # where each human score's points start in ``by_level``
    y_points: NDArray[np.int64]  # (instances, human values): an instance's points with that human value
    points: NDArray[np.int64]  # each instance's points

    @classmethod
    def of(cls, metric: FloatArray, human: FloatArray, instances: NDArray[np.intp], n_instances: int) -> _RankCells:
        order = np.argsort(metric, kind="stable")
        ordered = metric[order]
        new_block = np.r_[True, ordered[1:] != ordered[:-1]]
        block_of = np.cumsum(new_block) - 1
        ties = bool(block_of[-1] + 1 < len(ordered))
        block_ends = np.r_[np.flatnonzero(new_block)[1:], len(ordered)] - 1 if ties else None
        y_values, y_levels = np.unique(human, return_inverse=True)
        y_levels = y_levels.ravel()
        by_level = np.argsort(y_levels[order], kind="stable")
        level_starts = np.searchsorted(y_levels[order][by_level], np.arange(len(y_values)))
        y_points = np.zeros((n_instances, len(y_values)), np.int64)
        np.add.at(y_points, (instances, y_levels), 1)
        points = np.bincount(instances, minlength=n_instances).astype(np.int64)
        return cls(instances[order], block_ends, block_of, by_level, level_starts, y_points, points)

    def per_level(self, values: NDArray[np.int64], buffer: NDArray[np.int64]) -> NDArray[np.int64]:
        """(resamples, human values) sums of per-point integers over each human score's points."""
        return np.add.reduceat(np.take(values, self.by_level, axis=1, out=buffer), self.level_starts, axis=1)


class FlattenedPoints:
    """The flattened segment-level points (metric, human, instance) of a set of systems.

    A bootstrap resample repeats each instance's points as often as the instance was drawn, so
    Pearson's and Spearman's coefficients of the resample are weighted ones with those counts as
    weights: Pearson from weighted centred sums, Spearman as Pearson of the average ranks of the
    repeated values. Equal, up to rounding, to building every resample's points and calling
    :func:`corr.coefficient_value` (the tests hold them to it), without a loop over resamples.
    """

    def __init__(self, metric: FloatArray, human: FloatArray, instances: NDArray[np.intp]) -> None:
        self.metric, self.human, self.instances = metric, human, instances
        self.sorted = (_SortedBlocks(metric), _SortedBlocks(human))
        self._cells: _RankCells | None = None

    def coefficient_many(self, name: str, counts: NDArray[np.int64]) -> FloatArray:
        if len(self.metric) == 0:
            return np.full(len(counts), NAN)
        if name == "kendall_b":
            return self._kendall_many(counts)
        if name == "pearson":
            return self._pearson_many(counts)
        if name == "spearman":
            return self._spearman_many(counts)
        raise ValueError(f"no weighted form of {name!r}; expected one of {', '.join(corr.SEGMENT_COEFFICIENTS)}")

    def _spearman_many(self, counts: NDArray[np.int64]) -> FloatArray:
        """Spearman's rho of every resample: Pearson's r of the repeated points' average ranks.

        In a resample a point weighs its instance's draw count. Twice a point's average rank less the
        resample's points W plus one, its centred rank doubled, is the weight of the points below it less
        the weight of those above: with the points in order of metric score and cum the running sum of the
        weights, cum_end + cum_start - W over its block of equal scores (2 cum - w - W without ties), an
        integer. The sums of squares of tied average ranks are (W³ - W - sum over blocks (t³ - t)) / 12 and
        the cross sum is the points' weights times both doubled ranks, per human score level first (without
        ties, w (2 cum - w - W) summed over a level needs only w cum per point: the rest is per instance):
        every sum is an integer far below 2**53, exact in any order, so the only rounding is the final ratio.
        Undefined where the drawn points' metric or human scores are all equal (a zero sum of squares,
        exactly), as :func:`corr.coefficient_value` has it.
        """
        cells = self._rank_cells(np.shape(counts)[1])
        values = np.full(len(counts), NAN)
        n_points = len(cells.instances)
        # (resamples, points) buffers used again block after block: fresh ones cost more than the arithmetic
        weights_buffer, rank_buffer = np.empty((2, RESAMPLE_BLOCK, n_points), np.int64)
        level_buffer = np.empty((RESAMPLE_BLOCK, n_points), np.int64)
        for start in range(0, len(counts), RESAMPLE_BLOCK):
            block = np.asarray(counts[start : start + RESAMPLE_BLOCK], np.int64)
            rows = len(block)
            weights = np.take(block, cells.instances, axis=1, out=weights_buffer[:rows])  # in order of metric score
            running = np.cumsum(weights, axis=1, out=rank_buffer[:rows])
            total = running[:, -1:].copy()
            # cubes of the resample's points in exact integers; beyond CUBES_EXACT points they would overflow
            # them, and are rounded floats (every sum of squares the same expression, so all-equal is still 0)
            cube = np.int64 if total.max(initial=0) < CUBES_EXACT else np.float64
            y_sizes = block @ cells.y_points
            y_rank = 2 * np.cumsum(y_sizes, axis=1) - y_sizes - total
            if cells.block_ends is None:
                # sum over a level's points of w (2 running - w - total): the last two terms per instance
                running *= weights
                per_level = 2 * cells.per_level(running, level_buffer[:rows])
                per_level -= (block * block) @ cells.y_points + total * y_sizes
                x_ties = (block.astype(cube) ** 3 - block) @ cells.points  # a point's copies tie with one another
            else:
                ends = running[:, cells.block_ends]
                sizes = np.diff(ends, axis=1, prepend=0)
                x_rank = np.take(2 * ends - sizes - total, cells.block_of, axis=1, out=rank_buffer[:rows])
                x_rank *= weights
                per_level = cells.per_level(x_rank, level_buffer[:rows])
                x_ties = (sizes.astype(cube) ** 3 - sizes).sum(axis=1)
            cross = (per_level.astype(float) * y_rank).sum(axis=1)  # 4 sum (rx - mean)(ry - mean)
            w = total[:, 0].astype(cube)
            sxx = w**3 - w - x_ties  # 12 sum (rx - mean)²
            syy = w**3 - w - (y_sizes.astype(cube) ** 3 - y_sizes).sum(axis=1)
            defined = (sxx > 0) & (syy > 0) & (w >= corr.MIN_POINTS)
            with np.errstate(invalid="ignore", divide="ignore"):
                r = 3 * cross / np.sqrt(sxx.astype(float) * syy.astype(float))
            values[start : start + RESAMPLE_BLOCK] = np.where(defined, np.clip(r, -1.0, 1.0), NAN)
        return values

    def _rank_cells(self, n_instances: int) -> _RankCells:
        if self._cells is None or self._cells.y_points.shape[0] != n_instances:
            self._cells = _RankCells.of(self.metric, self.human, self.instances, n_instances)
        return self._cells

    def _spread(self, counts: FloatArray) -> Mask:
        """Per resample (row of instance draw counts): do the drawn points' metric and human scores both vary?
        From each instance's highest and lowest score: the drawn instance first in order of highest
        score has the resample's highest, and likewise for the lowest, so no (resamples, points) array is made."""
        n_instances = counts.shape[1]
        drawn = counts > 0
        varies: Mask = np.asarray(drawn.any(axis=1))
        for values in (self.metric, self.human):
            high = np.full(n_instances, -np.inf)
            low = np.full(n_instances, np.inf)
            np.maximum.at(high, self.instances, values)
            np.minimum.at(low, self.instances, values)
            by_high, by_low = np.argsort(-high, kind="stable"), np.argsort(low, kind="stable")
            highest = high[by_high][drawn[:, by_high].argmax(axis=1)]
            lowest = low[by_low][drawn[:, by_low].argmax(axis=1)]
            varies &= highest - lowest > 0
        return varies

    def _pearson_many(self, counts: NDArray[np.int64]) -> FloatArray:
        """Pearson's r of every resample from per-instance sums: a resample's weighted sums of 1, x, y,
        x², y² and xy are the draw counts times the instances' sums (x and y centred on their plain
        means first, so the moments lose no digits to cancellation)."""
        weights = np.asarray(counts, float)
        n_instances = weights.shape[1]
        x, y = self.metric - self.metric.mean(), self.human - self.human.mean()
        columns = (np.ones_like(x), x, y, x * x, y * y, x * y)
        per_instance = np.stack([np.bincount(self.instances, weights=c, minlength=n_instances) for c in columns], 1)
        total, sx, sy, sxx, syy, sxy = (weights @ per_instance).T
        with np.errstate(invalid="ignore", divide="ignore"):
            r = (sxy - sx * sy / total) / np.sqrt((sxx - sx * sx / total) * (syy - sy * sy / total))
        defined = (total >= corr.MIN_POINTS) & self._spread(weights)
        return np.where(defined, np.clip(r, -1.0, 1.0), NAN)

    def _kendall_many(self, counts: NDArray[np.int64]) -> FloatArray:
        """Kendall's tau-b of every resample's repeated points, as scipy.stats.kendalltau gives it.

        Its numerator S (concordant less discordant pairs) is a quadratic form in the instances'
        draw counts c: S = c' M c / 2, where M[i, j] sums sign(dx) sign(dy) over the ordered pairs of
        points of instances i and j (a point's copies tie with one another and add nothing). M is
        built once: the points sorted by metric score are cut into chunks at boundaries between
        distinct values; a pair in two chunks has its metric order given by the chunks, so those
        pairs add up per (instance, human score level) with one matrix product, and only the pairs
        inside a chunk are compared one by one. The ties of either side per resample are weighted
        counts of the groups of equal values. Human scores with more than ``KENDALL_LEVELS_MAX``
        distinct values fall back to SciPy per resample.
        """
        weights = np.asarray(counts, float)
        values = np.full(len(weights), NAN)
        x, y, instances = self.metric, self.human, np.asarray(self.instances)
        level_values, levels = np.unique(y, return_inverse=True)
        levels = levels.ravel()
        if len(level_values) > corr.KENDALL_LEVELS_MAX:
            for b, row in enumerate(weights):
                repeat = row[instances].astype(np.int64)
                values[b] = corr.coefficient_value("kendall_b", np.repeat(x, repeat), np.repeat(y, repeat))
            return values
        n_instances, n_levels = weights.shape[1], len(level_values)
        pair_matrix = _kendall_pair_matrix(x, levels, instances, n_instances, n_levels)
        # integers throughout: in single precision when no partial sum can reach 2**24 (exact, twice as fast)
        if len(weights) and weights.sum(axis=1).max() * np.abs(pair_matrix).max() < SINGLE_PRECISION_EXACT:
            products = (weights.astype(np.float32) @ pair_matrix.astype(np.float32)).astype(float)
        else:
            products = weights @ pair_matrix
        s = 0.5 * (products * weights).sum(axis=1)
        points = np.bincount(instances, minlength=n_instances).astype(float)
        total = weights @ points
        pairs = total * (total - 1) / 2
        x_ties = _weighted_ties(self.sorted[0], instances, weights, n_instances)
        y_ties = _weighted_ties(self.sorted[1], instances, weights, n_instances)
        defined = (pairs - x_ties > 0) & (pairs - y_ties > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = s / np.sqrt(pairs - x_ties) / np.sqrt(pairs - y_ties)
        values[defined] = np.clip(tau[defined], -1.0, 1.0)
        return values


def _kendall_pair_matrix(
    x: FloatArray, levels: NDArray[np.intp], instances: NDArray[np.intp], n_instances: int, n_levels: int
) -> FloatArray:
    """(instances, instances) sums of sign(x_p - x_q) sign(y_p - y_q) over ordered pairs of points; see
    :meth:`FlattenedPoints._kendall_many`.

    Every term is an integer and every sum is bounded by the two instances' points multiplied, so
    the products over chunks are exact in single precision when that bound is below 2**24 (twice as
    fast); the pairs inside a chunk are taken once each (p before q in metric order, so sign(x_p - x_q)
    is -1 or, for equal scores, 0) and added to both (instance, instance) cells at the end.
    """
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    block_starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    # chunks of about KENDALL_CHUNK points cut between blocks; a block of at least that many equal scores (a
    # BLEU of zero) is a chunk of its own, where no pair counts, rather than making its chunk's pairs many
    bounds, last = [0], 0
    for start, end in zip(block_starts.tolist(), np.r_[block_starts[1:], len(x)].tolist()):
        large = end - start >= KENDALL_CHUNK
        if start > last and (start - last >= KENDALL_CHUNK or large):
            bounds.append(start)
            last = start
        if large and end < len(x):
            bounds.append(end)
            last = end
    bounds.append(len(x))
    largest = int(np.bincount(instances, minlength=n_instances).max()) if len(instances) else 0
    exact = np.float32 if largest * largest < SINGLE_PRECISION_EXACT else np.float64
    # Y[l, m] = sign(level_p - level_q) * sign(x_p - x_q) for p in an earlier chunk than q: -sign(l - m)
    level_index = np.arange(n_levels)
    y_sign = -np.sign(level_index[:, None] - level_index[None, :]).astype(exact)
    cells, signs = [], []
    small_levels: NDArray[np.signedinteger[Any]] = levels.astype(
        np.int8 if n_levels <= np.iinfo(np.int8).max else np.intp
    )
    for first, end in zip(bounds[:-1], bounds[1:]):
        if ordered[first] != ordered[end - 1]:
            points = order[first:end]
            before, after = _pairs_in_order(end - first)
            level = small_levels[points]
            sign = np.sign(level[after] - level[before])  # = sign(x_p - x_q) sign(y_p - y_q), p before q
            if len(np.unique(ordered[first:end])) < end - first:  # equal metric scores in the chunk count 0
                sign *= ordered[first:end][before] != ordered[first:end][after]
            owner = instances[points]
            cells.append(owner[before] * n_instances + owner[after])
            signs.append(sign)
    within = np.bincount(
        np.concatenate(cells) if cells else np.zeros(0, np.intp),
        weights=np.concatenate(signs).astype(float) if signs else None,
        minlength=n_instances * n_instances,
    ).reshape(n_instances, n_instances)
    # every point counted in its (instance, chunk, level) cell at once
    n_chunks = len(bounds) - 1
    chunk_of = np.repeat(np.arange(n_chunks), np.diff(bounds))
    chunks = (
        np.bincount(
            (instances[order] * n_chunks + chunk_of) * n_levels + levels[order],
            minlength=n_instances * n_chunks * n_levels,
        )
        .reshape(n_instances, n_chunks, n_levels)
        .astype(exact)
    )
    later = np.cumsum(chunks[:, ::-1], axis=1)[:, ::-1] - chunks  # the points of every later chunk
    left = (chunks @ y_sign).reshape(n_instances, -1)
    right = later.reshape(n_instances, -1)
    cross = (left @ right.T).astype(float)
    matrix: FloatArray = cross + cross.T + within + within.T
    return matrix


@lru_cache(maxsize=PAIR_INDEX_SIZES)
def _pairs_in_order(size: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The (earlier, later) positions of every pair among ``size`` points; chunks mostly share a size."""
    before, after = np.triu_indices(size, 1)
    return before, after


def _weighted_ties(
    blocks: _SortedBlocks, instances: NDArray[np.intp], counts: FloatArray, n_instances: int
) -> FloatArray:
    """Per resample, the tied pairs of the repeated points: sum over groups of equal values of t (t - 1) / 2,
    t being the group's points weighted by their instances' draw counts. A point alone with its value ties
    only with its own copies, c (c - 1) / 2 for an instance drawn c times: those are summed per instance."""
    sizes = np.diff(np.r_[blocks.starts, len(blocks.order)])
    point_instances = instances[blocks.order]
    alone = (sizes == 1)[blocks.block_of]
    lone_points = np.bincount(point_instances[alone], minlength=n_instances).astype(float)
    shared_groups, shared_of = np.unique(blocks.block_of[~alone], return_inverse=True)
    membership = sparse.csr_matrix(
        (np.ones(int((~alone).sum())), (shared_of.ravel(), point_instances[~alone])),
        shape=(len(shared_groups), n_instances),
    )
    ties: FloatArray = (counts * (counts - 1) / 2) @ lone_points
    if len(shared_groups):
        for start in range(0, len(counts), TIES_BLOCK):  # (block, groups) at a time
            sizes_drawn = np.asarray(membership @ counts[start : start + TIES_BLOCK].T, dtype=np.float64)
            ties[start : start + TIES_BLOCK] += (sizes_drawn * (sizes_drawn - 1) / 2).sum(axis=0)
    return ties


def _grouped_samples(cache: Mapping[str, Any], counts: NDArray[np.int64], bucket: dict[Any, FloatArray]) -> None:
    """Every resample's per-instance figures at once: the mean of the defined per-instance coefficients
    over the drawn instances (each as often as drawn), and the WMT tau from the drawn instances' pairs."""
    weights = np.asarray(counts, float)
    for name in corr.SEGMENT_COEFFICIENTS:
        per_instance = cache["grouped"][name]
        defined = np.isfinite(per_instance)
        used = weights @ defined
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (weights @ np.where(defined, per_instance, 0.0)) / used
        bucket[("grouped_by_instance", name)] = np.where(used > 0, mean, NAN)
    concordant, discordant = (np.asarray(counts, np.int64) @ cache["pairs"]).T
    together = concordant + discordant
    with np.errstate(invalid="ignore", divide="ignore"):
        bucket[("wmt_kendall", None)] = np.where(together > 0, (concordant - discordant) / together, NAN)


def interval(values: ArrayLike, confidence: float) -> list[float]:
    """Percentile bootstrap interval over the defined resample values; NaN when none is defined."""
    values = np.asarray(values, dtype=float)
    if not np.isfinite(values).any():
        return [NAN, NAN]
    low, high = bootstrap_compute.percentile_interval(values, confidence)
    return [float(low), float(high)]


def _attach_intervals(
    figures: Figures, samples: Mapping[str, dict[str, dict[Any, FloatArray]]], confidence: float
) -> None:
    for metric, by_name in samples["system_level"].items():
        for name, values in by_name.items():
            entry = figures["system_level"][metric][name]
            entry["bootstrap_ci"] = interval(values, confidence)
            if name != "pearson":
                entry["ci"] = entry["bootstrap_ci"]
    for metric, by_key in samples["segment_level"].items():
        for (section, name), values in by_key.items():
            section_figures = figures["segment_level"][metric][section]
            entry = section_figures if name is None else section_figures[name]
            entry["bootstrap_ci"] = interval(values, confidence)
            entry["ci"] = entry["bootstrap_ci"]


# --- comparisons -------------------------------------------------------------------------


def _comparisons(data: StudyData, mask: Mask, permutations: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """Williams' test and paired permutation tests for every pair of metrics, system and segment level."""
    results = []
    for first, second in combinations(data.metrics, 2):
        results.append(
            _compare(first.name, second.name, *_paired_system(data, first, second, mask), "system", permutations, rng)
        )
        if first.segment is not None and second.segment is not None:
            results.append(
                _compare(
                    first.name, second.name, *_paired_segment(data, first, second, mask), "segment", permutations, rng
                )
            )
    return results


def _paired_system(
    data: StudyData, first: MetricData, second: MetricData, mask: Mask
) -> tuple[FloatArray, FloatArray, FloatArray]:
    human = data.human_system
    keep = mask & np.isfinite(first.system) & np.isfinite(second.system) & np.isfinite(human)
    return np.asarray(first.system)[keep], np.asarray(second.system)[keep], human[keep]


def _paired_segment(
    data: StudyData, first: MetricData, second: MetricData, mask: Mask
) -> tuple[FloatArray, FloatArray, FloatArray]:
    a, b, h = _segment_of(first)[mask], _segment_of(second)[mask], data.human_segment[mask]
    keep = np.isfinite(a) & np.isfinite(b) & np.isfinite(h)
    return a[keep], b[keep], h[keep]


def _compare(
    name_a: str,
    name_b: str,
    a: FloatArray,
    b: FloatArray,
    human: FloatArray,
    level: str,
    permutations: int,
    rng: np.random.Generator,
) -> dict[str, Any]:
    """Orders the pair so that metric_a has the higher Pearson r; Williams' p is then one-sided for r_a > r_b."""
    r_a, r_b = corr.coefficient_value("pearson", a, human), corr.coefficient_value("pearson", b, human)
    if np.isfinite(r_b) and (not np.isfinite(r_a) or r_b > r_a):
        name_a, name_b, a, b, r_a, r_b = name_b, name_a, b, a, r_b, r_a
    r_ab = corr.coefficient_value("pearson", a, b)
    williams = corr.williams_test(r_a, r_b, r_ab, len(a))
    williams.update({"r_a": r_a, "r_b": r_b, "r_ab": r_ab, "n": int(len(a))})
    permutation = {
        name: corr.paired_permutation_test(a, b, human, name, permutations, rng) for name in PERMUTED_COEFFICIENTS
    }
    return {"level": level, "metric_a": name_a, "metric_b": name_b, "williams": williams, "permutation": permutation}


# --- the WMT metrics tasks' statistics ----------------------------------------------------


def _entry(value: float | None, samples: FloatArray | None, confidence: float, **extra: Any) -> dict[str, Any]:
    ci = interval(samples, confidence) if samples is not None and len(samples) else [NAN, NAN]
    return {"value": _plain(value), "ci": ci, **extra}


def _plain(value: float | None) -> float:
    return float(value) if value is not None and np.isfinite(value) else NAN


def wmt_statistics(
    data: StudyData,
    resamples: int,
    seed: int,
    confidence: float = CONFIDENCE_LEVEL,
    spa_permutations: int = SPA_PERMUTATIONS,
    spa_resamples: int = SPA_BOOTSTRAP_RESAMPLES,
    spa_resample_permutations: int = SPA_BOOTSTRAP_PERMUTATIONS,
    alpha: float = RANKING_ALPHA,
    progress: Progress | None = None,
    draws: Draws | None = None,
    spa: Callable[[], SoftPairwise] | None = None,
) -> Figures:
    """Pairwise accuracy, soft pairwise accuracy, acc_eq, acc_eq grouped and the metric ranking.

    Each statistic carries a 95% bootstrap interval over the same resamples of instances as
    the correlations (the same seed and streams): pairwise accuracy from the resampled system
    scores; acc_eq grouped re-searching epsilon on every resample; acc_eq (flattened) at the
    full sample's epsilon (its search over all output pairs is too costly to repeat);
    soft pairwise accuracy on the first ``spa_resamples`` resamples with
    ``spa_resample_permutations`` permutations each. The ranking's paired tests use these
    same bootstrap values. ``spa``, when given, returns soft pairwise accuracy computed elsewhere
    (:func:`correlation_report`'s forked child, with the default permutations and resamples).
    """
    step = progress or (lambda fraction, detail: None)
    sizes = _domain_sizes(data)
    if draws is None:
        draws = _domain_draws(sizes, resamples, seed) if resamples else {}
    human_system = data.human_system
    human_boot = data.human.scores_many(draws[CAMPAIGN_DOMAIN][1]) if resamples else np.zeros((0, len(data.systems)))
    system_level: dict[str, dict[str, Any]] = {}
    segment_level: dict[str, dict[str, Any]] = {}
    samples: dict[str, dict[str, FloatArray | None]] = {name: {} for name in WMT_STATISTICS}
    values: dict[str, dict[str, float | None]] = {name: {} for name in WMT_STATISTICS}
    # pairwise accuracy
    for metric in data.metrics:
        value = meta_evaluation.pairwise_accuracy(human_system, metric.system)
        boot = None
        if resamples:
            scores = (
                metric.resampler.scores_many(draws[metric.resampler.domain][1])
                if metric.resampler
                else np.broadcast_to(metric.system, human_boot.shape)
            )
            boot = meta_evaluation.pairwise_accuracy_many(human_boot, scores)
        _, pairs = meta_evaluation.pairwise_agreement(human_system, metric.system)
        system_level.setdefault(metric.name, {})["pairwise_accuracy"] = _entry(value, boot, confidence, pairs=pairs)
        values["pairwise_accuracy"][metric.name], samples["pairwise_accuracy"][metric.name] = value, boot
    # acc_eq, flattened and grouped by instance
    segment_metrics = [m for m in data.metrics if m.segment is not None]
    human_segment = data.human_segment
    for position, metric in enumerate(segment_metrics):
        step(0.1 + 0.3 * position / max(1, len(segment_metrics)), f"acc_eq: {metric.name}")
        assert metric.segment is not None  # segment_metrics holds only the metrics with segment scores
        flat = tie_calibration.FlatPairs(human_segment, metric.segment)
        result = tie_calibration.flat_accuracy_of(flat)
        grouped = tie_calibration.GroupedPairs(human_segment, metric.segment)
        grouped_value, grouped_epsilon = grouped.optimise()
        flat_boot = grouped_boot = None
        if resamples:
            counts = draws[CAMPAIGN_DOMAIN][1]
            flat_boot = _flat_accuracy_many(flat, result.epsilon, counts) if np.isfinite(result.epsilon) else None
            grouped_boot, _ = grouped.optimise_many(counts)
        segment_level[metric.name] = {
            "acc_eq": _entry(result.value, flat_boot, confidence, epsilon=_plain(result.epsilon), pairs=result.pairs),
            "acc_eq_grouped": _entry(
                grouped_value,
                grouped_boot,
                confidence,
                epsilon=_plain(grouped_epsilon),
                pairs=grouped.pairs,
                groups=int(grouped.groups.sum()),
            ),
        }
        values["acc_eq"][metric.name], samples["acc_eq"][metric.name] = result.value, flat_boot
        values["acc_eq_grouped"][metric.name], samples["acc_eq_grouped"][metric.name] = grouped_value, grouped_boot
    # soft pairwise accuracy
    if spa is not None:
        step(0.4, "Soft pairwise accuracy")
        spa_values, spa_p = spa()
    else:
        spa_values, spa_p = _soft_pairwise(
            data,
            draws,
            seed,
            spa_permutations,
            min(spa_resamples, resamples),
            spa_resample_permutations,
            lambda fraction, detail: step(0.4 + 0.55 * fraction, detail),
        )
    for metric in data.metrics:
        value, boot = spa_values.get(metric.name, (NAN, None))
        system_level.setdefault(metric.name, {})["soft_pairwise_accuracy"] = _entry(
            value, boot, confidence, permutations=spa_permutations
        )
        values["soft_pairwise_accuracy"][metric.name], samples["soft_pairwise_accuracy"][metric.name] = value, boot
    step(0.97, "Ranking the metrics")
    ranking = {}
    for statistic, level in WMT_STATISTICS.items():
        ordered, p_values = metric_ranking.rank_metrics(values[statistic], samples[statistic], alpha)
        ranking[statistic] = {"level": level, "metrics": ordered, "p_values": p_values}
    return {
        "system_level": system_level,
        "segment_level": segment_level,
        "soft_pairwise": spa_p,
        "metric_ranking": {
            "alpha": alpha,
            "method": "metrics ordered by the statistic; p(a above b) = share of bootstrap resamples where b's "
            "statistic is at least a's (paired: the same resamples for every metric); clusters as "
            "mt-metrics-eval's AssignRanks",
            "statistics": ranking,
        },
    }


def _flat_accuracy_many(flat: tie_calibration.FlatPairs, epsilon: float, counts: NDArray[np.int64]) -> FloatArray:
    """acc_eq (flattened) of every resample at the full sample's epsilon, as ``tie_calibration.flat_accuracy_at``
    gives it resample by resample: each output weighted by its instance's draw count.

    The agreeing pairs of a resample are a quadratic form in the instances' draw counts c,
    ``c' M c + sum_g outputs_g c_g (c_g - 1) / 2`` (``FlatPairs.agreement_matrix``): integers
    below 2^53 in float64, so exactly the row-by-row counts."""
    n_instances = counts.shape[1]
    instances = np.flatnonzero(flat.keep) % n_instances
    matrix = flat.agreement_matrix(epsilon, instances, n_instances)
    outputs = np.bincount(instances, minlength=n_instances).astype(float)
    c = np.asarray(counts, float)
    # c M: non-negative integers; in float32 (half the cost) when no sum can reach 2^24, where it is exact
    single = len(c) and c.max() * matrix.sum(axis=1).max() < SINGLE_PRECISION_EXACT
    weighted = (c.astype(np.float32) @ matrix.astype(np.float32)).astype(float) if single else c @ matrix
    agreeing = (weighted * c).sum(axis=1) + (c * (c - 1) / 2) @ outputs
    total = c @ outputs
    with np.errstate(invalid="ignore", divide="ignore"):
        values: FloatArray = np.where(total >= 2, agreeing / (total * (total - 1) / 2), NAN)
    return values


def _soft_pairwise_of(data: StudyData, draws: Draws, seed: int, resamples: int, step: Progress) -> SoftPairwise:
    """:func:`_soft_pairwise` with the report's default permutations and resamples (as :func:`wmt_statistics`)."""
    return _soft_pairwise(
        data,
        draws,
        seed,
        SPA_PERMUTATIONS,
        min(SPA_BOOTSTRAP_RESAMPLES, resamples),
        SPA_BOOTSTRAP_PERMUTATIONS,
        step,
    )


def _soft_pairwise(
    data: StudyData,
    draws: Draws,
    seed: int,
    permutations: int,
    resamples: int,
    resample_permutations: int,
    step: Progress,
) -> SoftPairwise:
    """{metric: (SPA, bootstrap values)} and the per-pair p-values (human and each metric)."""
    domains = sorted({CAMPAIGN_DOMAIN} | {m.resampler.domain for m in data.metrics if m.resampler is not None})
    rngs = {
        domain: np.random.default_rng(np.random.SeedSequence([seed, SPA_STREAM + position]))
        for position, domain in enumerate(domains)
    }
    sizes = _domain_sizes(data)
    signs = {
        domain: soft_pairwise.swap_signs(permutations, np.ones(sizes[domain], dtype=np.int64), rngs[domain])
        for domain in domains
    }
    sets = [(data.human, None)] + [(m.resampler, m.name) for m in data.metrics if m.resampler is not None]
    prepared = [soft_pairwise.Prepared(resampler.stats) for resampler, _ in sets]
    # the ratio score (formula (1), means of segment scores) is computed on the swapped sums directly
    scores = [None if resampler.score is _ratio else resampler.score for resampler, _ in sets]

    def p_values(swaps: Mapping[str, tuple[Any, ...]]) -> tuple[FloatArray, dict[str, FloatArray]]:
        found = [
            soft_pairwise.drawn_p_values(ready, score, *swaps[resampler.domain])
            for ready, score, (resampler, _) in zip(prepared, scores, sets)
        ]
        return found[0], {name: p for p, (_, name) in zip(found[1:], sets[1:]) if name is not None}

    human_p, metric_p = p_values({domain: (signs[domain], None, None) for domain in domains})
    spa = {name: soft_pairwise.soft_pairwise_accuracy(human_p, p) for name, p in metric_p.items()}
    boot: dict[str, list[float]] = {name: [] for name in metric_p}
    for b in range(resamples):
        if b % PROGRESS_EVERY == 0:
            step(b / max(1, resamples), f"Soft pairwise accuracy: {b:,} of {resamples:,} resamples")
        swaps = {}
        for domain in domains:
            counts = draws[domain][1][b]
            drawn, drawn_signs = soft_pairwise.drawn_swaps(resample_permutations, counts, rngs[domain])
            swaps[domain] = (drawn_signs, drawn, np.asarray(counts, float))
        human_b, metric_b = p_values(swaps)
        for name, p in metric_b.items():
            boot[name].append(soft_pairwise.soft_pairwise_accuracy(human_b, p))
    first, second = np.triu_indices(len(data.systems), 1)
    pairs = [
        {
            "a": data.systems[i],
            "b": data.systems[j],
            "p_human": _plain(human_p[i, j]),
            "p_metrics": {name: _plain(p[i, j]) for name, p in metric_p.items()},
        }
        for i, j in zip(first, second)
    ]
    details = {
        "permutations": permutations,
        "bootstrap_resamples": resamples,
        "bootstrap_permutations": resample_permutations,
        "test": "one-sided paired permutation test over instances: p(a better than b)",
        "pairs": pairs,
    }
    return {name: (spa[name], np.asarray(boot[name]) if boot[name] else None) for name in metric_p}, details
