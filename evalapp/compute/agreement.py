"""Inter-rater agreement over (unit, rater, score) ratings, vectorised with NumPy. No Django imports.

A unit is what the raters saw (one campaign item). Missing ratings are the rule in crowd
work, so each coefficient says how it treats them:

- Krippendorff's alpha (ordinal and interval) is computed from the coincidence matrix and
  uses every unit with at least two ratings; units rated once are not pairable and drop out.
  It equals the ``krippendorff`` package on the same reliability data.
- Fleiss' kappa needs the same number of ratings per unit: only units with exactly
  ``raters_per_item`` ratings enter (the count used is reported). It equals
  ``statsmodels.stats.inter_rater.fleiss_kappa``.
- Exact agreement: of all pairs of ratings given to the same unit, the share that agree.
- Mean pairwise quadratic-weighted Cohen's kappa: Cohen's kappa with quadratic weights on the
  full scale for every pair of raters sharing at least ``MIN_SHARED_UNITS`` units, then the
  plain mean over the pairs where kappa is defined (it is not when both raters gave one and
  the same score throughout). Each pair equals ``sklearn.metrics.cohen_kappa_score(a, b,
  weights="quadratic", labels=scale)``.

A coefficient that is undefined on the data (no pairable unit, no variation at all) is None.
"""

from collections.abc import Hashable
from typing import NotRequired, TypedDict

import numpy as np
from numpy.typing import ArrayLike, NDArray

from core.defaults import SCORE_MAX, SCORE_MIN
from evalapp.compute.human_score import codes

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

# Table 1 of the task paper: scores 0-3.
DEFAULT_SCALE = tuple(range(SCORE_MIN, SCORE_MAX + 1))
MIN_SHARED_UNITS = 2


# The agreement report is a JSON document (the agreement download, the API, the ``agreement`` command): these
# TypedDicts hold its shape, key for key.
class RaterAgreement(TypedDict):
    rater: Hashable  # the label the caller gave; the service puts the rater's pseudonym here
    ratings: int
    mean_score: float | None
    pairs: int
    exact_agreement: float | None
    mean_qwk: float | None
    qwk_pairs: int


class AgreementReport(TypedDict):
    krippendorff_alpha_ordinal: float | None
    krippendorff_alpha_interval: float | None
    fleiss_kappa: float | None
    exact_agreement: float | None
    mean_pairwise_qwk: float | None
    units: int
    ratings: int
    pairable_units: int
    fleiss_units: int
    raters_per_item: int
    qwk_rater_pairs: int
    qwk_min_shared_units: int
    scale: list[int]
    raters: list[RaterAgreement]
    # Added by the service, which knows the campaign. (NotRequired is read when the class is made: this
    # module has no ``from __future__ import annotations``, which would hide it.)
    campaign: NotRequired[str]
    units_are: NotRequired[str]


def value_counts(
    units: ArrayLike, scores: ArrayLike, scale: ArrayLike = DEFAULT_SCALE
) -> tuple[list[Hashable], IntArray]:
    """(unit labels, units x values count matrix) from parallel ``units``/``scores`` arrays."""
    scale = np.asarray(scale)
    scores = np.asarray(scores)
    positions = np.searchsorted(scale, scores)
    if len(scores) and (positions.max() >= len(scale) or not np.array_equal(scale[positions], scores)):
        bad = scores[~np.isin(scores, scale)][0]
        raise ValueError(f"score {bad!r} is not on the scale {tuple(scale.tolist())}")
    unit_codes, unit_labels = codes(units)
    size = len(unit_labels) * len(scale)
    matrix = np.bincount(unit_codes * len(scale) + positions, minlength=size).reshape(len(unit_labels), len(scale))
    return unit_labels, matrix


def coincidence_matrix(counts: ArrayLike) -> FloatArray:
    """Krippendorff's coincidence matrix from a units x values count matrix (units with >= 2 values)."""
    counts = np.asarray(counts, dtype=np.float64)
    pairable = counts[counts.sum(axis=1) >= 2]
    weighted = pairable / (pairable.sum(axis=1, keepdims=True) - 1)
    coincidences: FloatArray = weighted.T @ pairable - np.diag(weighted.sum(axis=0))
    return coincidences


