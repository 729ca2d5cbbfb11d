"""The study planner: how many instances and raters a campaign needs to separate its systems. No Django imports.

From a pilot (or a running) campaign's per-(system, instance) score sums and counts:

- **variance components**: each system's variance (ddof 1) of its per-instance mean ratings, and the
  rater, instance and residual variances of the crossed mixed model (:mod:`.rater_effects`);
- **for each pair of systems adjacent by human score** (best first): ``delta``, the difference of their
  means over the instances both have; ``sd_diff``, the sample SD (ddof 1) of the per-instance
  differences of their per-instance mean ratings; ``instances_needed_normal``,
  ``ceil(((z_{1-alpha/2} + z_power) * sd_diff / delta)^2)`` for a two-sided paired test; and
  ``instances_needed_simulated``, the smallest N at which the pilot's instances, resampled N at a time,
  reach the power with the paired permutation test the significance clusters use (seeded; a bounded search);
- **the minimum detectable difference** for N instances and M raters:
  ``(z_{1-alpha/2} + z_power) * sd(M) / sqrt(N)``.

Raters enter through the variance components. With M raters per item, a per-instance mean carries
rater and residual noise of variance ``(rater + residual) / M``, so a paired difference's variance is
``true + 2 (rater + residual) / M``, where ``true`` (the systems' instance-by-instance disagreement) is
what is left of the pilot's ``sd_diff^2`` after its own noise, ``2 (rater + residual) / m`` with m the
pilot's raters per cell (harmonic mean), is taken off (never below 0). ``sd_diff`` is reported at the
planned M: at the pilot's own M it is the sample SD itself. The MDD table uses the mean of ``true``
over the adjacent pairs.

The simulation resamples the pilot's per-instance differences; when the planned M differs from the
pilot's, each resampled difference is moved to the planned spread first
(``mean + (d - mean) * sd(M) / sd_pilot``), since a pilot cannot show ratings it does not have.
"""
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from core.defaults import PLANNER_MAX_SIMULATED_PAIRS
from evalapp.compute.significance import paired_permutation_pvalues

MDD_INSTANCES = (50, 100, 200, 500, 1000)
MDD_RATERS = (1, 3, 5)


def z_sum(alpha, power):
    """``z_{1-alpha/2} + z_power``: the standard-normal quantiles of a two-sided test and of the power."""
    return float(stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power))


def instances_needed_normal(delta, sd_diff, alpha, power):
    """``ceil(((z_{1-alpha/2} + z_power) * sd_diff / delta)^2)``; None when ``delta`` is 0 (never detectable)."""
    if not delta:
        return None
    if not sd_diff:
        return 1
    return math.ceil((z_sum(alpha, power) * sd_diff / abs(delta)) ** 2)


def minimum_detectable_difference(sd, n_instances, alpha, power):
    return z_sum(alpha, power) * sd / math.sqrt(n_instances)


def harmonic_mean(values):
    values = np.asarray(values, dtype=float)
    values = values[values > 0]
    return float(len(values) / np.sum(1.0 / values)) if len(values) else 0.0


@dataclass(frozen=True)
class SimulationSettings:
    simulations: int        # resampled studies per candidate N
    permutations: int       # sign patterns of each permutation test
    max_instances: int      # the search's bound: above it, the answer is None ("more than max")
    seed: int
    max_pairs: int = PLANNER_MAX_SIMULATED_PAIRS  # only the best this many adjacent pairs are simulated

    def as_dict(self):
        return {"method": "resampled pilot instances, paired permutation test (two-sided, mean difference)",
                "simulations": self.simulations, "permutations": self.permutations,
                "max_instances": self.max_instances, "max_pairs": self.max_pairs, "seed": self.seed}


def simulated_power(differences, n_instances, alpha, settings, scale=1.0):
    """Share of ``settings.simulations`` studies of ``n_instances`` instances (drawn with replacement from
    the pilot's per-instance ``differences``, spread scaled by ``scale``) in which the paired permutation
    test rejects at ``alpha``. Seeded by (seed, N): the same N always gives the same figure."""
    differences = np.asarray(differences, dtype=float)
    mean = differences.mean()
    rng = np.random.default_rng([settings.seed, n_instances])
    drawn = differences[rng.integers(0, len(differences), size=(settings.simulations, n_instances))]
    drawn = mean + (drawn - mean) * scale
    pvalues = paired_permutation_pvalues(drawn, settings.permutations, seed=settings.seed + n_instances)
    return float(np.mean(pvalues < alpha))


