"""Seeded percentile bootstrap over instances, vectorised with NumPy. No Django imports.

Instances are the unit of resampling (S9): each resample draws N instances with replacement
and keeps all ratings of the drawn instances, so the dependence between the ratings of one
instance (same statement, same difficulty) is kept. The same seed gives the same resamples,
and the same resamples are used for every system, so intervals are paired across systems.

The metric study reuses :func:`resample_indices` / :func:`resample_counts` to recompute
corpus metrics on exactly the resamples used for the human scores.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from core.defaults import CONFIDENCE_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED

# Resample counts are built in blocks of this many resamples to bound memory for large N.
BLOCK_RESAMPLES = 256


def resample_indices(n_items: int, n_resamples: int, seed: Any) -> NDArray[np.int64]:
    """``(n_resamples, n_items)`` indices drawn with replacement, reproducible from ``seed``."""
    if n_items < 1:
        raise ValueError("cannot bootstrap an empty sample")
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_items, size=(n_resamples, n_items))


def resample_counts(indices: NDArray[np.int64], n_items: int) -> NDArray[np.int64]:
    """How often each item occurs in each resample: ``(n_resamples, n_items)`` integer weights."""
    n_resamples = indices.shape[0]
    offsets = np.arange(n_resamples, dtype=np.int64)[:, None] * n_items
    flat = np.bincount((indices + offsets).ravel(), minlength=n_resamples * n_items)
    return flat.reshape(n_resamples, n_items)


def percentile_interval(
    samples: ArrayLike, level: float = CONFIDENCE_LEVEL, axis: int = 0
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The (low, high) percentile interval of bootstrap ``samples`` along ``axis`` (NaNs ignored)."""
    tail = (1.0 - level) / 2.0 * 100.0
    with warnings.catch_warnings():  # a system never rated has only NaN estimates: its interval is NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanpercentile(np.asarray(samples, float), [tail, 100.0 - tail], axis=axis)
    return low, high


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None
    level: float
    resamples: int
    seed: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "level": self.level,
            "resamples": self.resamples,
            "seed": self.seed,
            "method": "percentile bootstrap over instances",
        }


def ratio_intervals(
    sums: ArrayLike,
    counts: ArrayLike,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = CONFIDENCE_LEVEL,
) -> list[Interval]:
    """Bootstrap intervals of ``sum(sums[k]) / sum(counts[k])`` for every row k.

    ``sums``/``counts`` are (systems x instances): per-cell score sums and rating counts, so a
    resample's score is the mean over the ratings of the drawn instances, which is formula (1)
    on the resample when the system is complete. A row whose resample has no rating is NaN there.
    """
    sums = np.asarray(sums, dtype=float)
    counts = np.asarray(counts, dtype=float)
    n_items = sums.shape[1]
    indices = resample_indices(n_items, n_resamples, seed)
    estimates = np.empty((n_resamples, sums.shape[0]))
    for start in range(0, n_resamples, BLOCK_RESAMPLES):
        weights = resample_counts(indices[start : start + BLOCK_RESAMPLES], n_items).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            estimates[start : start + BLOCK_RESAMPLES] = (weights @ sums.T) / (weights @ counts.T)
    low, high = percentile_interval(estimates, level)
    return [Interval(_finite(lo), _finite(hi), level, n_resamples, seed) for lo, hi in zip(low, high)]


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
