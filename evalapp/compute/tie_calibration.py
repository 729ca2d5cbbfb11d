"""Pairwise accuracy with tie calibration: acc_eq (Deutsch, Foster and Freitag 2023, "Ties Matter").

Over pairs of outputs, a pair *agrees* when the metric orders it as the humans do, or when
both the humans and the metric tie it; the metric ties a pair when its two scores differ by
at most a threshold epsilon. acc_eq is the accuracy at the epsilon that maximises it, found
by exhaustive search over every candidate threshold (0 and every absolute metric
difference), as mt-metrics-eval's ``KendallWithTiesOpt(variant="acc23", sample_rate=1.0)``:
the first (smallest) threshold reaching the maximum is reported.

Two forms:

- **grouped** (``average_by="item"``): the outputs of each instance form a group; the value
  is the mean over groups (with at least one pair) of each group's accuracy, with one
  epsilon shared by all groups. There are few pairs per group, so every pair is enumerated
  once, as NumPy arrays sorted by metric difference. A bootstrap resample re-weights the
  groups and searches epsilon again: its value at a threshold is linear in the groups'
  weights, so one matrix product gives every resample's value at the ends of chunks of
  thresholds and a bound inside each chunk, and only the chunks that can hold the maximum
  are enumerated (:meth:`GroupedPairs.optimise_many`).
- **flattened** (``average_by="none"``): all outputs form one group. Its n(n-1)/2 pairs are
  never listed: the number of agreeing pairs at a threshold is counted in O(U n log n)
  (U distinct human scores) from sorted arrays, and the search is a branch and bound over
  thresholds: on (lo, hi] the agreement is at most ties(hi) + concordant(lo), because the
  human-tied pairs the metric ties can only grow and the concordant pairs it keeps can only
  shrink with the threshold. Bins that cannot reach the best value are dropped; the others
  are cut again until few pairs move the agreement inside them, and those enumerate their
  candidate thresholds. Counts are integers, so the maximum is exact. A bootstrap resample
  keeps the epsilon of the full sample (see :func:`flat_accuracy`); its agreeing pairs are a
  quadratic form in the instances' draw counts (:meth:`FlatPairs.agreement_matrix`).

A metric difference is always the float ``abs(m1 - m2)``, as mt-metrics-eval computes it,
so thresholds that are themselves differences compare exactly. No Django imports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

FIRST_BINS = 16  # the flattened search's first bins (quantiles of a sample of differences)
SPLIT_BINS = 8  # ... each bin that can hold the maximum is cut into this many again
ENUMERATED_EVENTS = 200_000  # ... until it has at most this many pairs that move the agreement: then they are listed
MAX_DEPTH = 8  # ... or it was cut this often
EVALUATED_TOGETHER = 64  # thresholds counted in one pass (memory: outputs x this many positions)
SAMPLE_PAIRS = 200_000  # random pairs whose differences place the cuts
BATCH = 250  # bootstrap resamples searched together in the grouped search (memory: batch x instances floats)
CHUNKS = 128  # contiguous chunks of the grouped search's thresholds (bounded by one matrix product)
SEARCH_MARGIN = 4  # tolerances of room in the grouped search's bounds for the rounding of their sums
PARTNER_CHUNK = 32  # flattened agreement by group: partners summed per chunk of this many, the rest one by one
EXACT_LIMIT = 2.0**53  # integers below this are exact in float64
RELATIVE_TOLERANCE = 1e-12  # grouped values are float means: maxima equal up to this are ties


@dataclass
class TieResult:
    value: float
    epsilon: float
    pairs: int


# --- grouped ----------------------------------------------------------------------------


class GroupedPairs:
    """Every within-instance pair of outputs, sorted by metric difference, ready for the search.

    ``human`` and ``metric`` are (systems, instances) with NaN where a score is missing; a
    pair counts when both outputs have both scores.
    """

    def __init__(self, human: ArrayLike, metric: ArrayLike) -> None:
        human, metric = np.asarray(human, np.float64), np.asarray(metric, np.float64)
        n_systems, n_instances = human.shape
        valid = np.isfinite(human) & np.isfinite(metric)
        first, second = np.triu_indices(n_systems, 1)
        both = valid[first] & valid[second]  # (pairs of systems, instances)
        dh = (human[first] - human[second])[both]
        dm = (metric[first] - metric[second])[both]
        group = np.broadcast_to(np.arange(n_instances), both.shape)[both]
        self.n_instances = n_instances
        self.pairs_per_group = np.bincount(group, minlength=n_instances).astype(np.float64)
        self.groups = self.pairs_per_group > 0
        concordant = ((dh > 0) & (dm > 0)) | ((dh < 0) & (dm < 0))
        agree = concordant | ((dh == 0) & (dm == 0))
        # tying a pair in the metric makes it agree exactly when the humans tie it too
        flip = (dh == 0).astype(np.float64) - agree
        diff = np.abs(dm)
        order = np.argsort(diff, kind="stable")
        self.diff, self.flip, self.group = diff[order], flip[order], group[order]
        self.agree_per_group = np.bincount(group, weights=agree.astype(np.float64), minlength=n_instances)
        # thresholds: 0, then every distinct difference; the value at a threshold counts every pair up to it
        if len(self.diff):
            last = np.r_[self.diff[1:] != self.diff[:-1], True]
            self.ends = np.flatnonzero(last)
            self.thresholds = self.diff[self.ends]
        else:
            self.ends = np.zeros(0, dtype=np.int64)
            self.thresholds = np.zeros(0)

    @property
    def pairs(self) -> int:
        return len(self.diff)

    def optimise(self, weights: ArrayLike | None = None) -> tuple[float, float]:
        """(value, epsilon) for group weights (bootstrap counts; None = each group once)."""
        values, epsilons = self.optimise_many(None if weights is None else np.asarray(weights, np.float64)[None, :])
        return values[0], epsilons[0]

    def optimise_many(self, weights: ArrayLike | None) -> tuple[FloatArray, FloatArray]:
        """Values and epsilons for each row of ``weights`` (resamples x instances); None = once each.

        A resample's value at a threshold is ``base + sum of step_p * w[group_p]`` over the pairs up
        to it: linear in the resample's (normalised) group weights. The thresholds are cut into
        contiguous chunks; one matrix product gives every resample's value at every chunk end and
        an upper bound inside every chunk (its start value plus its positive steps: the weights
        are never negative). Only the chunks whose bound reaches the best chunk end (less the
        tolerance) are enumerated threshold by threshold, for the resamples that need them, so
        the result is the exhaustive search's: the largest value, and the first (smallest)
        threshold reaching it within ``RELATIVE_TOLERANCE`` (values equal to float rounding).
        """
        if weights is None:
            weights = np.ones((1, self.n_instances))
        weights = np.where(self.groups, np.asarray(weights, np.float64), 0.0)
        total = weights.sum(axis=1)
        values = np.full(len(weights), np.nan)
        epsilons = np.full(len(weights), np.nan)
        if not self.pairs:
            return values, epsilons
        per_pair = np.zeros(self.n_instances)
        per_pair[self.groups] = 1.0 / self.pairs_per_group[self.groups]
        base_per_group = self.agree_per_group * per_pair
        step = self.flip * per_pair[self.group]
        chunks = _Chunks(self.ends, self.group, step, self.n_instances)
        thresholds = np.concatenate([[0.0], self.thresholds])
        ok = np.flatnonzero(total > 0)
        common = self._common_denominator(weights)
        for start in range(0, len(ok), BATCH):
            rows = ok[start : start + BATCH]
            w = weights[rows] / total[rows, None]  # normalised: values are accuracies
            value, index = chunks.search(w, w @ base_per_group)
            if common:
                value = self._exact_values(weights[rows], index, common)
            values[rows], epsilons[rows] = value, thresholds[index]
        return values, epsilons

    def _common_denominator(self, weights: FloatArray) -> int:
        """The least common multiple L of the groups' pair counts, when integer weights make every
        value a fraction whose numerator and denominator (L x total weight) are integers below 2^53;
        else 0."""
        if not self.pairs or not np.array_equal(weights, np.round(weights)):
            return 0
        common = math.lcm(*np.unique(self.pairs_per_group[self.groups]).astype(np.int64).tolist())
        return common if common * float(weights.sum(axis=1).max()) < EXACT_LIMIT else 0

    def _exact_values(self, weights: FloatArray, index: IntArray, common: int) -> FloatArray:
        """The values at the candidate ``index`` of each row of integer ``weights``, as one division of
        integers, sum_g w_g agree_g (L / pairs_g) / (L sum_g w_g): correctly rounded, so resamples
        (and metrics) whose values are equal fractions get equal floats, whatever order their
        pairs were summed in (the ranking counts ties as "at least")."""
        # the pairs flipped at candidate k are the first cut[k]: 0 for the threshold 0, else up to its end
        cut = np.where(index > 0, self.ends[np.maximum(index - 1, 0)] + 1, 0)
        cuts, row_cut = np.unique(cut, return_inverse=True)
        used = slice(0, int(cuts[-1]))
        segment = np.searchsorted(cuts, np.arange(used.stop), side="right")  # pair p counts at cuts[k] for k >= it
        flips = np.bincount(
            segment * self.n_instances + self.group[used],
            weights=self.flip[used],
            minlength=len(cuts) * self.n_instances,
        ).reshape(len(cuts), self.n_instances)
        agree = self.agree_per_group + np.cumsum(flips, axis=0)  # (cuts, groups): agreeing pairs at each cut
        scale = np.zeros(self.n_instances)
        scale[self.groups] = common // self.pairs_per_group[self.groups]
        numerator = (weights * agree[row_cut] * scale).sum(axis=1)
        exact: FloatArray = numerator / (common * weights.sum(axis=1))
        return exact


class _Chunks:
    """The grouped search's thresholds cut into contiguous chunks, with each group's steps per chunk."""

    def __init__(self, ends: IntArray, group: IntArray, step: FloatArray, n_groups: int) -> None:
        self.ends, self.group, self.step = ends, group, step
        n_chunks = max(1, min(CHUNKS, len(ends)))
        # chunk c holds thresholds [first[c], last[c]) and pairs [pair_start[c], pair_stop[c])
        bounds = np.unique(np.linspace(0, len(ends), n_chunks + 1).astype(np.int64))
        self.first, self.last = bounds[:-1], bounds[1:]
        self.pair_stop = ends[self.last - 1] + 1
        self.pair_start = np.r_[0, self.pair_stop[:-1]]
        chunk_of_pair = np.repeat(np.arange(len(self.first)), self.pair_stop - self.pair_start)
        cell = group * len(self.first) + chunk_of_pair
        size = n_groups * len(self.first)
        steps = np.bincount(cell, weights=step, minlength=size).reshape(n_groups, -1)
        rises = np.bincount(cell, weights=np.maximum(step, 0.0), minlength=size).reshape(n_groups, -1)
        # one product gives each chunk's end value and its positive steps
        self.matrix = np.concatenate([np.cumsum(steps, axis=1), rises], axis=1)

    def search(self, w: FloatArray, base: FloatArray) -> tuple[FloatArray, IntArray]:
        """(value, candidate index) per row of normalised weights ``w``; index 0 is the threshold 0
        before any pair, index k + 1 the k-th distinct difference."""
        n_chunks = len(self.first)
        product = w @ self.matrix
        at_ends = base[:, None] + product[:, :n_chunks]
        at_starts = np.concatenate([base[:, None], at_ends[:, :-1]], axis=1)
        bound = at_starts + product[:, n_chunks:]
        lower = np.maximum(base, at_ends.max(axis=1))
        # a chunk can hold a threshold reaching the maximum (>= lower) within the tolerance only if its bound
        # does; the factor leaves room for the rounding of the product against the enumeration's sums
        margin = SEARCH_MARGIN * RELATIVE_TOLERANCE * np.maximum(1.0, np.abs(lower))
        need = bound >= (lower - margin)[:, None]
        # first the maximum of every chunk that needs it, then the first chunk reaching the maximum is swept
        # again for its threshold (only maxima are kept: memory stays rows x one chunk)
        chunk_best = np.full(need.shape, -np.inf)
        for chunk in np.flatnonzero(need.any(axis=0)):
            rows = np.flatnonzero(need[:, chunk])
            chunk_best[rows, chunk] = self._curve(w, rows, int(chunk), at_starts[rows, chunk]).max(axis=1)
        best = np.maximum(base, chunk_best.max(axis=1))
        reach = best - RELATIVE_TOLERANCE * np.maximum(1.0, np.abs(best))
        value = base.copy()
        index = np.zeros(len(w), dtype=np.int64)
        reaching = chunk_best >= reach[:, None]
        first_chunk = np.where(base < reach, reaching.argmax(axis=1), -1)  # -1: the threshold 0 before any pair
        for chunk in np.unique(first_chunk[first_chunk >= 0]):
            rows = np.flatnonzero(first_chunk == chunk)
            curve = self._curve(w, rows, int(chunk), at_starts[rows, chunk])
            first = (curve >= reach[rows, None]).argmax(axis=1)
            value[rows] = curve[np.arange(len(rows)), first]
            index[rows] = self.first[chunk] + first + 1
        return value, index

    def _curve(self, w: FloatArray, rows: IntArray, chunk: int, start: FloatArray) -> FloatArray:
        """The values of ``rows`` at every threshold of ``chunk``, from their values before it."""
        begin, stop = self.pair_start[chunk], self.pair_stop[chunk]
        local_ends = self.ends[self.first[chunk] : self.last[chunk]] - begin
        running = np.cumsum(self.step[begin:stop] * w[rows][:, self.group[begin:stop]], axis=1)
        curve: FloatArray = start[:, None] + running[:, local_ends]
        return curve


def grouped_accuracy(human: ArrayLike, metric: ArrayLike) -> TieResult:
    """acc_eq grouped by instance: :class:`TieResult` for (systems, instances) score matrices."""
    pairs = GroupedPairs(human, metric)
    value, epsilon = pairs.optimise()
    return TieResult(float(value), float(epsilon), pairs.pairs)


# --- flattened --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Bin:
    """Thresholds (low, high] of the flattened search, with the exact counts at both ends."""

    low: float
    high: float
    tie_low: int  # human-tied pairs the metric ties at low
    tie_high: int
    conc_low: int  # concordant pairs at low
    conc_high: int
    depth: int  # how often the thresholds were cut to reach this bin

    @property
    def events(self) -> int:
        """The pairs that move the agreement inside the bin (listed when it is swept)."""
        return self.tie_high - self.tie_low + self.conc_low - self.conc_high


def _first_above(sorted_values: FloatArray, anchors: FloatArray, thresholds: FloatArray) -> IntArray:
    """Per anchor a and threshold t, the first index k with ``sorted_values[k] - a > t`` (float differences).

    ``anchors`` (p,), ``thresholds`` (K,) -> (p, K). ``a + t`` locates it; a step or two
    fixes the rounding of ``a + t`` against the rounding of the subtraction.
    """
    n = len(sorted_values)
    a = anchors[:, None]
    k = np.searchsorted(sorted_values, (a + thresholds[None, :]).ravel(), side="right").reshape(len(anchors), -1)
    while True:
        right = (k < n) & (sorted_values[np.minimum(k, n - 1)] - a <= thresholds[None, :])
        if not right.any():
            break
        k += right
    while True:
        left = (k > 0) & (sorted_values[np.maximum(k - 1, 0)] - a > thresholds[None, :])
        if not left.any():
            break
        k -= left
    return k


class FlatPairs:
    """All outputs as one group: agreement counts at any thresholds without listing the pairs."""

    def __init__(self, human: ArrayLike, metric: ArrayLike) -> None:
        human, metric = np.asarray(human, np.float64).ravel(), np.asarray(metric, np.float64).ravel()
        keep = np.isfinite(human) & np.isfinite(metric)
        self.keep = keep
        human, metric = human[keep], metric[keep]
        self.n = len(human)
        levels, level_of = np.unique(human, return_inverse=True)
        self.levels: list[IntArray] = []
        for level in range(len(levels)):
            members = np.flatnonzero(level_of == level)
            order = members[np.argsort(metric[members], kind="stable")]
            self.levels.append(order)
        self.metric = metric
        # for each level, the metric scores of all outputs humans scored higher, sorted
        self.higher: list[IntArray] = []
        above = np.zeros(0, dtype=np.int64)
        for level in reversed(range(len(self.levels))):
            self.higher.append(above[np.argsort(metric[above], kind="stable")])
            above = np.concatenate([above, self.levels[level]])
        self.higher.reverse()

    @property
    def pairs(self) -> int:
        return self.n * (self.n - 1) // 2

    def agreement(self, thresholds: ArrayLike, weights: ArrayLike | None = None) -> FloatArray:
        """Agreeing pairs at each threshold (integers without weights; weighted counts with them).

        ``weights`` (n,) count how often each kept output was drawn (a bootstrap resample);
        copies of one output tie with each other, so they agree.
        """
        thresholds = np.atleast_1d(np.asarray(thresholds, np.float64))
        w = np.ones(self.n) if weights is None else np.asarray(weights, np.float64)
        total = np.zeros(len(thresholds))
        for members, higher in zip(self.levels, self.higher):
            x = self.metric[members]
            wx = w[members]
            cumulative = np.r_[0.0, np.cumsum(wx)]
            k = _first_above(x, x, thresholds)  # pairs with the next ones at most t above: tied by the metric
            total += (wx[:, None] * (cumulative[k] - cumulative[1 : len(x) + 1, None])).sum(axis=0)
            if len(higher):
                y = self.metric[higher]
                cumulative_y = np.r_[0.0, np.cumsum(w[higher])]
                k = _first_above(y, x, thresholds)  # higher human score and metric more than t above: concordant
                total += (wx[:, None] * (cumulative_y[-1] - cumulative_y[k])).sum(axis=0)
        total += (w * (w - 1) / 2).sum()
        return total

    def tied_pairs(self, thresholds: ArrayLike) -> IntArray:
        """Pairs with equal human scores whose metric difference is at most each threshold."""
        thresholds = np.atleast_1d(np.asarray(thresholds, np.float64))
        total = np.zeros(len(thresholds), dtype=np.int64)
        for members in self.levels:
            x = self.metric[members]
            k = _first_above(x, x, thresholds)
            total += (k - np.arange(1, len(x) + 1)[:, None]).sum(axis=0)
        return total

    def concordant_pairs(self, thresholds: ArrayLike) -> IntArray:
        """Pairs the metric orders as the humans do by more than each threshold."""
        thresholds = np.atleast_1d(np.asarray(thresholds, np.float64))
        total = np.zeros(len(thresholds), dtype=np.int64)
        for members, higher in zip(self.levels, self.higher):
            if len(higher):
                y = self.metric[higher]
                total += (len(y) - _first_above(y, self.metric[members], thresholds)).sum(axis=0)
        return total

    def _events(self, low: float, high: float) -> tuple[FloatArray, IntArray]:
        """Metric differences in (low, high] of the pairs that move the agreement: +1 for a
        human-tied pair (tying it in the metric makes it agree), -1 for a concordant pair
        (tying it makes it disagree). Returns (differences, signs)."""
        bounds = np.array([low, high])
        diffs: list[FloatArray] = []
        signs: list[IntArray] = []
        for members, higher in zip(self.levels, self.higher):
            x = self.metric[members]
            for values, sign in ((x, 1), (self.metric[higher], -1)):
                if not len(values):
                    continue
                k = _first_above(values, x, bounds)
                found = _gather(values, x, k[:, 0], k[:, 1])
                diffs.append(found)
                signs.append(np.full(len(found), sign, dtype=np.int64))
        if not diffs:
            return np.zeros(0), np.zeros(0, dtype=np.int64)
        return np.concatenate(diffs), np.concatenate(signs)

    def _sample(self) -> FloatArray:
        """The sorted positive differences of random pairs: where the search cuts its bins (they
        only decide how the search is cut, never its result)."""
        rng = np.random.default_rng(0)
        size = min(SAMPLE_PAIRS, self.n * self.n)
        first = rng.integers(0, self.n, size)
        second = rng.integers(0, self.n, size)
        sample = np.abs(self.metric[first] - self.metric[second])
        return np.sort(sample[sample > 0])

    @staticmethod
    def _cuts(sample: FloatArray, low: float, high: float, bins: int) -> FloatArray:
        """Up to ``bins - 1`` thresholds strictly inside (low, high) that split it into bins of
        similar numbers of pairs: quantiles of the sampled differences there, or evenly spaced
        thresholds when too few of them fall inside."""
        inside = sample[np.searchsorted(sample, low, side="right") : np.searchsorted(sample, high, side="left")]
        if len(inside) >= bins:
            cuts = np.quantile(inside, np.linspace(0, 1, bins + 1)[1:-1])
        else:
            cuts = np.linspace(low, high, bins + 1)[1:-1]
        cuts = np.unique(cuts)
        inner: FloatArray = cuts[(cuts > low) & (cuts < high)]
        return inner

    def _counts_at(self, thresholds: FloatArray) -> tuple[IntArray, IntArray]:
        """(human-tied pairs tied by the metric, concordant pairs) at each threshold."""
        parts = np.array_split(thresholds, max(1, len(thresholds) // EVALUATED_TOGETHER))
        ties = np.concatenate([self.tied_pairs(part) for part in parts])
        concordant = np.concatenate([self.concordant_pairs(part) for part in parts])
        return ties, concordant

    def optimise(self) -> tuple[int, float]:
        """(agreeing pairs, epsilon) at the first threshold reaching the maximum, exactly.

        The agreement is evaluated at bin boundaries; a bin (lo, hi] can hold a threshold
        reaching the best value so far only if ties(hi) + concordant(lo) does. The thresholds
        are cut into ``FIRST_BINS`` bins; a bin that can still hold the maximum is cut again into
        ``SPLIT_BINS`` while it has more than ``ENUMERATED_EVENTS`` pairs that move the agreement,
        and the remaining ones have their events enumerated and swept in order of difference.
        """
        if self.n < 2:
            return 0, 0.0
        spread = float(self.metric.max() - self.metric.min())
        tie_zero, conc_zero = (int(v[0]) for v in self._counts_at(np.zeros(1)))
        best_value, best_t = tie_zero + conc_zero, 0.0
        if spread == 0.0:
            return best_value, best_t
        sample = self._sample()
        # bins still to cut: (low, ties at low, concordant at low, depth, the cuts after low up to high)
        to_cut = [(0.0, tie_zero, conc_zero, 0, np.r_[self._cuts(sample, 0.0, spread, FIRST_BINS), spread])]
        lower = best_value
        swept: list[_Bin] = []
        while to_cut:
            ties, conc = self._counts_at(np.concatenate([edges for *_, edges in to_cut]))
            # the agreement at a boundary is reached at the largest candidate at or below it
            lower = max(lower, int((ties + conc).max()))
            bins: list[_Bin] = []
            stop = 0
            for low, tie_low, conc_low, depth, edges in to_cut:
                start, stop = stop, stop + len(edges)
                lows = np.r_[low, edges[:-1]]
                tie_lows, conc_lows = np.r_[tie_low, ties[start : stop - 1]], np.r_[conc_low, conc[start : stop - 1]]
                bins += [
                    _Bin(float(lo), float(hi), int(tl), int(th), int(cl), int(ch), depth + 1)
                    for lo, hi, tl, th, cl, ch in zip(
                        lows, edges, tie_lows, ties[start:stop], conc_lows, conc[start:stop]
                    )
                ]
            to_cut = []
            for piece in bins:
                if piece.tie_high == piece.tie_low or piece.tie_high + piece.conc_low < lower:
                    continue  # no human-tied pair in (low, high] (no candidate threshold), or it cannot reach
                inner = np.zeros(0)
                if piece.events > ENUMERATED_EVENTS and piece.depth < MAX_DEPTH:
                    inner = self._cuts(sample, piece.low, piece.high, SPLIT_BINS)
                if len(inner):
                    to_cut.append((piece.low, piece.tie_low, piece.conc_low, piece.depth, np.r_[inner, piece.high]))
                else:
                    swept.append(piece)
        found = best_value >= lower
        best_value = max(best_value, lower)
        for piece in sorted(swept, key=lambda piece: piece.low):
            bound = piece.tie_high + piece.conc_low
            if bound < best_value or (bound == best_value and found):
                continue
            diffs, signs = self._events(piece.low, piece.high)
            order = np.argsort(diffs, kind="stable")
            diffs, signs = diffs[order], signs[order]
            last = np.r_[diffs[1:] != diffs[:-1], True]
            values = piece.tie_low + piece.conc_low + np.cumsum(signs)[last]
            thresholds = diffs[last]
            top = int(values.max())
            if top > best_value or (top == best_value and not found):
                best_value, best_t, found = top, float(thresholds[int(np.argmax(values == top))]), True
        return best_value, best_t

    def agreement_matrix(self, threshold: float, groups: IntArray, n_groups: int) -> FloatArray:
        """(groups, groups) counts of the agreeing pairs of distinct outputs at ``threshold``, by the
        groups of their two outputs (``groups``: the group of each kept output, e.g. its instance).

        With ``c`` the draw counts of the groups (every output weighted by its group's count), the
        agreement of a resample is ``c' M c + sum_g outputs_g c_g (c_g - 1) / 2``: a quadratic form
        in the draw counts, so every resample is two matrix products (added for the metric study's
        bootstrap, issue 22). Each unordered pair is counted once, in the row of the output with
        the lower human score (the first in metric order when they tie). Integer counts.
        """
        thresholds = np.array([float(threshold)])
        counter = _PartnerCounter(n_groups)
        for members, higher in zip(self.levels, self.higher):
            x = self.metric[members]
            anchors = groups[members]
            # tied by the humans: the later outputs of the level at most the threshold above in metric
            k = _first_above(x, x, thresholds)[:, 0]
            counter.add(anchors, groups[members], np.arange(1, len(x) + 1), 1.0)
            counter.add(anchors, groups[members], k, -1.0)
            if len(higher):  # concordant: a higher human score and a metric score more than the threshold above
                k = _first_above(self.metric[higher], x, thresholds)[:, 0]
                counter.add(anchors, groups[higher], k, 1.0)
        return counter.matrix()


class _PartnerCounter:
    """Sums ``sign * (partners[starts[i]:] == h).sum()`` into cell (anchors[i], h), over many calls of
    :meth:`add`, into one (groups, groups) matrix.

    Each partner array's counts per group are summed once at every ``PARTNER_CHUNK``-th position;
    an anchor takes the sums from the first such position at or after its start, and counts the
    few partners before it one by one. :meth:`matrix` adds them all in one sparse product and
    one ``bincount``.
    """

    def __init__(self, n_groups: int) -> None:
        self.n_groups = n_groups
        self.rows: list[IntArray] = []
        self.columns: list[IntArray] = []
        self.signs: list[FloatArray] = []
        self.suffixes: list[FloatArray] = []
        self.cells: list[IntArray] = []
        self.cell_signs: list[FloatArray] = []
        self.offset = 0

    def add(self, anchors: IntArray, partners: IntArray, starts: IntArray, sign: float) -> None:
        n_groups, n = self.n_groups, len(partners)
        n_chunks = -(-n // PARTNER_CHUNK)
        chunk_of = np.arange(n) // PARTNER_CHUNK
        per_chunk = np.bincount(chunk_of * n_groups + partners, minlength=n_chunks * n_groups)
        suffix = np.zeros((n_chunks + 1, n_groups))
        suffix[:-1] = np.cumsum(per_chunk.reshape(n_chunks, n_groups)[::-1], axis=0)[::-1]
        boundary = np.minimum(-(-starts // PARTNER_CHUNK), n_chunks)
        self.rows.append(anchors)
        self.columns.append(boundary + self.offset)
        self.signs.append(np.full(len(starts), sign))
        self.suffixes.append(suffix)
        self.offset += n_chunks + 1
        anchor, partner = _ranges(starts, np.minimum(boundary * PARTNER_CHUNK, n))
        self.cells.append(anchors[anchor] * n_groups + partners[partner])
        self.cell_signs.append(np.full(len(anchor), sign))

    def matrix(self) -> FloatArray:
        n_groups = self.n_groups
        if not self.rows:
            return np.zeros((n_groups, n_groups))
        select = sparse.csr_matrix(
            (np.concatenate(self.signs), (np.concatenate(self.rows), np.concatenate(self.columns))),
            shape=(n_groups, self.offset),
        )
        cells = np.concatenate(self.cells)
        one_by_one = np.bincount(cells, weights=np.concatenate(self.cell_signs), minlength=n_groups * n_groups)
        matrix: FloatArray = np.asarray(select @ np.concatenate(self.suffixes)) + one_by_one.reshape(n_groups, -1)
        return matrix


def _ranges(starts: IntArray, stops: IntArray) -> tuple[IntArray, IntArray]:
    """(i, j) for every i and every j in [starts[i], stops[i]), as two arrays."""
    counts = np.maximum(stops - starts, 0)
    rows = np.flatnonzero(counts > 0)
    lengths = counts[rows]
    anchor = np.repeat(rows, lengths)
    offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return anchor, np.repeat(starts[rows], lengths) + offsets


def _gather(values: FloatArray, anchors: FloatArray, starts: IntArray, stops: IntArray) -> FloatArray:
    """``abs(values[j] - anchors[i])`` for every i and j in [starts[i], stops[i])."""
    anchor, partner = _ranges(starts, stops)
    differences: FloatArray = np.abs(values[partner] - anchors[anchor])
    return differences


def flat_accuracy(human: ArrayLike, metric: ArrayLike) -> TieResult:
    """acc_eq over all outputs flattened: :class:`TieResult` (value, epsilon, number of pairs)."""
    return flat_accuracy_of(FlatPairs(human, metric))


def flat_accuracy_of(pairs: FlatPairs) -> TieResult:
    """:func:`flat_accuracy` of outputs already prepared (the report reuses them for the bootstrap)."""
    if pairs.pairs == 0:
        return TieResult(float("nan"), float("nan"), 0)
    agreeing, epsilon = pairs.optimise()
    return TieResult(agreeing / pairs.pairs, epsilon, pairs.pairs)


def flat_accuracy_at(pairs: FlatPairs, epsilon: float, weights: ArrayLike) -> float:
    """Accuracy of a :class:`FlatPairs` at a fixed epsilon with output weights (bootstrap counts).

    Every copy of a drawn output is one output of the resample: pairs of copies tie in both.
    """
    weights = np.asarray(weights, np.float64)
    total = weights.sum()
    if total < 2:
        return float("nan")
    return float(pairs.agreement([epsilon], weights)[0] / (total * (total - 1) / 2))
