"""Formula (1) of the task paper, generalised to N instances and M raters. No Django imports.

The paper scores system k as ``sum_i sum_j score_ijk / (N * M)``. With every rating present
that is the mean of the system's N*M ratings. A system with ratings missing (a partial
submission, an unfinished campaign, out-of-range scores dropped at import) is NOT given the
sum over the ratings present divided by N*M: that would read as a worse system rather than a
less-rated one. It gets the mean over the ratings present, its coverage (ratings counted of
ratings expected) and ``complete=False``, so every export can mark it instead of silently
averaging it as if complete.

Records are four parallel arrays (instance id, system name, rater id, score), one entry per
rating counted for a system; control items and excluded raters are left out by the caller.
Formula (1), the bootstrap and the significance tests need only per (system, instance) sums
and counts, so a caller that can sum in the database builds the :class:`ScoreMatrix` from
those cells (:func:`cell_matrix`) and never materialises a million per-rating records.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray


@dataclass(frozen=True)
class RatingRecords:
    """Ratings as parallel NumPy arrays: ``instances[i]``, ``systems[i]``, ``raters[i]``, ``scores[i]``.

    Iterating yields ``(instance_id, system, rater_id, score)`` tuples.
    """

    instances: NDArray[Any]
    systems: NDArray[Any]
    raters: NDArray[Any]
    scores: NDArray[np.int64]

    @classmethod
    def from_tuples(cls, rows: Iterable[tuple[Any, Any, Any, int]]) -> RatingRecords:
        rows = list(rows)
        if not rows:
            return cls.empty()
        instances, systems, raters, scores = zip(*rows)
        return cls(
            np.asarray(instances, dtype=object),
            np.asarray(systems, dtype=object),
            np.asarray(raters, dtype=object),
            np.asarray(scores, dtype=np.int64),
        )

    @classmethod
    def empty(cls) -> RatingRecords:
        return cls(
            np.empty(0, dtype=object), np.empty(0, dtype=object), np.empty(0, dtype=object), np.empty(0, dtype=np.int64)
        )

    def __len__(self) -> int:
        return len(self.scores)

    def __iter__(self) -> Iterator[tuple[Any, Any, Any, int]]:
        return zip(self.instances.tolist(), self.systems.tolist(), self.raters.tolist(), self.scores.tolist())


@dataclass(frozen=True)
class SystemScore:
    """One system's human score and how much of it was rated."""

    system: str
    human: float | None  # mean over the ratings present; None when there is none
    ratings: int
    expected_ratings: int
    complete: bool

    @property
    def coverage(self) -> float:
        return self.ratings / self.expected_ratings if self.expected_ratings else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "human": self.human,
            "ratings": self.ratings,
            "expected_ratings": self.expected_ratings,
            "complete": self.complete,
        }


