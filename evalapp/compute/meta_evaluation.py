"""System-level pairwise accuracy (Kocmi et al. 2021), as the WMT metrics tasks report it. No Django imports.

Over all pairs of systems, the share that the metric orders as the human scores do. A pair
tied in both counts as agreement; a pair tied in only one counts as disagreement. This is
mt-metrics-eval's ``KendallVariants(variant="acc23", epsilon=0)``: (concordant + tied in
both) / all pairs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray


def pairwise_agreement(human: ArrayLike, metric: ArrayLike) -> tuple[int, int]:
    """(agreeing pairs, all pairs) over the systems that have both scores."""
    h, m = np.asarray(human, float), np.asarray(metric, float)
    keep = np.isfinite(h) & np.isfinite(m)
    h, m = h[keep], m[keep]
    n = len(h)
    if n < 2:
        return 0, 0
    first, second = np.triu_indices(n, 1)
    agree = np.sign(h[first] - h[second]) == np.sign(m[first] - m[second])
    return int(agree.sum()), int(len(first))


def pairwise_accuracy(human: ArrayLike, metric: ArrayLike) -> float:
    """The share of system pairs ordered alike (NaN with fewer than two systems)."""
    agreeing, pairs = pairwise_agreement(human, metric)
    return agreeing / pairs if pairs else float("nan")


def pairwise_accuracy_many(human: ArrayLike, metric: ArrayLike) -> NDArray[np.float64]:
    """Pairwise accuracy of each row of (resamples, systems) score matrices, vectorised."""
    h, m = np.atleast_2d(np.asarray(human, float)), np.atleast_2d(np.asarray(metric, float))
    first, second = np.triu_indices(h.shape[1], 1)
    valid = np.isfinite(h[:, first]) & np.isfinite(h[:, second]) & np.isfinite(m[:, first]) & np.isfinite(m[:, second])
    with np.errstate(invalid="ignore"):
        agree = (np.sign(h[:, first] - h[:, second]) == np.sign(m[:, first] - m[:, second])) & valid
    pairs = valid.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, agree.sum(axis=1) / np.where(pairs > 0, pairs, 1), np.nan)
