"""Rater effects: per-rater z-scores and a linear mixed model. No Django imports.

Crowd raters are harsher or kinder, and each sees a different subset, so a system's raw mean
(formula (1)) partly measures who rated it. Two secondary figures correct for that; formula (1)
stays the headline of Table 6.

``human_z`` (the WMT direct-assessment convention): each counted rating becomes a z-score
within its rater, ``z = (score - rater mean) / rater SD``, the SD being the population SD
(ddof 0) over that rater's counted ratings; a rater whose SD is 0 (every score the same)
contributes z = 0. A system's value is the mean z over its counted ratings. A rating of an
item shared by several systems' identical outputs is one rating of its rater (it enters the
rater's mean and SD once) and counts for each of those systems, as in formula (1).

``human_adjusted``: the system effect of the linear mixed model
``score = system_k + rater_j + instance_i + error`` with the systems as fixed effects (no
intercept, so each coefficient is the system's expected score for an average rater on an
average instance) and raters and instances as crossed random intercepts, fitted by REML: the
model statsmodels' MixedLM fits with one group holding every rating and the two random factors
as variance components (``vc_formula``), and the tests hold this module to MixedLM's figures.
MixedLM works on the n x n covariance of the one group and took from 2 s (one BLAS thread) to
over a minute (threads contending on a shared machine) for a paper-sized campaign, too slow for
a page or for the study planner's simulations; the same REML deviance written over the q x q
mixed-model equations (q = raters + instances, :class:`_Design`) takes milliseconds. Its
interval is the Wald interval ``estimate +- z * SE`` with ``SE^2`` the diagonal of
``sigma^2 (X' V^-1 X)^-1``, as MixedLM's ``bse_fe``. The fit is iterative, so its figures are
rounded to :data:`ADJUSTED_DIGITS` decimals, far below the optimizer's tolerance, which keeps
exported files identical from run to run.

A rating of an item shared by several systems' identical outputs is one rating: in the mixed model it
enters once, its row repeated for each of its m systems with weight 1/m (the weighted REML of rows with
known relative precisions, so the rater and the instance get one rating's information from it, not m).

When the columns mean nothing (:func:`secondary_problem`: raters unknown, or no rater with two
ratings, so a rater's effect cannot be told from the noise), both are left empty rather than printed
as 0.00 and as a "rater variance 0" fit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import linalg, optimize, stats
from threadpoolctl import threadpool_limits

from core.defaults import CONFIDENCE_LEVEL

Z_METHOD = (
    "mean of per-rater z-scores (WMT direct assessment): z = (score - rater mean) / rater SD, "
    "population SD (ddof 0) over the rater's counted ratings; a rater with SD 0 gives z = 0"
)
ADJUSTED_METHOD = (
    "linear mixed model fitted by REML (the model of statsmodels MixedLM with one group and "
    "variance components): score ~ 0 + system, rater and instance as crossed random intercepts; "
    "Wald interval"
)
# Decimals kept of the mixed model's iterative estimates (see the module doc).
ADJUSTED_DIGITS = 6
# Decimals kept of human_z: far below any figure printed, and above the last bits that the order of
# a float sum changes (grouped sums and per-rating z-scores agree to about 1e-15), so files stay identical.
Z_DIGITS = 12
# Starting values tried for theta = random-effect SD / residual SD (rater, instance) before L-BFGS-B refines the best.
THETA_GRID = (0.0, 0.2, 0.5, 1.0, 2.0)


def secondary_problem(rating_ids: ArrayLike, raters: ArrayLike) -> str | None:
    """Why ``human_z`` and ``human_adjusted`` cannot be estimated (None when they can).

    ``rating_ids``/``raters`` are parallel per-(rating, system) rows; each distinct rating counts once.
    Not estimable: no rating; a single rater (nothing to correct between raters); or no rater with
    two ratings (raters unknown, e.g. a crowd file without worker ids, where every rating is its own
    rater: a z-score is then 0 and the rater variance cannot be told from the residual).
    """
    rating_ids = np.asarray(rating_ids)
    if not len(rating_ids):
        return "no counted ratings"
    _, first = np.unique(rating_ids, return_index=True)
    _, per_rater = np.unique(np.asarray(raters)[first].astype(str), return_counts=True)
    return ratings_per_rater_problem(per_rater)


def ratings_per_rater_problem(per_rater: ArrayLike) -> str | None:
    """:func:`secondary_problem` from the number of distinct counted ratings of each rater (grouped sums)."""
    per_rater = np.asarray(per_rater)
    if not len(per_rater) or not per_rater.sum():
        return "no counted ratings"
    if len(per_rater) < 2:
        return "not estimable: a single rater, so there is no difference between raters to correct for"
    if per_rater.max() < 2:
        return (
            "not estimable: raters unknown or each rater with one rating (e.g. a crowd file without worker "
            "ids), so a rater's effect cannot be told from the noise (rater variance not identifiable)"
        )
    return None


def rater_z_scores(raters: ArrayLike, scores: ArrayLike) -> NDArray[np.float64]:
    """The z-score of each rating within its rater (ddof 0; a rater with SD 0 gives 0 everywhere)."""
    scores = np.asarray(scores, dtype=float)
    if not len(scores):
        return np.empty(0)
    _, rater_codes = np.unique(np.asarray(raters), return_inverse=True)
    counts = np.bincount(rater_codes)
    means = np.bincount(rater_codes, weights=scores) / counts
    deviations = scores - means[rater_codes]
    sds = np.sqrt(np.bincount(rater_codes, weights=deviations**2) / counts)
    spread = sds[rater_codes]
    return np.where(spread > 0, deviations / np.where(spread > 0, spread, 1.0), 0.0)


def system_z_means(
    rating_ids: ArrayLike, raters: ArrayLike, scores: ArrayLike, systems: ArrayLike, names: Iterable[str]
) -> dict[str, float | None]:
    """``{name: mean z or None}`` over per-(rating, system) rows.

    ``rating_ids``, ``raters``, ``scores`` and ``systems`` are parallel: one row per counted rating
    and system it counts for (a shared item's rating repeats with each system). Each rating
    enters its rater's mean and SD once. ``names``: every system to report (None without ratings).
    """
    rating_ids = np.asarray(rating_ids)
    result = dict.fromkeys(names)
    if not len(rating_ids):
        return result
    distinct, first, inverse = np.unique(rating_ids, return_index=True, return_inverse=True)
    z = rater_z_scores(np.asarray(raters)[first], np.asarray(scores)[first])[inverse]
    frame = pd.DataFrame({"system": np.asarray(systems, dtype=object), "z": z})
    for name, value in frame.groupby("system", sort=False)["z"].mean().items():
        if name in result:
            result[name] = float(value)
    return result


def system_z_from_sums(
    raters: Iterable[tuple[Any, int, int, int]], cells: Iterable[tuple[str, Any, int, int]], names: Iterable[str]
) -> dict[str, float | None]:
    """``{name: mean z or None}`` from grouped sums, the figures :func:`system_z_means` gives from rows.

    ``raters``: (rater, ratings, sum, sum of squares) of each rater's distinct counted ratings;
    ``cells``: (system, rater, ratings, sum) of the per-(rating, system) rows of each system and
    rater. A rating's z is (score - m) / sd with the rater's m = S / n and sd = sqrt(nQ - S^2) / n,
    so a cell's z-sum is (n T - c S) / sqrt(nQ - S^2), with integers above the fraction bar (exact);
    a rater with sd 0 adds 0. A system's value is its z-sum over its number of rows, rounded to
    :data:`Z_DIGITS` decimals. This is what
    lets the database return a million ratings' z-scores as a few thousand grouped rows.
    """
    result = dict.fromkeys(names)
    per_rater = {rater: (int(n), int(total), int(squares)) for rater, n, total, squares in raters}
    z_sums: dict[str, float] = {}
    rows: dict[str, int] = {}
    for system, rater, count, total in cells:
        n, rater_total, squares = per_rater[rater]
        spread = n * squares - rater_total * rater_total
        z_sum = (n * int(total) - int(count) * rater_total) / math.sqrt(spread) if spread > 0 else 0.0
        z_sums[system] = z_sums.get(system, 0.0) + z_sum
        rows[system] = rows.get(system, 0) + int(count)
    for system, count in rows.items():
        if system in result and count:
            result[system] = round(z_sums[system] / count, Z_DIGITS)
    return result


def system_z_from_totals(
    rater_ids: NDArray[np.int64],
    rater_counts: NDArray[np.int64],
    rater_sums: NDArray[np.int64],
    rater_squares: NDArray[np.int64],
    cell_systems: Sequence[str],
    cell_raters: NDArray[np.int64],
    cell_counts: NDArray[np.int64],
    cell_sums: NDArray[np.int64],
    names: Iterable[str],
) -> dict[str, float | None]:
    """:func:`system_z_from_sums` on arrays: the same figures, bit for bit, for a million ratings' few thousand
    cells without a Python step per cell. ``rater_ids`` sorted; each cell's rater among them; a system's cells
    are added in the order given (as :func:`system_z_from_sums` adds them)."""
    result: dict[str, float | None] = dict.fromkeys(names)
    if not len(cell_counts):
        return result
    at = np.searchsorted(rater_ids, cell_raters)
    n, total, squares = rater_counts[at], rater_sums[at], rater_squares[at]
    spread = n * squares - total * total
    numerator = n * cell_sums - cell_counts * total
    with np.errstate(invalid="ignore", divide="ignore"):
        z_sums = np.where(spread > 0, numerator / np.sqrt(np.where(spread > 0, spread, 1).astype(float)), 0.0)
    labels, system_codes = np.unique(np.asarray(cell_systems, dtype=object), return_inverse=True)
    system_codes = system_codes.reshape(-1)
    z_totals = np.bincount(system_codes, weights=z_sums, minlength=len(labels))
    rows = np.bincount(system_codes, weights=cell_counts, minlength=len(labels))
    for label, z_total, count in zip(labels.tolist(), z_totals.tolist(), rows.tolist()):
        if label in result and count:
            result[label] = round(z_total / int(count), Z_DIGITS)
    return result


@dataclass(frozen=True)
class AdjustedScore:
    """One system's effect in the mixed model, with its Wald interval."""

    estimate: float | None
    low: float | None
    high: float | None

    def as_dict(self) -> dict[str, Any]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high}