def _distances(level: str, scale: ArrayLike, marginals: FloatArray) -> FloatArray:
    values = np.asarray(scale, dtype=np.float64)
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    if level == "ordinal":
        cumulative = np.concatenate([[0.0], np.cumsum(marginals)])
        low = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
        high = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
        between = cumulative[high + 1] - cumulative[low]
        distances: FloatArray = (between - (marginals[:, None] + marginals[None, :]) / 2.0) ** 2
        return distances
    raise ValueError(f"unknown level of measurement {level!r}; use 'ordinal' or 'interval'")


def krippendorff_alpha(counts: ArrayLike, level: str, scale: ArrayLike = DEFAULT_SCALE) -> float | None:
    """Krippendorff's alpha at ``level`` ("ordinal" or "interval") from a units x values count matrix."""
    coincidences = coincidence_matrix(counts)
    marginals = coincidences.sum(axis=1)
    total = marginals.sum()
    if total <= 1:
        return None
    delta = _distances(level, scale, marginals)
    expected = (np.outer(marginals, marginals) * delta).sum()
    if expected == 0:
        return None
    return float(1.0 - (total - 1.0) * (coincidences * delta).sum() / expected)


def fleiss_kappa(counts: ArrayLike, raters_per_item: int) -> tuple[float | None, int]:
    """(Fleiss' kappa, units used) over the units with exactly ``raters_per_item`` ratings."""
    counts = np.asarray(counts, dtype=np.float64)
    table = counts[counts.sum(axis=1) == raters_per_item]
    if len(table) == 0 or raters_per_item < 2:
        return None, int(len(table))
    shares = table.sum(axis=0) / table.sum()
    observed = ((table * (table - 1)).sum(axis=1) / (raters_per_item * (raters_per_item - 1))).mean()
    chance = (shares**2).sum()
    if chance == 1:
        return None, int(len(table))
    return float((observed - chance) / (1 - chance)), int(len(table))


def exact_agreement(counts: ArrayLike) -> float | None:
    """Share of pairs of ratings on the same unit that agree (None without any such pair)."""
    counts = np.asarray(counts, dtype=np.float64)
    per_unit = counts.sum(axis=1)
    pairs = (per_unit * (per_unit - 1)).sum() / 2
    if pairs == 0:
        return None
    return float((counts * (counts - 1)).sum() / 2 / pairs)


