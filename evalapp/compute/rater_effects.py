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
"""
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import linalg, optimize, stats
from threadpoolctl import threadpool_limits

from core.defaults import CONFIDENCE_LEVEL

Z_METHOD = ("mean of per-rater z-scores (WMT direct assessment): z = (score - rater mean) / rater SD, "
            "population SD (ddof 0) over the rater's counted ratings; a rater with SD 0 gives z = 0")
ADJUSTED_METHOD = ("linear mixed model fitted by REML (the model of statsmodels MixedLM with one group and "
                   "variance components): score ~ 0 + system, rater and instance as crossed random intercepts; "
                   "Wald interval")
# Decimals kept of the mixed model's iterative estimates (see the module doc).
ADJUSTED_DIGITS = 6
# Decimals kept of human_z: far below any figure printed, and above the last bits that the order of
# a float sum changes (grouped sums and per-rating z-scores agree to about 1e-15), so files stay identical.
Z_DIGITS = 12
# Starting values tried for theta = random-effect SD / residual SD (rater, instance) before L-BFGS-B refines the best.
THETA_GRID = (0.0, 0.2, 0.5, 1.0, 2.0)


def rater_z_scores(raters, scores):
    """The z-score of each rating within its rater (ddof 0; a rater with SD 0 gives 0 everywhere)."""
    scores = np.asarray(scores, dtype=float)
    if not len(scores):
        return np.empty(0)
    _, rater_codes = np.unique(np.asarray(raters), return_inverse=True)
    counts = np.bincount(rater_codes)
    means = np.bincount(rater_codes, weights=scores) / counts
    deviations = scores - means[rater_codes]
    sds = np.sqrt(np.bincount(rater_codes, weights=deviations ** 2) / counts)
    spread = sds[rater_codes]
    return np.where(spread > 0, deviations / np.where(spread > 0, spread, 1.0), 0.0)


def system_z_means(rating_ids, raters, scores, systems, names):
    """``{name: mean z or None}`` over per-(rating, system) rows.

    ``rating_ids``, ``raters``, ``scores`` and ``systems`` are parallel: one row per counted rating
    and system it counts for (a shared item's rating repeats with each system). Each rating
    enters its rater's mean and SD once. ``names``: every system to report (None without ratings).
    """
    rating_ids = np.asarray(rating_ids)
    result = {name: None for name in names}
    if not len(rating_ids):
        return result
    distinct, first, inverse = np.unique(rating_ids, return_index=True, return_inverse=True)
    z = rater_z_scores(np.asarray(raters)[first], np.asarray(scores)[first])[inverse]
    frame = pd.DataFrame({"system": np.asarray(systems, dtype=object), "z": z})
    for name, value in frame.groupby("system", sort=False)["z"].mean().items():
        if name in result:
            result[name] = float(value)
    return result


def system_z_from_sums(raters, cells, names):
    """``{name: mean z or None}`` from grouped sums, the figures :func:`system_z_means` gives from rows.

    ``raters``: (rater, ratings, sum, sum of squares) of each rater's distinct counted ratings;
    ``cells``: (system, rater, ratings, sum) of the per-(rating, system) rows of each system and
    rater. A rating's z is (score - m) / sd with the rater's m = S / n and sd = sqrt(nQ - S^2) / n,
    so a cell's z-sum is (n T - c S) / sqrt(nQ - S^2), with integers above the fraction bar (exact);
    a rater with sd 0 adds 0. A system's value is its z-sum over its number of rows, rounded to
    :data:`Z_DIGITS` decimals. This is what
    lets the database return a million ratings' z-scores as a few thousand grouped rows.
    """
    result = {name: None for name in names}
    per_rater = {rater: (int(n), int(total), int(squares)) for rater, n, total, squares in raters}
    z_sums, rows = {}, {}
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


@dataclass(frozen=True)
class AdjustedScore:
    """One system's effect in the mixed model, with its Wald interval."""

    estimate: float | None
    low: float | None
    high: float | None

    def as_dict(self):
        return {"estimate": self.estimate, "low": self.low, "high": self.high}


NOT_ESTIMATED = AdjustedScore(None, None, None)


@dataclass(frozen=True)
class MixedModelFit:
    """The mixed model's system effects and variance components (None when it could not be fitted)."""

    scores: dict                   # {system name: AdjustedScore}
    converged: bool
    rater_variance: float | None
    instance_variance: float | None
    residual_variance: float | None
    level: float
    problem: str | None = None     # why there is no estimate, when there is none

    def as_dict(self):
        return {"method": ADJUSTED_METHOD, "level": self.level, "converged": self.converged,
                "rater_variance": self.rater_variance, "instance_variance": self.instance_variance,
                "residual_variance": self.residual_variance, "problem": self.problem}


def _rounded(value):
    return None if value is None or not math.isfinite(value) else round(float(value), ADJUSTED_DIGITS)


def mixed_model(instances, systems, raters, scores, names, level=CONFIDENCE_LEVEL):
    """Fit the module's mixed model on per-(rating, system) rows; every system of ``names`` gets a score.

    Needs at least two raters, two instances and more ratings than parameters; otherwise every
    score is :data:`NOT_ESTIMATED` and ``problem`` says why.
    """
    y = np.asarray(scores, dtype=float)
    system_codes, labels = pd.factorize(np.asarray(systems, dtype=object))
    rater_codes, rater_labels = pd.factorize(np.asarray(raters, dtype=object))
    instance_codes, instance_labels = pd.factorize(np.asarray(instances, dtype=object))

    def failed(problem):
        return MixedModelFit({name: NOT_ESTIMATED for name in names}, False, None, None, None, level, problem)

    if len(rater_labels) < 2 or len(instance_labels) < 2:
        return failed("needs ratings from at least two raters on at least two instances")
    if len(y) <= len(labels) + 3:
        return failed("needs more ratings than the model has parameters")
    design = _Design(y, system_codes, len(labels), rater_codes, len(rater_labels), instance_codes,
                     len(instance_labels))
    with threadpool_limits(limits=1, user_api="blas"):  # small dense algebra: threads only contend
        theta, converged = design.optimize()
        solution = design.solve(theta)
    variance = solution.rss / (len(y) - len(labels))
    errors = np.sqrt(variance * np.diag(linalg.cho_solve((solution.schur_factor, True), np.eye(len(labels)))))
    z = stats.norm.ppf(0.5 + level / 2.0)
    fitted = {label: AdjustedScore(_rounded(estimate), _rounded(estimate - z * error), _rounded(estimate + z * error))
              for label, estimate, error in zip(labels, solution.beta, errors)}
    return MixedModelFit({name: fitted.get(name, NOT_ESTIMATED) for name in names}, converged,
                         _rounded(theta[0] ** 2 * variance), _rounded(theta[1] ** 2 * variance), _rounded(variance),
                         level)


@dataclass(frozen=True)
class _Solution:
    deviance: float            # -2 x the REML log-likelihood
    beta: np.ndarray           # the system effects
    rss: float                 # the penalised residual sum of squares
    schur_factor: np.ndarray   # Cholesky factor of X' V^-1 X (times the residual variance)


class _Design:
    """The sufficient statistics of ``y = X beta + Z u + e`` (X: systems, Z: raters then instances) and the
    profiled REML deviance over theta = (rater SD, instance SD) / residual SD, in lme4's formulation:
    with Lambda = diag(theta), A = Lambda Z'Z Lambda + I and S = X'X - X'Z Lambda A^-1 Lambda Z'X,
    ``-2 log L_REML = log|A| + log|S| + (n - p) (1 + log(2 pi r / (n - p)))`` where r is the penalised
    residual sum of squares. Everything is q x q (q = raters + instances), whatever the number of ratings."""

    def __init__(self, y, systems, p, raters, n_raters, instances, n_instances):
        self.n, self.p, self.n_raters = len(y), p, n_raters
        q = n_raters + n_instances
        columns = np.stack([raters, n_raters + instances], axis=1)
        self.xtx = np.bincount(systems, minlength=p).astype(float)
        self.xty = np.bincount(systems, weights=y, minlength=p)
        self.ztz = np.zeros((q, q))
        self.xtz = np.zeros((p, q))
        for a in range(2):
            np.add.at(self.xtz, (systems, columns[:, a]), 1.0)
            for b in range(2):
                np.add.at(self.ztz, (columns[:, a], columns[:, b]), 1.0)
        self.zty = sum(np.bincount(columns[:, a], weights=y, minlength=q) for a in range(2))
        self.yty = float(y @ y)
        self.q = q

    def solve(self, theta):
        lam = np.where(np.arange(self.q) < self.n_raters, theta[0], theta[1])
        factor = linalg.cholesky(lam[:, None] * self.ztz * lam[None, :] + np.eye(self.q), lower=True)
        w_x = linalg.solve_triangular(factor, (self.xtz * lam).T, lower=True)
        w_y = linalg.solve_triangular(factor, lam * self.zty, lower=True)
        schur = linalg.cholesky(np.diag(self.xtx) - w_x.T @ w_x, lower=True)
        right = self.xty - w_x.T @ w_y
        beta = linalg.cho_solve((schur, True), right)
        rss = max(self.yty - w_y @ w_y - right @ beta, np.finfo(float).tiny)
        dof = self.n - self.p
        deviance = (2 * np.log(np.diag(factor)).sum() + 2 * np.log(np.diag(schur)).sum()
                    + dof * (1 + np.log(2 * np.pi * rss / dof)))
        return _Solution(float(deviance), beta, float(rss), schur)

    def optimize(self):
        """(theta, converged): the best point of a coarse grid (zero included), refined by L-BFGS-B on
        theta >= 0. When L-BFGS-B reports no convergence (its finite-difference gradient carries rounding
        noise of order 0.01 near the optimum, which can end its line search "abnormally" at the optimum),
        Nelder-Mead on |theta|, started from a small simplex around that point, polishes it and its simplex
        test decides convergence."""
        deviance = lambda theta: self.solve(np.abs(theta)).deviance  # noqa: E731
        start = min(((a, b) for a in THETA_GRID for b in THETA_GRID), key=deviance)
        rough = optimize.minimize(deviance, start, method="L-BFGS-B", bounds=[(0.0, None)] * 2,
                                  options={"maxiter": 500, "ftol": 1e-13, "gtol": 1e-9})
        if rough.success:
            return np.abs(rough.x), True
        point = np.abs(rough.x)
        steps = np.maximum(1e-3, 0.01 * point)
        simplex = np.array([point, point + [steps[0], 0.0], point + [0.0, steps[1]]])
        polished = optimize.minimize(deviance, point, method="Nelder-Mead",
                                     options={"xatol": 1e-7, "fatol": 1e-10, "maxiter": 2000,
                                              "initial_simplex": simplex})
        best = polished if polished.fun <= rough.fun else rough
        return np.abs(best.x), bool(polished.success)