NOT_ESTIMATED = AdjustedScore(None, None, None)


@dataclass(frozen=True)
class MixedModelFit:
    """The mixed model's system effects and variance components (None when it could not be fitted)."""

    scores: dict[str, AdjustedScore]  # {system name: AdjustedScore}
    converged: bool
    rater_variance: float | None
    instance_variance: float | None
    residual_variance: float | None
    level: float
    problem: str | None = None  # why there is no estimate, when there is none

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": ADJUSTED_METHOD,
            "level": self.level,
            "converged": self.converged,
            "rater_variance": self.rater_variance,
            "instance_variance": self.instance_variance,
            "residual_variance": self.residual_variance,
            "problem": self.problem,
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), ADJUSTED_DIGITS)


def shared_weights(rating_ids: ArrayLike) -> NDArray[np.float64]:
    """1/m for each row of a rating that appears in m rows (a shared item's rating counts for m systems)."""
    rating_ids = np.asarray(rating_ids)
    if not len(rating_ids):
        return np.empty(0)
    _, inverse, counts = np.unique(rating_ids, return_inverse=True, return_counts=True)
    return 1.0 / counts[inverse]


def mixed_model(
    instances: ArrayLike,
    systems: ArrayLike,
    raters: ArrayLike,
    scores: ArrayLike,
    names: Iterable[str],
    level: float = CONFIDENCE_LEVEL,
    weights: ArrayLike | None = None,
) -> MixedModelFit:
    """Fit the module's mixed model on per-(rating, system) rows; every system of ``names`` gets a score.

    ``weights`` (default 1 per row): a shared rating's rows carry 1/m each (:func:`shared_weights`).
    Needs at least two raters, two instances and more ratings than parameters; otherwise every
    score is :data:`NOT_ESTIMATED` and ``problem`` says why.
    """
    y = np.asarray(scores, dtype=float)
    weights = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    system_codes, labels = pd.factorize(np.asarray(systems, dtype=object))
    rater_codes, rater_labels = pd.factorize(np.asarray(raters, dtype=object))
    instance_codes, instance_labels = pd.factorize(np.asarray(instances, dtype=object))

    def failed(problem: str) -> MixedModelFit:
        return MixedModelFit(dict.fromkeys(names, NOT_ESTIMATED), False, None, None, None, level, problem)

    if len(rater_labels) < 2 or len(instance_labels) < 2:
        return failed("needs ratings from at least two raters on at least two instances")
    if weights.sum() <= len(labels) + 3:
        return failed("needs more ratings than the model has parameters")
    design = _Design(
        y,
        system_codes,
        len(labels),
        [(rater_codes, len(rater_labels)), (instance_codes, len(instance_labels))],
        weights,
    )
    with threadpool_limits(limits=1, user_api="blas"):  # small dense algebra: threads only contend
        theta, converged = design.optimize()
        solution = design.solve(theta)
    variance = solution.rss / (design.n - len(labels))
    errors = np.sqrt(variance * np.diag(linalg.cho_solve((solution.schur_factor, True), np.eye(len(labels)))))
    z = stats.norm.ppf(0.5 + level / 2.0)
    fitted = {
        label: AdjustedScore(_rounded(estimate), _rounded(estimate - z * error), _rounded(estimate + z * error))
        for label, estimate, error in zip(labels, solution.beta, errors)
    }
    return MixedModelFit(
        {name: fitted.get(name, NOT_ESTIMATED) for name in names},
        converged,
        _rounded(theta[0] ** 2 * variance),
        _rounded(theta[1] ** 2 * variance),
        _rounded(variance),
        level,
    )


