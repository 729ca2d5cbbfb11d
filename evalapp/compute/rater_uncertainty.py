"""Rater-aware uncertainty of formula (1): two-way cluster-robust variances of system means and of their
differences, degrees of freedom from the effective number of clusters, t intervals and t tests. No Django imports.

Why. A rating's score depends on the instance (its statement is easy or hard), on the rater (harsh or
kind) and on noise. Formula (1) averages a system's ratings; its error is the design-weighted sum of the
instance effects, of the rater effects and of the noise, so resampling instances alone (the former
method) leaves out the raters: with 10 raters whose severity differs, its 95% intervals covered the
true mean in two campaigns out of three. The raw means stay the headline; only what is said about
their uncertainty changes.

What. A system mean and a difference of two system means are linear in the ratings,
``T = sum_j u_j y_j`` (``u_j = 1/n_k`` for a rating of system k, ``-1/n_l`` for one of l; a rating
shared by both systems carries both weights). With the residuals ``e_j = y_j - mean of its system``,
each cluster g (an instance, a rater, or an instance-rater cell) has the total ``s_g = sum u_j e_j``
over its ratings, and the variance is the two-way cluster-robust estimator of Cameron, Gelbach and
Miller (2011, "Robust inference with multiway clustering", J. Business & Economic Statistics 29(2))::

    V = c_I sum_i s_i^2 + c_R sum_r s_r^2 - c_IR sum_(i,r) s_ir^2,    c_G = G / (G - 1)

It is the analytic counterpart of the crossed ("pigeonhole") bootstrap that resamples raters and
instances independently, corrected for the known over-count of that bootstrap (Owen 2007, "The
pigeonhole bootstrap", Annals of Applied Statistics 1(2); McCullagh 2000, "Resampling and
exchangeable arrays", Bernoulli 6(2)): resampling both ways counts the rating noise twice, and the
``- c_IR`` term takes the second count off. It uses the actual design (which rater rated which
system's items), and the rater clusters' own totals rather than one pooled rater variance, so a
harsh rater concentrated on one system widens that system's interval and its differences. When the
subtraction leaves less than one of the one-way terms (sampling noise when one factor has no
effect), the larger one-way term is used (never a negative or shrunken variance).

The target ("true system mean") is the system's expected score over the population of instances
and the population of raters the pool was drawn from; the rater and instance clusters are treated as
samples from those populations. Degrees of freedom: the effective number of clusters,
``df = V^2 / (c_I^2 sum s_i^4 + c_R^2 sum s_r^4)`` (Carter, Schnepel and Steigerwald 2017, "Asymptotic
behavior of a t-test robust to cluster heterogeneity", Review of Economics and Statistics 99(4)),
bounded to [1, G_I + G_R - 2]: a few raters, or one rater dominating a system, give few degrees of
freedom and a wider t interval. It is the Welch-Satterthwaite form with each cluster's variance v_g
replaced by its own s_g^2, which under-states df (E[s_g^4] = 3 v_g^2 for Gaussian totals) and so
errs on the safe side; the unbiased ``3 V^2 / ...`` let the false-positive rate reach 0.06 when one
harsh rater was concentrated on one system (docs/benchmarks.md). Intervals are ``T +- t_df sqrt(V)``
(cut to the 0-3 scale);
a comparison's one-sided p is ``P(t_df >= T / sqrt(V))``.

Fallback. With fewer than :data:`MIN_RATERS` raters, or when raters are not identifiable (every rater
has a single rating: a platform file without worker ids), the rater term cannot be estimated; the
method falls back to instance clusters alone (``V = c_I sum_i s_i^2``, ``df`` over instances) and
says so in its name (:func:`method_name`).

The pieces are reusable (issue 23's sequential stopping reads them): :func:`cluster_totals`,
:func:`robust_variance` and :func:`effective_clusters_df` work on any linear statistic given its weights.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse, stats

from core.defaults import CONFIDENCE_LEVEL, RATER_AWARE_MIN_RATERS, SCORE_MAX, SCORE_MIN
from evalapp.compute.human_score import CountedRatings, dense_codes

MIN_RATERS = RATER_AWARE_MIN_RATERS
TWO_WAY = (
    "two-way cluster-robust variance over raters and instances (Cameron, Gelbach and Miller 2011; "
    "the corrected crossed bootstrap of Owen 2007), t with the effective number of clusters"
)
ONE_WAY = "cluster-robust variance over instances only, t over instances"


def method_name(kind: str, fallback_reason: str | None = None) -> str:
    """The method's name as every export prints it; ``kind`` is 'interval' or 'test'."""
    base = TWO_WAY if fallback_reason is None else f"{ONE_WAY} (raters not accounted for: {fallback_reason})"
    if kind == "interval":
        return f"t interval of formula (1) from the {base}"
    return f"t test of the difference of formula (1) means from the {base}"