def rating_pairs(
    units: ArrayLike, raters: ArrayLike, scores: ArrayLike
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Every pair of ratings of one unit: (rater_a, rater_b, score_a, score_b) arrays, rater_a < rater_b.

    Raters are integer codes. Vectorised: ratings sorted by (unit, rater), then the pairs at
    distance 1, 2, ... within a unit (the loop runs over the largest ratings-per-unit only).
    """
    units, raters, scores = (np.asarray(a) for a in (units, raters, scores))
    order = np.lexsort((raters, units))
    units, raters, scores = units[order], raters[order], scores[order]
    pieces = []
    for shift in range(1, len(units)):
        same = units[:-shift] == units[shift:]
        if not same.any():
            break
        left = np.nonzero(same)[0]
        pieces.append((raters[left], raters[left + shift], scores[left], scores[left + shift]))
    if not pieces:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, empty, empty
    rater_a, rater_b, score_a, score_b = (np.concatenate(parts) for parts in zip(*pieces))
    return rater_a, rater_b, score_a, score_b


def pairwise_qwk(
    rater_a: IntArray,
    rater_b: IntArray,
    score_a: IntArray,
    score_b: IntArray,
    n_raters: int,
    scale: ArrayLike = DEFAULT_SCALE,
    min_shared: int = MIN_SHARED_UNITS,
) -> tuple[IntArray, IntArray, IntArray, FloatArray]:
    """Quadratic-weighted Cohen's kappa of every rater pair sharing >= ``min_shared`` units.

    Returns (pair_a, pair_b, shared, kappa) arrays; kappa is NaN where undefined.
    """
    scale = np.asarray(scale)
    k = len(scale)
    pos_a, pos_b = np.searchsorted(scale, score_a), np.searchsorted(scale, score_b)
    pair_codes, pair_keys = np.unique(np.asarray(rater_a, dtype=np.int64) * n_raters + rater_b, return_inverse=True)
    pair_keys = pair_keys.reshape(-1)
    confusion = (
        np.bincount(pair_keys * k * k + pos_a * k + pos_b, minlength=len(pair_codes) * k * k)
        .reshape(len(pair_codes), k, k)
        .astype(np.float64)
    )
    shared = confusion.sum(axis=(1, 2))
    keep = shared >= min_shared
    confusion, shared, pair_codes = confusion[keep], shared[keep], pair_codes[keep]
    weights = (np.arange(k)[:, None] - np.arange(k)[None, :]) ** 2
    expected = confusion.sum(axis=2)[:, :, None] * confusion.sum(axis=1)[:, None, :] / shared[:, None, None]
    observed_disagreement = (weights * confusion).sum(axis=(1, 2))
    expected_disagreement = (weights * expected).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = np.where(expected_disagreement > 0, 1.0 - observed_disagreement / expected_disagreement, np.nan)
    return pair_codes // n_raters, pair_codes % n_raters, shared.astype(np.int64), kappa


def _mean_or_none(values: ArrayLike) -> float | None:
    finite = np.asarray(values, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    return float(finite.mean()) if len(finite) else None


def agreement(
    units: ArrayLike,
    raters: ArrayLike,
    scores: ArrayLike,
    raters_per_item: int,
    scale: ArrayLike = DEFAULT_SCALE,
    min_shared: int = MIN_SHARED_UNITS,
) -> AgreementReport:
    """Every coefficient (protocol.md#agreement) and per-rater figures for parallel (unit, rater, score) arrays.

    Per rater: ratings, mean score, pairs (ratings of theirs that share a unit with another
    rater's), exact agreement over those pairs, and the mean quadratic-weighted kappa over
    their rater pairs. Raters are reported under the labels given in ``raters``.
    """
    scores = np.asarray(scores, dtype=np.int64)
    unit_labels, counts = value_counts(units, scores, scale)
    rater_codes, rater_labels = codes(raters)
    unit_codes, _ = codes(units)
    n_raters = len(rater_labels)
    a, b, sa, sb = rating_pairs(unit_codes, rater_codes, scores)
    pair_a, pair_b, shared, kappa = pairwise_qwk(a, b, sa, sb, max(n_raters, 1), scale, min_shared)
    fleiss, fleiss_units = fleiss_kappa(counts, raters_per_item)
    agree = (sa == sb).astype(np.float64)
    pairs_per_rater = np.bincount(a, minlength=n_raters) + np.bincount(b, minlength=n_raters)
    agree_per_rater = np.bincount(a, weights=agree, minlength=n_raters) + np.bincount(
        b, weights=agree, minlength=n_raters
    )
    defined = np.isfinite(kappa)
    kappa_sum = np.bincount(pair_a[defined], weights=kappa[defined], minlength=n_raters) + np.bincount(
        pair_b[defined], weights=kappa[defined], minlength=n_raters
    )
    kappa_n = np.bincount(pair_a[defined], minlength=n_raters) + np.bincount(pair_b[defined], minlength=n_raters)
    ratings = np.bincount(rater_codes, minlength=n_raters)
    score_sum = np.bincount(rater_codes, weights=scores, minlength=n_raters)
    raters_report: list[RaterAgreement] = []
    for r, label in enumerate(rater_labels):
        raters_report.append(
            {
                "rater": label,
                "ratings": int(ratings[r]),
                "mean_score": float(score_sum[r] / ratings[r]) if ratings[r] else None,
                "pairs": int(pairs_per_rater[r]),
                "exact_agreement": float(agree_per_rater[r] / pairs_per_rater[r]) if pairs_per_rater[r] else None,
                "mean_qwk": float(kappa_sum[r] / kappa_n[r]) if kappa_n[r] else None,
                "qwk_pairs": int(kappa_n[r]),
            }
        )
    return {
        "krippendorff_alpha_ordinal": krippendorff_alpha(counts, "ordinal", scale),
        "krippendorff_alpha_interval": krippendorff_alpha(counts, "interval", scale),
        "fleiss_kappa": fleiss,
        "exact_agreement": exact_agreement(counts),
        "mean_pairwise_qwk": _mean_or_none(kappa),
        "units": len(unit_labels),
        "ratings": int(len(scores)),
        "pairable_units": int((counts.sum(axis=1) >= 2).sum()),
        "fleiss_units": fleiss_units,
        "raters_per_item": raters_per_item,
        "qwk_rater_pairs": int(defined.sum()),
        "qwk_min_shared_units": min_shared,
        "scale": list(np.asarray(scale).tolist()),
        "raters": raters_report,
    }