@dataclass(frozen=True)
class VarianceComponents:
    """The variance components of ``score = system + rater + instance + system x instance + error`` (REML).

    ``system_instance`` is the systems' genuine instance-by-instance disagreement (one system's reason is
    better on this statement, the other's on that one): more raters per item cannot average it away,
    unlike ``rater`` and ``residual`` (a rating's own noise). None when not fitted (``problem`` says why).
    """

    rater: float | None
    instance: float | None
    system_instance: float | None
    residual: float | None
    converged: bool
    problem: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "rater": self.rater,
            "instance": self.instance,
            "system_instance": self.system_instance,
            "residual": self.residual,
            "converged": self.converged,
            "problem": self.problem,
        }


def variance_components(
    instances: ArrayLike, systems: ArrayLike, raters: ArrayLike, scores: ArrayLike, weights: ArrayLike | None = None
) -> VarianceComponents:
    """:class:`VarianceComponents` of per-(rating, system) rows, by REML with a system x instance term
    (the study planner's decomposition; ``weights`` as in :func:`mixed_model`)."""
    y = np.asarray(scores, dtype=float)
    weights = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    system_codes, labels = pd.factorize(np.asarray(systems, dtype=object))
    rater_codes, rater_labels = pd.factorize(np.asarray(raters, dtype=object))
    instance_codes, instance_labels = pd.factorize(np.asarray(instances, dtype=object))
    cell_codes, cell_labels = pd.factorize(system_codes.astype(np.int64) * len(instance_labels) + instance_codes)
    if len(rater_labels) < 2 or len(instance_labels) < 2 or len(labels) < 2:
        return VarianceComponents(
            None,
            None,
            None,
            None,
            False,
            "needs ratings of two systems from at least two raters on at least two instances",
        )
    if weights.sum() <= len(labels) + len(cell_labels):
        return VarianceComponents(
            None, None, None, None, False, "needs more ratings than system x instance cells (several ratings per item)"
        )
    design = _Design(
        y,
        system_codes,
        len(labels),
        [(rater_codes, len(rater_labels)), (instance_codes, len(instance_labels)), (cell_codes, len(cell_labels))],
        weights,
    )
    with threadpool_limits(limits=1, user_api="blas"):
        theta, converged = design.optimize()
        solution = design.solve(theta)
    variance = solution.rss / (design.n - len(labels))
    return VarianceComponents(
        _rounded(theta[0] ** 2 * variance),
        _rounded(theta[1] ** 2 * variance),
        _rounded(theta[2] ** 2 * variance),
        _rounded(variance),
        converged,
    )