@dataclass(frozen=True)
class RatingDesign:
    """Per-(rating, system) rows as integer codes: who rated which system's item on which instance.

    A rating of an item shared by several systems' identical outputs appears once per system with
    the same instance and rater codes, so its weight lands in the same clusters (it is one rating).
    """

    systems: list[str]  # system names, row codes index into it
    system_codes: NDArray[np.int64]
    instance_codes: NDArray[np.int64]
    rater_codes: NDArray[np.int64]
    scores: NDArray[np.float64]
    n_instances: int
    n_raters: int

    @classmethod
    def from_rows(
        cls, systems: ArrayLike, instances: ArrayLike, raters: ArrayLike, scores: ArrayLike, names: Sequence[str]
    ) -> RatingDesign:
        """From parallel arrays of system names, instance ids, rater ids and scores; ``names`` fixes the order."""
        index = {name: k for k, name in enumerate(names)}
        systems = np.asarray(systems, dtype=object)
        keep = np.array([name in index for name in systems.tolist()], dtype=bool)
        system_codes = np.array([index[name] for name in systems[keep].tolist()], dtype=np.int64)
        _, instance_codes = np.unique(np.asarray(instances)[keep].astype(str), return_inverse=True)
        _, rater_codes = np.unique(np.asarray(raters)[keep].astype(str), return_inverse=True)
        return cls(
            list(names),
            system_codes,
            instance_codes.astype(np.int64),
            rater_codes.astype(np.int64),
            np.asarray(scores, dtype=float)[keep],
            int(instance_codes.max(initial=-1)) + 1,
            int(rater_codes.max(initial=-1)) + 1,
        )

    @classmethod
    def from_counted(
        cls, counted: CountedRatings, system_names: Mapping[int, str], names: Sequence[str]
    ) -> RatingDesign:
        """From a campaign's :class:`~evalapp.compute.human_score.CountedRatings` (integer codes throughout);
        ``system_names`` names its system ids, ``names`` fixes the order (rows of other systems are left out)."""
        index = {name: k for k, name in enumerate(names)}
        system_ids, system_of_row = dense_codes(counted.row_system)
        code_of_system = np.array([index.get(system_names[pk], -1) for pk in system_ids.tolist()], dtype=np.int64)
        system_codes = code_of_system[system_of_row] if len(system_ids) else np.empty(0, dtype=np.int64)
        keep = system_codes >= 0
        _, instance_codes = dense_codes(counted.row_instance[keep])
        _, rater_codes = dense_codes(counted.row_rater[keep])
        return cls(
            list(names),
            system_codes[keep],
            instance_codes,
            rater_codes,
            counted.row_score[keep].astype(float),
            int(instance_codes.max(initial=-1)) + 1,
            int(rater_codes.max(initial=-1)) + 1,
        )

    def counts(self) -> NDArray[np.int64]:
        return np.bincount(self.system_codes, minlength=len(self.systems))

    def means(self) -> NDArray[np.float64]:
        counts = self.counts()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.bincount(self.system_codes, weights=self.scores, minlength=len(self.systems)) / counts


def rater_fallback_reason(rater_codes: ArrayLike, min_raters: int = MIN_RATERS) -> str | None:
    """Why the rater term cannot be estimated (None when it can): too few raters, or none with two ratings.

    A small pure rule shared by the intervals and the secondary columns' estimability.
    """
    rater_codes = np.asarray(rater_codes)
    if not len(rater_codes):
        return "no ratings"
    per_rater = np.bincount(rater_codes)
    per_rater = per_rater[per_rater > 0]
    if per_rater.max() < 2:
        return "raters not identifiable (every rater has a single rating, e.g. a file without worker ids)"
    if len(per_rater) < min_raters:
        return f"{len(per_rater)} rater{'' if len(per_rater) == 1 else 's'}, fewer than {min_raters}"
    return None