@dataclass(frozen=True)
class ScoreMatrix:
    """Per (system, instance) sums and counts of scores: the input of bootstrap and significance.

    ``sums[k, i]`` is the sum of the scores of system ``systems[k]`` on instance ``instances[i]``;
    ``counts[k, i]`` how many ratings it has. Instances never rated have a zero column.
    """

    systems: list[Any]
    instances: list[Any]
    sums: NDArray[np.float64]
    counts: NDArray[np.int64]

    def means(self) -> NDArray[np.float64]:
        """Per-cell mean score (NaN where a cell has no rating)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.sums / self.counts

    def row(self, system: Any) -> int:
        return self.systems.index(system)


def codes(values: ArrayLike, universe: Iterable[Hashable] = ()) -> tuple[NDArray[np.int64], list[Any]]:
    """Integer codes of ``values`` and their labels: ``universe`` first, then the others sorted.

    Hash-based (``pandas.factorize``), so it stays fast for a million ratings.
    """
    values = np.asarray(values, dtype=object)
    labels = list(universe)
    index = {label: position for position, label in enumerate(labels)}
    if not len(values):
        return np.empty(0, dtype=np.int64), labels
    first_seen, distinct = pd.factorize(values, sort=False)
    for label in sorted(set(distinct.tolist()) - set(index), key=_sort_key):
        index[label] = len(labels)
        labels.append(label)
    mapping = np.array([index[label] for label in distinct.tolist()], dtype=np.int64)
    return mapping[first_seen], labels


def _sort_key(label: Any) -> tuple[str, Any]:
    return (str(type(label)), label)


def score_matrix(
    records: RatingRecords, systems: Iterable[Hashable] = (), instances: Iterable[Hashable] = ()
) -> ScoreMatrix:
    """Sum and count the scores of every (system, instance) cell of per-rating ``records``.

    ``systems`` and ``instances`` fix the row/column order and include those without ratings.
    """
    return cell_matrix(
        records.systems, records.instances, records.scores, np.ones(len(records), dtype=np.int64), systems, instances
    )


def cell_matrix(
    cell_systems: ArrayLike,
    cell_instances: ArrayLike,
    cell_sums: ArrayLike,
    cell_counts: ArrayLike,
    systems: Iterable[Hashable] = (),
    instances: Iterable[Hashable] = (),
) -> ScoreMatrix:
    """A :class:`ScoreMatrix` from partial cells: parallel arrays of system, instance, score sum, count.

    Entries naming the same (system, instance) add up, so one entry per rating and one entry per
    pre-summed group give the same matrix. ``systems``/``instances`` as in :func:`score_matrix`.
    """
    system_codes, system_labels = codes(cell_systems, systems)
    instance_codes, instance_labels = codes(cell_instances, instances)
    shape = (len(system_labels), len(instance_labels))
    flat = system_codes * shape[1] + instance_codes
    size = shape[0] * shape[1]
    # bincount with weights is float64 (its stub says integer)
    sums = np.asarray(np.bincount(flat, weights=np.asarray(cell_sums, dtype=float), minlength=size), dtype=np.float64)
    sums = sums.reshape(shape)
    counts = np.bincount(flat, weights=np.asarray(cell_counts, dtype=float), minlength=size)
    return ScoreMatrix(system_labels, instance_labels, sums, counts.astype(np.int64).reshape(shape))


def system_scores(
    records: RatingRecords, n_instances: int, raters_per_item: int, systems: Sequence[Hashable] = ()
) -> dict[Any, SystemScore]:
    """Formula (1) per system: ``{system: SystemScore}``, ``systems`` first in the given order.

    ``n_instances`` (N) and ``raters_per_item`` (M) define the ratings expected, N*M per system.
    Raises ``ValueError`` when the records contradict them (a cell with more than M ratings,
    more than N distinct instances): such data is a bug upstream, not a score.
    """
    return matrix_system_scores(score_matrix(records, systems), n_instances, raters_per_item)


def matrix_system_scores(matrix: ScoreMatrix, n_instances: int, raters_per_item: int) -> dict[Any, SystemScore]:
    """:func:`system_scores` from a :class:`ScoreMatrix` (rows in its order; empty columns ignored)."""
    rated_instances = int(np.count_nonzero(matrix.counts.any(axis=0))) if matrix.counts.size else 0
    if rated_instances > n_instances:
        raise ValueError(f"ratings cover {rated_instances} instances; the campaign samples {n_instances}")
    if matrix.counts.size and matrix.counts.max() > raters_per_item:
        row, column = (int(x) for x in np.unravel_index(matrix.counts.argmax(), matrix.counts.shape))
        raise ValueError(
            f"system {matrix.systems[row]!r} has {matrix.counts[row, column]} ratings on instance "
            f"{matrix.instances[column]!r}; at most {raters_per_item} (M) are expected"
        )
    expected = n_instances * raters_per_item
    totals = matrix.sums.sum(axis=1)
    counts = matrix.counts.sum(axis=1)
    result = {}
    for k, system in enumerate(matrix.systems):
        n = int(counts[k])
        result[system] = SystemScore(
            system=system,
            human=float(totals[k] / n) if n else None,
            ratings=n,
            expected_ratings=expected,
            complete=n == expected,
        )
    return result


def _sorted_pairs(item: NDArray[np.int64], rater: NDArray[np.int64]) -> bool:
    """Whether (item, rater) pairs, their items already in order, are in (item, rater) order."""
    same_item = item[1:] == item[:-1]
    return bool((rater[1:][same_item] >= rater[:-1][same_item]).all())


def _runs(sorted_ids: NDArray[np.int64], ids: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(first position, length) of each of ``ids``' run in ``sorted_ids`` (length 0 when absent): two
    ``searchsorted``, or one lookup table when the ids are small."""
    if not len(sorted_ids) or not len(ids):
        return np.zeros(len(ids), dtype=np.int64), np.zeros(len(ids), dtype=np.int64)
    low, high = int(min(sorted_ids[0], ids.min())), int(max(sorted_ids[-1], ids.max()))
    if low < 0 or high > 4 * (len(ids) + len(sorted_ids)) + 1_000_000:
        first = np.searchsorted(sorted_ids, ids, side="left").astype(np.int64)
        return first, np.searchsorted(sorted_ids, ids, side="right").astype(np.int64) - first
    length_of = np.bincount(sorted_ids, minlength=high + 1).astype(np.int64)
    first_of = np.cumsum(length_of) - length_of
    return first_of[ids], length_of[ids]