@dataclass(frozen=True)
class _Solution:
    deviance: float  # -2 x the REML log-likelihood
    beta: NDArray[np.float64]  # the system effects
    rss: float  # the penalised residual sum of squares
    schur_factor: NDArray[np.float64]  # Cholesky factor of X' V^-1 X (times the residual variance)


class _Design:
    """The sufficient statistics of ``y = X beta + Z u + e`` (X: systems, Z: raters then instances) and the
    profiled REML deviance over theta = (rater SD, instance SD) / residual SD, in lme4's formulation:
    with Lambda = diag(theta), A = Lambda Z'Z Lambda + I and S = X'X - X'Z Lambda A^-1 Lambda Z'X,
    ``-2 log L_REML = log|A| + log|S| + (n - p) (1 + log(2 pi r / (n - p)))`` where r is the penalised
    residual sum of squares. Everything is q x q (q = raters + instances), whatever the number of ratings.
    Rows carry weights w (a residual variance sigma^2 / w): every cross-product is weighted and n is the sum
    of the weights (the number of distinct ratings), which leaves unweighted data exactly as before."""

    def __init__(
        self,
        y: NDArray[np.float64],
        systems: NDArray[np.int64],
        p: int,
        factors: Sequence[tuple[NDArray[np.int64], int]],
        weights: ArrayLike | None = None,
    ) -> None:
        """``factors``: [(level codes per row, number of levels)] of the crossed random intercepts."""
        weights = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
        self.n, self.p = float(weights.sum()), p
        self.sizes = [size for _, size in factors]
        offsets = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)
        q = int(sum(self.sizes))
        columns = np.stack([codes + offset for (codes, _), offset in zip(factors, offsets)], axis=1)
        self.xtx = np.bincount(systems, weights=weights, minlength=p).astype(float)
        self.xty = np.bincount(systems, weights=weights * y, minlength=p)
        self.ztz = np.zeros((q, q))
        self.xtz = np.zeros((p, q))
        for a in range(len(factors)):
            np.add.at(self.xtz, (systems, columns[:, a]), weights)
            for b in range(len(factors)):
                np.add.at(self.ztz, (columns[:, a], columns[:, b]), weights)
        self.zty = sum(np.bincount(columns[:, a], weights=weights * y, minlength=q) for a in range(len(factors)))
        self.yty = float((weights * y) @ y)
        self.q = q

    def solve(self, theta: ArrayLike) -> _Solution:
        lam = np.repeat(np.asarray(theta, dtype=float), self.sizes)
        if len(self.sizes) > 2:
            return self._solve_blocked(lam)
        factor = linalg.cholesky(lam[:, None] * self.ztz * lam[None, :] + np.eye(self.q), lower=True)
        w_x = linalg.solve_triangular(factor, (self.xtz * lam).T, lower=True)
        w_y = linalg.solve_triangular(factor, lam * self.zty, lower=True)
        return self._finish(2 * np.log(np.diag(factor)).sum(), w_x.T @ w_x, w_x.T @ w_y, w_y @ w_y)

    def _finish(self, log_det: float, xmx: NDArray[np.float64], xmy: NDArray[np.float64], ymy: float) -> _Solution:
        """The solution from log|A| and the quadratic forms X'Z Lambda A^-1 Lambda Z'X, ... (lme4's profiling)."""
        schur = linalg.cholesky(np.diag(self.xtx) - xmx, lower=True)
        right = self.xty - xmy
        beta = linalg.cho_solve((schur, True), right)
        rss = max(self.yty - ymy - right @ beta, np.finfo(float).tiny)
        dof = self.n - self.p
        deviance = log_det + 2 * np.log(np.diag(schur)).sum() + dof * (1 + np.log(2 * np.pi * rss / dof))
        return _Solution(float(deviance), beta, float(rss), schur)

    def _solve_blocked(self, lam: NDArray[np.float64]) -> _Solution:
        """:meth:`solve` for three or more factors (the planner's system x instance cells): every factor's own
        block of Z'Z is diagonal (a row has one level of it), so the largest factor is eliminated first and
        only the Schur complement of the others is factored. The same figures as the dense path, in
        O(cells x others^2) instead of O((cells + others)^3)."""
        if not hasattr(self, "_blocks"):
            big = int(np.argmax(self.sizes))
            start = int(sum(self.sizes[:big]))
            inside = np.zeros(self.q, dtype=bool)
            inside[start : start + self.sizes[big]] = True
            self._blocks = (
                inside,
                np.diag(self.ztz)[inside],
                self.ztz[np.ix_(inside, ~inside)],
                self.ztz[np.ix_(~inside, ~inside)],
                np.column_stack([self.xtz.T, self.zty]),
            )
        inside, ztz_diagonal, ztz_cross, ztz_rest, columns = self._blocks
        lam_in, lam_out = lam[inside], lam[~inside]
        diagonal = lam_in**2 * ztz_diagonal + 1.0
        cross = lam_in[:, None] * ztz_cross * lam_out[None, :]
        rest = lam_out[:, None] * ztz_rest * lam_out[None, :] + np.eye(len(lam_out))
        complement = linalg.cholesky(rest - cross.T @ (cross / diagonal[:, None]), lower=True)
        outer, other = columns[inside] * lam_in[:, None], columns[~inside] * lam_out[:, None]
        reduced = linalg.solve_triangular(complement, other - cross.T @ (outer / diagonal[:, None]), lower=True)
        forms = outer.T @ (outer / diagonal[:, None]) + reduced.T @ reduced
        log_det = np.log(diagonal).sum() + 2 * np.log(np.diag(complement)).sum()
        return self._finish(log_det, forms[: self.p, : self.p], forms[: self.p, self.p], forms[self.p, self.p])

    def optimize(self) -> tuple[NDArray[np.float64], bool]:
        """(theta, converged): the best point of a coarse grid (zero included), refined by L-BFGS-B on
        theta >= 0. When L-BFGS-B reports no convergence (its finite-difference gradient carries rounding
        noise of order 0.01 near the optimum, which can end its line search "abnormally" at the optimum),
        Nelder-Mead on |theta|, started from a small simplex around that point, polishes it and its simplex
        test decides convergence."""
        deviance = lambda theta: self.solve(np.abs(theta)).deviance  # noqa: E731
        start = min(product(THETA_GRID, repeat=len(self.sizes)), key=deviance)
        rough = optimize.minimize(
            deviance,
            start,
            method="L-BFGS-B",
            bounds=[(0.0, None)] * len(self.sizes),
            options={"maxiter": 500, "ftol": 1e-13, "gtol": 1e-9},
        )
        if rough.success:
            return np.abs(rough.x), True
        point = np.abs(rough.x)
        steps = np.maximum(1e-3, 0.01 * point)
        simplex = np.vstack([point, point + np.diag(steps)])
        polished = optimize.minimize(
            deviance,
            point,
            method="Nelder-Mead",
            options={"xatol": 1e-7, "fatol": 1e-10, "maxiter": 2000, "initial_simplex": simplex},
        )
        best = polished if polished.fun <= rough.fun else rough
        return np.abs(best.x), bool(polished.success)
