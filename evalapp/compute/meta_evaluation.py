"""System-level pairwise accuracy (Kocmi et al. 2021), as the WMT metrics tasks report it. No Django imports.

Over all pairs of systems, the share that the metric orders as the human scores do. A pair
tied in both counts as agreement; a pair tied in only one counts as disagreement. This is
mt-metrics-eval's ``KendallVariants(variant="acc23", epsilon=0)``: (concordant + tied in
both) / all pairs.
"""

import numpy as np


def pairwise_agreement(human, metric):
    """(agreeing pairs, all pairs) over the systems that have both scores."""
    human, metric = np.asarray(human, float), np.asarray(metric, float)
    keep = np.isfinite(human) & np.isfinite(metric)
    human, metric = human[keep], metric[keep]
    n = len(human)
    if n < 2:
        return 0, 0
    first, second = np.triu_indices(n, 1)
    agree = np.sign(human[first] - human[second]) == np.sign(metric[first] - metric[second])
    return int(agree.sum()), int(len(first))


def pairwise_accuracy(human, metric):
    """The share of system pairs ordered alike (NaN with fewer than two systems)."""
    agreeing, pairs = pairwise_agreement(human, metric)
    return agreeing / pairs if pairs else float("nan")


def pairwise_accuracy_many(human, metric):
    """Pairwise accuracy of each row of (resamples, systems) score matrices, vectorised."""
    human, metric = np.atleast_2d(np.asarray(human, float)), np.atleast_2d(np.asarray(metric, float))
    first, second = np.triu_indices(human.shape[1], 1)
    valid = (
        np.isfinite(human[:, first])
        & np.isfinite(human[:, second])
        & np.isfinite(metric[:, first])
        & np.isfinite(metric[:, second])
    )
    with np.errstate(invalid="ignore"):
        agree = (np.sign(human[:, first] - human[:, second]) == np.sign(metric[:, first] - metric[:, second])) & valid
    pairs = valid.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, agree.sum(axis=1) / np.where(pairs > 0, pairs, 1), np.nan)