def dense_codes(ids: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(the distinct ``ids`` in increasing order, each id's index into them), as ``np.unique(ids,
    return_inverse=True)`` gives them, through a lookup table when the ids are small (database ids of a few
    hundred raters or instances among a million rows), which costs no sort."""
    if not len(ids):
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high > 4 * len(ids) + 1_000_000:
        distinct, inverse = np.unique(ids, return_inverse=True)
        return distinct.astype(np.int64), inverse.reshape(-1).astype(np.int64)
    present = np.zeros(high + 1, dtype=bool)
    present[ids] = True
    distinct = np.flatnonzero(present).astype(np.int64)
    lookup = np.zeros(high + 1, dtype=np.int64)
    lookup[distinct] = np.arange(len(distinct), dtype=np.int64)
    return distinct, lookup[ids]


@dataclass(frozen=True)
class CountedRatings:
    """A campaign's counted ratings as integer arrays, the one read behind every column of Table 6.

    Why: formula (1), ``human_z``, the mixed model's cache key and the rater-aware intervals all derive from
    the same (item, rater, score) triples, so they are read once (one packed integer per rating, no Python
    object per rating) and grouped here with ``np.bincount`` instead of one ``GROUP BY`` each in the database.

    Per distinct rating, sorted by (item, rater): ``item``, ``rater`` (database ids), ``score``. What the
    items show, sorted by (item, system): ``shown_item``, ``shown_system``, ``shown_instance`` (one entry per
    item and system whose output it shows). Per (rating, system) row (a rating of an item that stands for
    several systems' identical outputs gives one row per system): ``row_rating`` (index of its rating) and
    ``row_shown`` (index of its entry in ``shown_*``).
    """

    item: NDArray[np.int64]
    rater: NDArray[np.int64]
    score: NDArray[np.int64]
    shown_item: NDArray[np.int64]
    shown_system: NDArray[np.int64]
    shown_instance: NDArray[np.int64]
    row_rating: NDArray[np.int64]
    row_shown: NDArray[np.int64]

    @classmethod
    def from_arrays(
        cls,
        item: NDArray[np.int64],
        rater: NDArray[np.int64],
        score: NDArray[np.int64],
        shown_item: NDArray[np.int64],
        shown_system: NDArray[np.int64],
        shown_instance: NDArray[np.int64],
    ) -> CountedRatings:
        """From the counted ratings and what each item shows, both in any order; a rating of an item that shows
        nothing has no row."""
        if len(item) > 1 and not bool((np.diff(item) >= 0).all() and _sorted_pairs(item, rater)):
            order = np.lexsort((score, rater, item))
            item, rater, score = item[order], rater[order], score[order]
        shown = np.lexsort((shown_system, shown_item))
        shown_item, shown_system, shown_instance = shown_item[shown], shown_system[shown], shown_instance[shown]
        first, count = _runs(shown_item, item)
        if bool((count == 1).all()):  # no shared item: one row per rating
            row_rating, row_shown = np.arange(len(item), dtype=np.int64), first.astype(np.int64)
        else:
            row_rating = np.repeat(np.arange(len(item), dtype=np.int64), count)
            starts = np.cumsum(count) - count
            row_shown = np.repeat(first, count) + (np.arange(len(row_rating)) - np.repeat(starts, count))
        return cls(item, rater, score, shown_item, shown_system, shown_instance, row_rating, row_shown)

    @property
    def ratings(self) -> int:
        """How many distinct ratings count."""
        return len(self.score)

    @property
    def row_system(self) -> NDArray[np.int64]:
        return self.shown_system[self.row_shown]

    @property
    def row_instance(self) -> NDArray[np.int64]:
        return self.shown_instance[self.row_shown]

    @property
    def row_rater(self) -> NDArray[np.int64]:
        return self.rater[self.row_rating]

    @property
    def row_score(self) -> NDArray[np.int64]:
        return self.score[self.row_rating]

    def score_matrix(
        self,
        system_names: Callable[[list[int]], Mapping[int, str]],
        instance_names: Callable[[list[int]], Mapping[int, str]],
        systems: Sequence[str],
        instances: Sequence[str],
    ) -> ScoreMatrix:
        """The :class:`ScoreMatrix` of the rows: ``systems`` and ``instances`` first, then any other rated one
        sorted (as :func:`cell_matrix` orders them); ``*_names(ids)`` name the database ids."""
        system_ids, system_of_row = dense_codes(self.row_system)
        instance_ids, instance_of_row = dense_codes(self.row_instance)
        named_systems, named_instances = system_names(system_ids.tolist()), instance_names(instance_ids.tolist())
        system_codes, system_labels = codes([named_systems[pk] for pk in system_ids.tolist()], systems)
        instance_codes, instance_labels = codes([named_instances[pk] for pk in instance_ids.tolist()], instances)
        shape = (len(system_labels), len(instance_labels))
        flat = system_codes[system_of_row] * shape[1] + instance_codes[instance_of_row]
        size = shape[0] * shape[1]
        sums = np.bincount(flat, weights=self.row_score.astype(float), minlength=size)
        counts = np.bincount(flat, minlength=size)
        return ScoreMatrix(
            system_labels,
            instance_labels,
            np.asarray(sums, dtype=np.float64).reshape(shape),
            counts.astype(np.int64).reshape(shape),
        )

    def rater_totals(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """(rater ids, ratings, sum, sum of squares) over each rater's distinct counted ratings (integers)."""
        raters, rater_codes = dense_codes(self.rater)
        counts = np.bincount(rater_codes, minlength=len(raters))
        sums = np.bincount(rater_codes, weights=self.score, minlength=len(raters))
        squares = np.bincount(rater_codes, weights=self.score * self.score, minlength=len(raters))
        return raters, counts.astype(np.int64), np.rint(sums).astype(np.int64), np.rint(squares).astype(np.int64)

    def system_rater_cells(
        self,
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """(system ids, rater ids, rows, sum of scores) of every (system, rater) cell of the rows, in
        (system id, rater id) order (integers)."""
        system_ids, system_of_shown = dense_codes(self.shown_system)
        rater_ids, rater_codes = dense_codes(self.rater)
        key = system_of_shown[self.row_shown] * len(rater_ids) + rater_codes[self.row_rating]
        cells, cell_of_row = dense_codes(key)
        rows = np.bincount(cell_of_row, minlength=len(cells))
        sums = np.bincount(cell_of_row, weights=self.row_score, minlength=len(cells))
        return (
            system_ids[cells // len(rater_ids)],
            rater_ids[cells % len(rater_ids)],
            rows.astype(np.int64),
            np.rint(sums).astype(np.int64),
        )

    def fingerprint(self) -> str:
        """A SHA-256 of every counted rating (item, rater, score) and of what the items show: what a figure
        computed from these ratings depends on (a new, excluded or reconciled rating changes it)."""
        hasher = hashlib.sha256()
        fits = len(self.item) and int(self.item.max()) < 2**28 and int(self.rater.max()) < 2**31
        ratings = [(self.item << 33) | (self.rater << 2) | self.score] if fits else [self.item, self.rater, self.score]
        for column in [*ratings, self.shown_item, self.shown_system, self.shown_instance]:
            hasher.update(np.ascontiguousarray(column, dtype=np.int64).tobytes())
            hasher.update(b"\x1e")
        return hasher.hexdigest()