def instances_needed_simulated(differences, alpha, power, settings, start, scale=1.0):
    """The smallest N (up to ``settings.max_instances``) whose :func:`simulated_power` reaches ``power``.

    A bounded search: from ``start`` (the normal approximation), double up (or halve down) until the power
    target is bracketed, then bisect. None when the pilot shows no difference or the bound is not enough.
    """
    differences = np.asarray(differences, dtype=float)
    if len(differences) < 2 or not np.any(differences) or differences.mean() == 0:
        return None

    def enough(n):
        return simulated_power(differences, n, alpha, settings, scale) >= power

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
    """Variance components of a pilot: per-system variance of per-instance means, and the mixed model's."""

    per_system: dict            # {system: variance (ddof 1) of its per-instance mean ratings}
    rater: float
    instance: float
    residual: float

    def as_dict(self):
        return {"per_system_instance_means": self.per_system, "rater": self.rater, "instance": self.instance,
                "residual": self.residual}


def per_system_variances(systems, means):
    """``{system: variance (ddof 1) of its per-instance means}`` over the instances it has (None below 2)."""
    result = {}
    for system, row in zip(systems, np.asarray(means, dtype=float)):
        present = row[np.isfinite(row)]
        result[system] = float(np.var(present, ddof=1)) if len(present) > 1 else None
    return result


def plan(ordered, means, counts, components, alpha, power, raters_per_item, settings):
    """The plan as the JSON document of the issue: ``{"alpha", "power", "raters_per_item", "pairs", "mdd"}``
    plus ``variance_components`` and the ``simulation`` settings.

    ``ordered``: the systems best first (by human score); ``means``/``counts``: their rows of per-instance
    mean ratings (NaN where unrated) and rating counts, in the same order.
    """
    means = np.asarray(means, dtype=float)
    counts = np.asarray(counts, dtype=float)
    noise = (components.rater or 0.0) + (components.residual or 0.0)
    pairs, true_parts = [], []
    for k in range(len(ordered) - 1):
        shared = np.isfinite(means[k]) & np.isfinite(means[k + 1])
        differences = means[k][shared] - means[k + 1][shared]
        if len(differences) < 2:
            pairs.append({"higher": ordered[k], "lower": ordered[k + 1], "delta": None, "sd_diff": None,
                          "instances_needed_normal": None, "instances_needed_simulated": None})
            continue
        delta = float(differences.mean())
        pilot_sd = float(np.std(differences, ddof=1))
        pilot_raters = harmonic_mean(np.concatenate([counts[k][shared], counts[k + 1][shared]]))
        true = max(0.0, pilot_sd ** 2 - 2 * noise / pilot_raters) if pilot_raters else pilot_sd ** 2
        true_parts.append(true)
        planned_sd = pilot_sd if math.isclose(pilot_raters, raters_per_item) else math.sqrt(
            true + 2 * noise / raters_per_item)
        normal = instances_needed_normal(delta, planned_sd, alpha, power)
        scale = planned_sd / pilot_sd if pilot_sd else 1.0
        simulated = (instances_needed_simulated(differences, alpha, power, settings, normal, scale)
                     if k < settings.max_pairs else None)
        pairs.append({"higher": ordered[k], "lower": ordered[k + 1], "delta": delta, "sd_diff": planned_sd,
                      "instances_needed_normal": normal, "instances_needed_simulated": simulated})
    typical_true = float(np.mean(true_parts)) if true_parts else None
    mdd = []
    for n in MDD_INSTANCES:
        for m in MDD_RATERS:
            sd = None if typical_true is None else math.sqrt(typical_true + 2 * noise / m)
            mdd.append({"instances": n, "raters_per_item": m,
                        "mdd": None if sd is None else minimum_detectable_difference(sd, n, alpha, power)})
    return {"alpha": alpha, "power": power, "raters_per_item": raters_per_item, "pairs": pairs, "mdd": mdd,
            "variance_components": components.as_dict(), "simulation": settings.as_dict()}
