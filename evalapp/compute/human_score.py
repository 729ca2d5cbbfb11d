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

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class RatingRecords:
    """Ratings as parallel NumPy arrays: ``instances[i]``, ``systems[i]``, ``raters[i]``, ``scores[i]``.

    Iterating yields ``(instance_id, system, rater_id, score)`` tuples.
    """

    instances: np.ndarray
    systems: np.ndarray
    raters: np.ndarray
    scores: np.ndarray

    @classmethod
    def from_tuples(cls, rows):
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
    def empty(cls):
        return cls(
            np.empty(0, dtype=object), np.empty(0, dtype=object), np.empty(0, dtype=object), np.empty(0, dtype=np.int64)
        )

    def __len__(self):
        return len(self.scores)

    def __iter__(self):
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
    def coverage(self):
        return self.ratings / self.expected_ratings if self.expected_ratings else 0.0

    def as_dict(self):
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

    systems: list
    instances: list
    sums: np.ndarray
    counts: np.ndarray

    def means(self):
        """Per-cell mean score (NaN where a cell has no rating)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.sums / self.counts

    def row(self, system):
        return self.systems.index(system)


def codes(values, universe=()):
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


def _sort_key(label):
    return (str(type(label)), label)


def score_matrix(records, systems=(), instances=()):
    """Sum and count the scores of every (system, instance) cell of per-rating ``records``.

    ``systems`` and ``instances`` fix the row/column order and include those without ratings.
    """
    return cell_matrix(
        records.systems, records.instances, records.scores, np.ones(len(records), dtype=np.int64), systems, instances
    )


def cell_matrix(cell_systems, cell_instances, cell_sums, cell_counts, systems=(), instances=()):
    """A :class:`ScoreMatrix` from partial cells: parallel arrays of system, instance, score sum, count.

    Entries naming the same (system, instance) add up, so one entry per rating and one entry per
    pre-summed group give the same matrix. ``systems``/``instances`` as in :func:`score_matrix`.
    """
    system_codes, system_labels = codes(cell_systems, systems)
    instance_codes, instance_labels = codes(cell_instances, instances)
    shape = (len(system_labels), len(instance_labels))
    flat = system_codes * shape[1] + instance_codes
    size = shape[0] * shape[1]
    sums = np.bincount(flat, weights=np.asarray(cell_sums, dtype=float), minlength=size).reshape(shape)
    counts = np.bincount(flat, weights=np.asarray(cell_counts, dtype=float), minlength=size)
    return ScoreMatrix(system_labels, instance_labels, sums, counts.astype(np.int64).reshape(shape))


def system_scores(records, n_instances, raters_per_item, systems=()):
    """Formula (1) per system: ``{system: SystemScore}``, ``systems`` first in the given order.

    ``n_instances`` (N) and ``raters_per_item`` (M) define the ratings expected, N*M per system.
    Raises ``ValueError`` when the records contradict them (a cell with more than M ratings,
    more than N distinct instances): such data is a bug upstream, not a score.
    """
    return matrix_system_scores(score_matrix(records, systems), n_instances, raters_per_item)


def matrix_system_scores(matrix, n_instances, raters_per_item):
    """:func:`system_scores` from a :class:`ScoreMatrix` (rows in its order; empty columns ignored)."""
    rated_instances = int(np.count_nonzero(matrix.counts.any(axis=0))) if matrix.counts.size else 0
    if rated_instances > n_instances:
        raise ValueError(f"ratings cover {rated_instances} instances; the campaign samples {n_instances}")
    if matrix.counts.size and matrix.counts.max() > raters_per_item:
        k, i = np.unravel_index(matrix.counts.argmax(), matrix.counts.shape)
        raise ValueError(
            f"system {matrix.systems[k]!r} has {matrix.counts[k, i]} ratings on instance "
            f"{matrix.instances[i]!r}; at most {raters_per_item} (M) are expected"
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
