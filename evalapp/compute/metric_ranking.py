"""Metric ranking with significance clusters, as the WMT metrics tasks report it. No Django imports.

Metrics are ordered by a statistic (higher is better). For each pair (i above j), the p-value
that j is at least as good as i comes from a paired bootstrap over instances: the share of
resamples (the same resamples for every metric) in which j's statistic is at least i's.
Clusters are then assigned as mt-metrics-eval's ``AssignRanks``: walking down the order, a
metric starts a new rank when some metric of the current rank is significantly better
(p <= alpha); otherwise it shares the current rank.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray


def assign_ranks(sig_matrix: NDArray[np.float64], alpha: float) -> list[int]:
    """Ranks (1, 2, ...) from an upper-triangular p-value matrix of metrics sorted best first."""
    n = sig_matrix.shape[0]
    ranks, current, start = [], 1, 0
    for i in range(n):
        if np.any(sig_matrix[start:i, i] <= alpha):
            current += 1
            start = i
        ranks.append(current)
    return ranks


def rank_metrics(
    values: Mapping[str, float | None], samples: Mapping[str, Any], alpha: float
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Order metrics by value and cluster them.

    ``values``: {metric: statistic}; ``samples``: {metric: bootstrap values, aligned across
    metrics}. Metrics whose value is undefined are left out. Returns (ranking, p-values):
    ranking is a list of {"metric", "value", "rank"} best first; p-values {"a|b": p} for a
    above b.
    """
    defined = {name: float(value) for name, value in values.items() if value is not None and np.isfinite(value)}
    names = sorted(defined, key=lambda name: -defined[name])
    n = len(names)
    sig = np.full((n, n), np.nan)
    p_values: dict[str, float] = {}
    for i in range(n):
        for j in range(i + 1, n):
            a, b = (
                np.asarray(samples.get(name) if samples.get(name) is not None else [], float)
                for name in (names[i], names[j])
            )
            both = np.isfinite(a) & np.isfinite(b) if len(a) and len(a) == len(b) else np.zeros(0, bool)
            p = float(np.mean(b[both] >= a[both])) if both.any() else 1.0
            sig[i, j] = p
            p_values[f"{names[i]}|{names[j]}"] = p
    ranks = assign_ranks(sig, alpha)
    ranking = [{"metric": name, "value": defined[name], "rank": rank} for name, rank in zip(names, ranks)]
    return ranking, p_values