def cluster_totals(
    weighted: NDArray[np.float64],
    system_codes: NDArray[np.int64],
    cluster_codes: NDArray[np.int64],
    n_systems: int,
    n_clusters: int,
) -> NDArray[np.float64]:
    """``(systems x clusters)`` totals of ``weighted`` (u_j e_j) per system and cluster."""
    flat = system_codes * n_clusters + cluster_codes
    totals = np.bincount(flat, weights=weighted, minlength=n_systems * n_clusters)
    return np.asarray(totals, dtype=np.float64).reshape(n_systems, n_clusters)  # float (the stub says integer)


def small_sample_factor(n_clusters: int) -> float:
    """CGM's ``G / (G - 1)`` (1 for a single cluster, whose term is 0 anyway)."""
    return n_clusters / (n_clusters - 1) if n_clusters > 1 else 1.0


def robust_variance(
    instance_part: NDArray[np.float64], rater_part: NDArray[np.float64], cell_part: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``V_I + V_R - V_IR``, floored at the larger one-way term (each part already scaled by its c_G)."""
    return np.maximum(instance_part + rater_part - cell_part, np.maximum(instance_part, rater_part))


def effective_clusters_df(
    variance: NDArray[np.float64],
    instance_fourth: NDArray[np.float64] | float,
    rater_fourth: NDArray[np.float64] | float,
    max_df: float,
) -> NDArray[np.float64]:
    """``V^2 / (sum of the scaled fourth powers)``, bounded to [1, max_df] (see the module doc)."""
    denominator = instance_fourth + rater_fourth
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.where(denominator > 0, variance**2 / np.where(denominator > 0, denominator, 1.0), max_df)
    return np.clip(df, 1.0, max(max_df, 1.0))


@dataclass(frozen=True)
class Contrasts:
    """Variances of every system mean and of every pairwise difference, with their degrees of freedom.

    ``mean_variance[k]``/``mean_df[k]`` for system k; ``pair_variance``/``pair_df`` for the pairs of
    ``pairs`` (a < b, :func:`itertools.combinations` order), for ``means[a] - means[b]``.
    """

    means: NDArray[np.float64]
    counts: NDArray[np.int64]
    mean_variance: NDArray[np.float64]
    mean_df: NDArray[np.float64]
    pairs: list[tuple[int, int]]
    pair_variance: NDArray[np.float64]
    pair_df: NDArray[np.float64]
    fallback_reason: str | None


# Pairs x clusters up to which every pair's cluster totals are formed and summed directly (the figures of the
# definition, float for float); above it (hundreds of systems: billions of totals) the sums come from moment
# matrices of the systems' totals (see :func:`contrasts`).
DIRECT_PAIR_ELEMENTS = 20_000_000
# Pairs x clusters formed at once when summing directly (memory bound).
PAIR_BLOCK_ELEMENTS = 4_000_000
# Clusters up to which the moment matrices are dense products (instances, raters; not the instance-rater cells).
DENSE_MOMENT_CLUSTERS = 20_000


def contrasts(design: RatingDesign, min_raters: int = MIN_RATERS) -> Contrasts:
    """:class:`Contrasts` of ``design`` (every system, every pair), two-way or, visibly, one-way.

    Every pair's variance needs the sums over clusters of its difference's totals, squared (and to the fourth
    power for the degrees of freedom). Up to :data:`DIRECT_PAIR_ELEMENTS` pairs x clusters they are formed
    pair by pair, in blocks of pairs. Beyond, they come from the systems' own totals ``T`` (systems x clusters)
    through ``sum_g (s_a - s_b)^2 = G_aa + G_bb - 2 G_ab`` with ``G = T T'``, and the binomial expansion of the
    fourth power (``T^3 T'``, ``T^2 T^2'``): a few (systems x systems) products, sparse for the instance-rater
    cells (a system is rated in few of them). The two ways agree to rounding (tests/results/test_table6_speed.py).
    """
    n_systems = len(design.systems)
    counts = design.counts()
    means = design.means()
    fallback = rater_fallback_reason(design.rater_codes, min_raters)
    safe_counts = np.where(counts > 0, counts, 1)
    residual = design.scores - np.nan_to_num(means)[design.system_codes]
    weighted = residual / safe_counts[design.system_codes]
    codes = design.system_codes
    pairs = list(combinations(range(n_systems), 2))
    firsts, seconds = np.array(pairs, dtype=np.int64).reshape(-1, 2).T
    clusters = {"instance": (design.instance_codes, design.n_instances)}
    max_df = max(design.n_instances - 1, 1)
    if fallback is None:
        cell_codes, cell_index = dense_codes(design.instance_codes * max(design.n_raters, 1) + design.rater_codes)
        clusters["rater"] = (design.rater_codes, design.n_raters)
        clusters["cell"] = (cell_index, len(cell_codes))
        max_df = design.n_instances + design.n_raters - 2
    direct = len(pairs) * sum(size for _, size in clusters.values()) <= DIRECT_PAIR_ELEMENTS
    mean_squares: dict[str, NDArray[np.float64]] = {}
    mean_fourth: dict[str, NDArray[np.float64]] = {}
    pair_squares: dict[str, NDArray[np.float64]] = {}
    pair_fourth: dict[str, NDArray[np.float64]] = {}
    for name, (cluster_codes, size) in clusters.items():
        factor, fourth = small_sample_factor(size), name != "cell"
        if direct:
            matrix = cluster_totals(weighted, codes, cluster_codes, n_systems, size)
            mean_squares[name] = factor * (matrix**2).sum(axis=-1)
            if fourth:
                mean_fourth[name] = (factor**2) * (matrix**4).sum(axis=-1)
            pair_squares[name], pair_fourth[name] = _direct_pair_sums(matrix, factor, firsts, seconds, fourth)
        else:
            totals: NDArray[np.float64] | sparse.csr_matrix = (
                cluster_totals(weighted, codes, cluster_codes, n_systems, size)
                if size <= DENSE_MOMENT_CLUSTERS
                else sparse.csr_matrix((weighted, (codes, cluster_codes)), shape=(n_systems, size))
            )
            squares, fourths, pair_squares[name], pair_fourth[name] = _moment_pair_sums(
                totals, factor, firsts, seconds, fourth
            )
            mean_squares[name], mean_fourth[name] = squares, fourths

    def variance_and_df(
        squares: dict[str, NDArray[np.float64]], fourth: dict[str, NDArray[np.float64]]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(variance, df) of contrasts from each part's scaled sums of squared and fourth-power totals."""
        if fallback is None:
            variance = robust_variance(squares["instance"], squares["rater"], squares["cell"])
            return variance, effective_clusters_df(variance, fourth["instance"], fourth["rater"], max_df)
        variance = squares["instance"]
        return variance, effective_clusters_df(variance, fourth["instance"], 0.0, max_df)

    mean_variance, mean_df = variance_and_df(mean_squares, mean_fourth)
    if pairs:
        pair_variance, pair_df = variance_and_df(pair_squares, pair_fourth)
    else:
        pair_variance = pair_df = np.empty(0)
    return Contrasts(means, counts, mean_variance, mean_df, pairs, pair_variance, pair_df, fallback)


def _direct_pair_sums(
    matrix: NDArray[np.float64], factor: float, firsts: NDArray[np.int64], seconds: NDArray[np.int64], fourth: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``factor * sum_g (T_a - T_b)^2`` and ``factor^2 * sum_g (T_a - T_b)^4`` per pair (a, b), the totals
    formed in blocks of pairs (the fourth powers only when ``fourth``)."""
    squares, fourths = np.empty(len(firsts)), np.zeros(len(firsts))
    block = max(1, PAIR_BLOCK_ELEMENTS // max(matrix.shape[1], 1))
    for start in range(0, len(firsts), block):
        totals = matrix[firsts[start : start + block]] - matrix[seconds[start : start + block]]
        squares[start : start + block] = factor * (totals**2).sum(axis=-1)
        if fourth:
            fourths[start : start + block] = (factor**2) * (totals**4).sum(axis=-1)
    return squares, fourths


def _moment_pair_sums(
    totals: NDArray[np.float64] | sparse.csr_matrix,
    factor: float,
    firsts: NDArray[np.int64],
    seconds: NDArray[np.int64],
    fourth: bool,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(per system: ``factor * sum_g T^2``, ``factor^2 * sum_g T^4``; per pair: the same of ``T_a - T_b``) from
    moment matrices of the totals ``T`` (dense for instances and raters, sparse for the instance-rater cells)
    instead of every pair's totals."""

    def products(
        left: NDArray[np.float64] | sparse.csr_matrix, right: NDArray[np.float64] | sparse.csr_matrix
    ) -> NDArray[np.float64]:
        product = left @ right.T
        if isinstance(product, np.ndarray):
            return np.asarray(product, dtype=np.float64)
        return np.asarray(product.toarray(), dtype=np.float64)

    def power(matrix: NDArray[np.float64] | sparse.csr_matrix, k: int) -> NDArray[np.float64] | sparse.csr_matrix:
        return matrix**k if isinstance(matrix, np.ndarray) else matrix.power(k).tocsr()

    second = power(totals, 2)
    gram = products(totals, totals)
    own = np.diag(gram)
    squares = factor * own
    pair_squares = factor * np.maximum(own[firsts] + own[seconds] - 2.0 * gram[firsts, seconds], 0.0)
    if not fourth:
        return squares, np.zeros(len(own)), pair_squares, np.zeros(len(firsts))
    third = power(totals, 3)
    cubes = products(third, totals)  # sum_g T_a^3 T_b
    both = products(second, second)  # sum_g T_a^2 T_b^2
    quartic = np.diag(both)
    pair_quartic = (
        quartic[firsts]
        - 4.0 * cubes[firsts, seconds]
        + 6.0 * both[firsts, seconds]
        - 4.0 * cubes[seconds, firsts]
        + quartic[seconds]
    )
    return squares, (factor**2) * quartic, pair_squares, (factor**2) * np.maximum(pair_quartic, 0.0)


@dataclass(frozen=True)
class TInterval:
    """A rater-aware interval of one system mean."""

    low: float | None
    high: float | None
    standard_error: float | None
    df: float | None
    level: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "standard_error": self.standard_error,
            "df": self.df,
            "level": self.level,
        }


def _finite(value: float | None, digits: int = 12) -> float | None:
    """Rounded to ``digits`` decimals (far below any displayed figure, so files are identical across
    platforms' last-bit differences); None when not finite."""
    return round(float(value), digits) if value is not None and math.isfinite(value) else None


def intervals(
    found: Contrasts, level: float = CONFIDENCE_LEVEL, bounds: tuple[float, float] = (SCORE_MIN, SCORE_MAX)
) -> list[TInterval]:
    """``[TInterval]`` per system of :func:`contrasts` (None bounds for a system without ratings).

    The interval is cut to ``bounds``, the score scale: a mean of 0-3 scores lies in [0, 3], so the
    cut loses no coverage (it matters only with few instances, where t has few degrees of freedom)."""
    result = []
    for mean, count, variance, df in zip(found.means, found.counts, found.mean_variance, found.mean_df):
        if not count:
            result.append(TInterval(None, None, None, None, level))
            continue
        error = math.sqrt(max(float(variance), 0.0))
        half = float(stats.t.ppf(0.5 + level / 2.0, df)) * error
        low, high = max(mean - half, bounds[0]), min(mean + half, bounds[1])
        result.append(TInterval(_finite(low), _finite(high), _finite(error), _finite(df, 6), level))
    return result


def one_sided_pvalues(differences: ArrayLike, variances: ArrayLike, dfs: ArrayLike) -> NDArray[np.float64]:
    """``P(t_df >= d / sqrt(V))`` per comparison (0.5 for a zero difference; 0 or 1 when V is 0)."""
    differences = np.asarray(differences, dtype=float)
    errors = np.sqrt(np.maximum(np.asarray(variances, dtype=float), 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(errors > 0, differences / np.where(errors > 0, errors, 1.0), np.sign(differences) * np.inf)
    t = np.where(differences == 0, 0.0, t)
    return np.asarray(stats.t.sf(t, np.asarray(dfs, dtype=float)), dtype=np.float64)
