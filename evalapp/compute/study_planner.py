"""The study planner: how many instances and raters a campaign needs to separate its systems. No Django imports.

From a pilot (or a running) campaign's per-(system, instance) score sums and counts:

- **variance components** of ``score = system + rater + instance + system x instance + error`` by REML
  (:func:`.rater_effects.variance_components`): the rater and residual variances are a rating's noise,
  which M raters per item divide by M; the system x instance variance is the systems' genuine
  instance-by-instance disagreement, which no number of raters averages away (a model without it
  counts that disagreement as noise and promises too much from more raters);
- **the clustering rule's multiplicity** (:func:`pair_level`): ``holm`` tests each pair two-sided and
  Holm-corrects over the K(K-1)/2 pairs, so a pair is planned at the Bonferroni level alpha / pairs (the
  step Holm's correction starts from, which guarantees the pair whatever the others do); ``wmt``
  (AssignRanks) tests one-sided at alpha with no correction;
- **for each pair of systems adjacent by human score** (best first): ``delta``, the difference of their
  means over the instances both have; ``sd_diff``, the SD of a per-instance difference of per-instance
  mean ratings at the planned M; ``instances_needed_normal``, ``ceil(((z_level + z_power) * sd_diff /
  delta)^2)`` (z_level = z_{1 - level/2} two-sided, z_{1 - level} one-sided); and
  ``instances_needed_simulated``, the smallest N at which the pilot's instances, resampled N at a time,
  reach the power with the paired t test at the same level and sidedness (seeded; a bounded search),
  with its Monte Carlo interval and whether the normal figure lies inside it;
- **the minimum detectable difference** for N instances and M raters:
  ``(z_level + z_power) * sd(M) / sqrt(N)``.

``sd_diff`` at M raters: a per-instance difference carries ``2 (rater + residual) / M`` of rating noise
and ``true``, the systems' disagreement (2 x system x instance in the model), estimated per pair as what
is left of the pilot's ``sd_diff^2`` after its own noise ``2 (rater + residual) / m`` (m the pilot's raters
per cell, harmonic mean; never below 0). At the pilot's own M it is the sample SD itself. The MDD table
uses the mean of ``true`` over the adjacent pairs.

The simulation resamples the pilot's per-instance differences; when the planned M differs from the
pilot's, each resampled difference is moved to the planned spread first
(``mean + (d - mean) * sd(M) / sd_pilot``), since a pilot cannot show ratings it does not have. Its
figure is noisy: the power at each N is a share of ``simulations`` studies. The Monte Carlo interval
maps the binomial 95% band of the power target, ``power +- 1.96 sqrt(power (1 - power) / simulations)``,
through the normal power curve's shape onto N (``N x ((z_level + z_{power +- h}) / (z_level + z_power))^2``):
the range of N the search could have returned for the same true power curve. ``agrees`` is true when
the normal figure lies in it: the two figures then differ by simulation noise only.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from core.defaults import PLANNER_MAX_SIMULATED_PAIRS

MDD_INSTANCES = (50, 100, 200, 500, 1000)
MDD_RATERS = (1, 3, 5)


RULES = ("holm", "wmt")


# The plan is a JSON document (the API's and ``plan_study --json``'s output, the page's context): these
# TypedDicts hold its shape, key for key.
class PlanTest(TypedDict):
    rule: str
    alpha: float
    pair_level: float
    sided: int
    pairs_corrected_over: int


class PlanPair(TypedDict):
    higher: str
    lower: str
    delta: float | None
    sd_diff: float | None
    instances_needed_normal: int | None
    instances_needed_simulated: int | None
    simulated_interval: list[int] | None
    agrees: bool | None


class PlanMdd(TypedDict):
    instances: int
    raters_per_item: int
    mdd: float | None


class PlanComponents(TypedDict):
    per_system_instance_means: dict[str, float | None]
    rater: float
    instance: float
    system_instance: float | None
    residual: float


class PlanSimulation(TypedDict):
    method: str
    simulations: int
    permutations: int
    max_instances: int
    max_pairs: int
    seed: int


class Plan(TypedDict):
    alpha: float
    power: float
    raters_per_item: int
    test: PlanTest
    pairs: list[PlanPair]
    mdd: list[PlanMdd]
    variance_components: PlanComponents
    simulation: PlanSimulation


@dataclass(frozen=True)
class PairLevel:
    """The level and sidedness at which one adjacent pair is tested under a clustering rule."""

    rule: str
    alpha: float  # the family's (or the single test's) significance level
    level: float  # the pair's own level after the rule's correction
    sided: int  # 2: two-sided; 1: one-sided
    pairs: int  # how many pairs the correction is over

    def as_dict(self) -> PlanTest:
        return {
            "rule": self.rule,
            "alpha": self.alpha,
            "pair_level": self.level,
            "sided": self.sided,
            "pairs_corrected_over": self.pairs,
        }


def pair_level(rule: str, alpha: float, n_systems: int) -> PairLevel:
    """:class:`PairLevel` of ``rule`` ("holm": two-sided at alpha / pairs; "wmt": one-sided at alpha)."""
    if rule not in RULES:
        raise ValueError(f"unknown clustering rule {rule!r}; choose one of {', '.join(RULES)}")
    pairs = max(n_systems * (n_systems - 1) // 2, 1)
    if rule == "wmt":
        return PairLevel(rule, alpha, alpha, 1, 1)
    return PairLevel(rule, alpha, alpha / pairs, 2, pairs)


def z_sum(alpha: float, power: float, sided: int = 2) -> float:
    """``z_{1-alpha/sided} + z_power``: the standard-normal quantiles of the test and of the power."""
    return float(stats.norm.ppf(1 - alpha / sided) + stats.norm.ppf(power))


def instances_needed_normal(delta: float, sd_diff: float, alpha: float, power: float, sided: int = 2) -> int | None:
    """``ceil(((z_{1-alpha/sided} + z_power) * sd_diff / delta)^2)``; None when ``delta`` is 0 (never detectable)."""
    if not delta:
        return None
    if not sd_diff:
        return 1
    return math.ceil((z_sum(alpha, power, sided) * sd_diff / abs(delta)) ** 2)


def minimum_detectable_difference(sd: float, n_instances: int, alpha: float, power: float, sided: int = 2) -> float:
    return z_sum(alpha, power, sided) * sd / math.sqrt(n_instances)


def monte_carlo_interval(
    simulated: int | None, alpha: float, power: float, simulations: int, sided: int = 2
) -> tuple[int, int] | None:
    """(low, high): the Monte Carlo 95% interval of a simulated N (module doc); None without a figure."""
    if simulated is None:
        return None
    half = 1.96 * math.sqrt(power * (1 - power) / simulations)
    base = z_sum(alpha, power, sided)

    def scaled(target: float) -> float:
        target = min(max(target, 1e-6), 1 - 1e-6)
        return simulated * (z_sum(alpha, target, sided) / base) ** 2

    return max(1, math.floor(scaled(power - half))), math.ceil(scaled(power + half))


def harmonic_mean(values: ArrayLike) -> float:
    values = np.asarray(values, dtype=float)
    values = values[values > 0]
    return float(len(values) / np.sum(1.0 / values)) if len(values) else 0.0


@dataclass(frozen=True)
class SimulationSettings:
    simulations: int  # resampled studies per candidate N
    permutations: int  # kept in the record for former plans; the paired t test draws none
    max_instances: int  # the search's bound: above it, the answer is None ("more than max")
    seed: int
    max_pairs: int = PLANNER_MAX_SIMULATED_PAIRS  # only the best this many adjacent pairs are simulated

    def as_dict(self) -> PlanSimulation:
        return {
            "method": "resampled pilot instances, paired t test at the rule's level and sidedness",
            "simulations": self.simulations,
            "permutations": self.permutations,
            "max_instances": self.max_instances,
            "max_pairs": self.max_pairs,
            "seed": self.seed,
        }


def simulated_power(
    differences: ArrayLike,
    n_instances: int,
    alpha: float,
    settings: SimulationSettings,
    scale: float = 1.0,
    sided: int = 2,
) -> float:
    """Share of ``settings.simulations`` studies of ``n_instances`` instances (drawn with replacement from
    the pilot's per-instance ``differences``, spread scaled by ``scale``) in which the paired
    test rejects at ``alpha`` (``sided`` 1: one-sided in the pilot's direction). The test is the paired t
    test on the per-instance differences, what Table 6's comparison of two systems rated on every instance
    reduces to with instance clusters; a permutation test could not reach Holm's small levels (its
    smallest p is 1 / (permutations + 1)). Seeded by (seed, N): the same N always gives the same figure."""
    differences = np.asarray(differences, dtype=float)
    mean = differences.mean()
    rng = np.random.default_rng([settings.seed, n_instances])
    drawn = differences[rng.integers(0, len(differences), size=(settings.simulations, n_instances))]
    drawn = mean + (drawn - mean) * scale
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample of equal differences has no spread
        result = stats.ttest_1samp(
            drawn, 0.0, axis=1, alternative="two-sided" if sided == 2 else ("greater" if mean > 0 else "less")
        )
    pvalues = np.nan_to_num(result.pvalue, nan=1.0)
    return float(np.mean(pvalues <= alpha if sided == 1 else pvalues < alpha))


def instances_needed_simulated(
    differences: ArrayLike,
    alpha: float,
    power: float,
    settings: SimulationSettings,
    start: int | None,
    scale: float = 1.0,
    sided: int = 2,
) -> int | None:
    """The smallest N (up to ``settings.max_instances``) whose :func:`simulated_power` reaches ``power``.

    A bounded search: from ``start`` (the normal approximation), double up (or halve down) until the power
    target is bracketed, then bisect. None when the pilot shows no difference or the bound is not enough.
    """
    differences = np.asarray(differences, dtype=float)
    if len(differences) < 2 or not np.any(differences) or differences.mean() == 0:
        return None

    def enough(n: int) -> bool:
        return simulated_power(differences, n, alpha, settings, scale, sided) >= power

    n = min(max(2, int(start or 2)), settings.max_instances)
    if enough(n):
        high, low = n, None
        while high > 2:  # halve down until the power is lost
            candidate = max(2, high // 2)
            if not enough(candidate):
                low = candidate
                break
            high = candidate
        if low is None:
            return high
    else:
        low = n
        while True:  # double up until the power is reached, or the bound
            if low >= settings.max_instances:
                return None
            high = min(low * 2, settings.max_instances)
            if enough(high):
                break
            low = high
    while high - low > 1:  # low fails, high succeeds
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True)
class Components:
    """Variance components of a pilot: per-system variance of per-instance means, and the mixed model's
    (with the system x instance term: :func:`.rater_effects.variance_components`)."""

    per_system: dict[str, float | None]  # {system: variance (ddof 1) of its per-instance mean ratings}
    rater: float
    instance: float
    residual: float
    system_instance: float | None = None

    def as_dict(self) -> PlanComponents:
        return {
            "per_system_instance_means": self.per_system,
            "rater": self.rater,
            "instance": self.instance,
            "system_instance": self.system_instance,
            "residual": self.residual,
        }


def per_system_variances(systems: Sequence[str], means: ArrayLike) -> dict[str, float | None]:
    """``{system: variance (ddof 1) of its per-instance means}`` over the instances it has (None below 2)."""
    result: dict[str, float | None] = {}
    for system, row in zip(systems, np.asarray(means, dtype=float)):
        present = row[np.isfinite(row)]
        result[system] = float(np.var(present, ddof=1)) if len(present) > 1 else None
    return result


def plan(
    ordered: Sequence[str],
    means: ArrayLike,
    counts: ArrayLike,
    components: Components,
    alpha: float,
    power: float,
    raters_per_item: int,
    settings: SimulationSettings,
    rule: str = "holm",
) -> Plan:
    """The plan as the JSON document of the issue: ``{"alpha", "power", "raters_per_item", "pairs", "mdd"}``
    plus ``test`` (the rule's level and sidedness), ``variance_components`` and the ``simulation`` settings.

    ``ordered``: the systems best first (by human score); ``means``/``counts``: their rows of per-instance
    mean ratings (NaN where unrated) and rating counts, in the same order; ``rule``: the clustering rule
    the campaign's Table 6 will use ("holm" or "wmt").
    """
    means = np.asarray(means, dtype=float)
    counts = np.asarray(counts, dtype=float)
    level = pair_level(rule, alpha, len(ordered))
    noise = (components.rater or 0.0) + (components.residual or 0.0)
    pairs: list[PlanPair] = []
    true_parts: list[float] = []
    for k in range(len(ordered) - 1):
        shared = np.isfinite(means[k]) & np.isfinite(means[k + 1])
        differences = means[k][shared] - means[k + 1][shared]
        if len(differences) < 2:
            pairs.append(
                {
                    "higher": ordered[k],
                    "lower": ordered[k + 1],
                    "delta": None,
                    "sd_diff": None,
                    "instances_needed_normal": None,
                    "instances_needed_simulated": None,
                    "simulated_interval": None,
                    "agrees": None,
                }
            )
            continue
        delta = float(differences.mean())
        pilot_sd = float(np.std(differences, ddof=1))
        pilot_raters = harmonic_mean(np.concatenate([counts[k][shared], counts[k + 1][shared]]))
        true = max(0.0, pilot_sd**2 - 2 * noise / pilot_raters) if pilot_raters else pilot_sd**2
        true_parts.append(true)
        planned_sd = (
            pilot_sd if math.isclose(pilot_raters, raters_per_item) else math.sqrt(true + 2 * noise / raters_per_item)
        )
        normal = instances_needed_normal(delta, planned_sd, level.level, power, level.sided)
        scale = planned_sd / pilot_sd if pilot_sd else 1.0
        simulated = (
            instances_needed_simulated(differences, level.level, power, settings, normal, scale, level.sided)
            if k < settings.max_pairs
            else None
        )
        interval = monte_carlo_interval(simulated, level.level, power, settings.simulations, level.sided)
        agrees = None if interval is None or normal is None else bool(interval[0] <= normal <= interval[1])
        pairs.append(
            {
                "higher": ordered[k],
                "lower": ordered[k + 1],
                "delta": delta,
                "sd_diff": planned_sd,
                "instances_needed_normal": normal,
                "instances_needed_simulated": simulated,
                "simulated_interval": None if interval is None else list(interval),
                "agrees": agrees,
            }
        )
    typical_true = float(np.mean(true_parts)) if true_parts else None
    mdd: list[PlanMdd] = []
    for n in MDD_INSTANCES:
        for m in MDD_RATERS:
            sd = None if typical_true is None else math.sqrt(typical_true + 2 * noise / m)
            mdd.append(
                {
                    "instances": n,
                    "raters_per_item": m,
                    "mdd": None
                    if sd is None
                    else minimum_detectable_difference(sd, n, level.level, power, level.sided),
                }
            )
    return {
        "alpha": alpha,
        "power": power,
        "raters_per_item": raters_per_item,
        "test": level.as_dict(),
        "pairs": pairs,
        "mdd": mdd,
        "variance_components": components.as_dict(),
        "simulation": settings.as_dict(),
    }
