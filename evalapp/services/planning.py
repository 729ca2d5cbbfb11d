"""Planning and stopping: the study planner and the ranking's stability, from a campaign's counted ratings.

Commands (``plan_study``), pages and the API call these functions. The ratings that count are those of
:meth:`core.models.RatingQuerySet.counted`, read through the same score matrix as Table 6.
Results are kept in Django's cache under a digest of the ratings they were made from.
"""

from dataclasses import replace

import numpy as np
from django.core.cache import cache

from core.defaults import (
    CLUSTER_RULES,
    DEFAULT_CLUSTER_RULE,
    DEFAULT_SEED,
    MAX_RATERS_PER_ITEM,
    PLAN_DIGITS,
    PLANNER_MAX_ALPHA,
    PLANNER_MAX_INSTANCES,
    PLANNER_MAX_SIMULATED_PAIRS,
    PLANNER_PERMUTATIONS,
    PLANNER_SIMULATIONS,
    RESULTS_CACHE_SECONDS,
    SIGNIFICANCE_ALPHA,
    STABILITY_MAX_CELLS,
    STABILITY_PERMUTATIONS,
    STABILITY_REPLICATES,
    STABILITY_THRESHOLD,
)
from evalapp.compute import ranking_stability as stability_compute
from evalapp.compute import rater_effects as rater_effects_compute
from evalapp.compute import study_planner
from evalapp.services import results


class BadPlan(ValueError):
    """A planner option out of range; ``field`` names it."""

    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


def check_plan_options(alpha, power, raters_per_item):
    if not 0 < alpha <= PLANNER_MAX_ALPHA:
        raise BadPlan("alpha", f"must be above 0 and at most {PLANNER_MAX_ALPHA}")
    if not 0 < power < 1:
        raise BadPlan("power", "must be between 0 and 1")
    if raters_per_item is not None and not 1 <= raters_per_item <= MAX_RATERS_PER_ITEM:
        raise BadPlan("raters_per_item", f"must be between 1 and {MAX_RATERS_PER_ITEM}")


def ranked_teams(campaign, matrix=None, scores=None):
    """(team names best first by human score, their rows of the score matrix, the matrix); as the clusters
    order them (the Human pseudo-system is not ranked)."""
    systems = results.campaign_systems(campaign)
    matrix = results.instance_score_matrix(campaign, systems=systems) if matrix is None else matrix
    scores = results.human_scores(campaign, matrix=matrix) if scores is None else scores
    teams = [s.name for s in systems if not s.is_human and scores[s.name]["human"] is not None]
    teams.sort(key=lambda name: (-scores[name]["human"], name))
    return teams, [matrix.row(name) for name in teams], matrix


def plan_study(campaign, alpha, power, raters_per_item=None, seed=DEFAULT_SEED, clusters=DEFAULT_CLUSTER_RULE):
    """The study plan of :func:`evalapp.compute.study_planner.plan` for ``campaign`` as a pilot, for the
    clustering rule ``clusters`` (its multiplicity correction and sidedness).

    ``raters_per_item`` defaults to the campaign's M. The variance components come from the mixed model
    with a system x instance term, fitted on the teams' counted ratings (a shared rating once). Cached
    under a digest of the ratings and the options.
    """
    check_plan_options(alpha, power, raters_per_item)
    if clusters not in CLUSTER_RULES:
        raise BadPlan("clusters", f"must be one of {', '.join(CLUSTER_RULES)}")
    raters_per_item = campaign.raters_per_item if raters_per_item is None else raters_per_item
    teams, rows, matrix = ranked_teams(campaign)
    means, counts = matrix.means()[rows], matrix.counts[rows]
    ids, instances, systems, raters, scores = results.rating_rows(campaign)
    on_teams = np.isin(systems, np.asarray(teams, dtype=object))
    settings = study_planner.SimulationSettings(
        PLANNER_SIMULATIONS, PLANNER_PERMUTATIONS, PLANNER_MAX_INSTANCES, seed, PLANNER_MAX_SIMULATED_PAIRS
    )
    key = "comve:plan:" + results.digest(
        np.asarray(teams, dtype=object),
        means,
        counts,
        ids,
        raters,
        [
            alpha,
            power,
            raters_per_item,
            seed,
            clusters,
            PLANNER_SIMULATIONS,
            PLANNER_PERMUTATIONS,
            PLANNER_MAX_INSTANCES,
            PLANNER_MAX_SIMULATED_PAIRS,
        ],
    )
    found = cache.get(key)
    if found is None:
        fitted = rater_effects_compute.variance_components(
            instances[on_teams],
            systems[on_teams],
            raters[on_teams],
            scores[on_teams],
            rater_effects_compute.shared_weights(ids[on_teams]),
        )
        components = study_planner.Components(
            study_planner.per_system_variances(teams, means),
            fitted.rater,
            fitted.instance,
            fitted.residual,
            fitted.system_instance,
        )
        found = study_planner.plan(teams, means, counts, components, alpha, power, raters_per_item, settings, clusters)
        cache.set(key, found, RESULTS_CACHE_SECONDS)
    return found


def ranking_stability(campaign, seed=DEFAULT_SEED, threshold=STABILITY_THRESHOLD):
    """:class:`~evalapp.compute.ranking_stability.Stability` of the campaign's teams, given the ratings so far.

    Cached under a digest of the score matrix and the teams' score counts.
    """
    teams, rows, matrix = ranked_teams(campaign)
    sums, counts = matrix.sums[rows], matrix.counts[rows]
    distribution = results.score_distribution(campaign)
    score_counts = np.array([distribution.get(team, [0, 0, 0, 0]) for team in teams], dtype=np.int64).reshape(-1, 4)
    key = "comve:stability:" + results.digest(
        np.asarray(teams, dtype=object),
        sums,
        counts,
        score_counts,
        [campaign.raters_per_item, seed, threshold, STABILITY_REPLICATES, STABILITY_PERMUTATIONS],
    )
    unrated = tuple(s.name for s in results.campaign_systems(campaign) if not s.is_human and s.name not in teams)
    key += ":" + results.digest(np.asarray(unrated, dtype=object))
    if len(teams) * sums.shape[1] > STABILITY_MAX_CELLS:
        return stability_compute.Stability(
            teams,
            [None] * len(teams),
            [None] * len(teams),
            [0.0] * len(teams),
            [0.0] * len(teams),
            0,
            threshold,
            unrated,
            f"not estimated: {len(teams)} teams x {sums.shape[1]} instances is above {STABILITY_MAX_CELLS}",
        )
    found = cache.get(key)
    if found is None:
        found = stability_compute.stability(
            teams,
            sums,
            counts,
            score_counts,
            campaign.raters_per_item,
            STABILITY_REPLICATES,
            STABILITY_PERMUTATIONS,
            seed,
            SIGNIFICANCE_ALPHA,
            threshold,
        )
        found = replace(found, unrated=unrated)
        cache.set(key, found, RESULTS_CACHE_SECONDS)
    return found


def _figure(value, digits=PLAN_DIGITS):
    return "-" if value is None else f"{value:.{digits}f}"


def _count(value):
    return "-" if value is None else str(value)


def plan_lines(plan):
    """The plan as plain text lines (the command's output without ``--json``)."""
    components = plan["variance_components"]
    test = plan["test"]
    sided = "two-sided" if test["sided"] == 2 else "one-sided"
    lines = [
        f"Plan for alpha {plan['alpha']}, power {plan['power']}, {plan['raters_per_item']} raters per item",
        f"Clustering rule {test['rule']}: each pair tested {sided} at {test['pair_level']:.4g}"
        + (f" (alpha / {test['pairs_corrected_over']} pairs)" if test["pairs_corrected_over"] > 1 else ""),
        "",
        (
            "Variance components (REML, crossed raters and instances, system x instance): "
            f"rater {_figure(components['rater'])}, instance {_figure(components['instance'])}, "
            f"system x instance {_figure(components['system_instance'])}, residual {_figure(components['residual'])}"
        ),
        "Variance of per-instance means per system: "
        + ", ".join(f"{name} {_figure(value)}" for name, value in components["per_system_instance_means"].items()),
        "",
        (
            "Adjacent pairs (higher > lower: delta, sd_diff, instances needed normal / simulated "
            "[Monte Carlo 95% interval], agreement):"
        ),
    ]
    lines += [
        f"  {pair['higher']} > {pair['lower']}: {_figure(pair['delta'])}, {_figure(pair['sd_diff'])}, "
        f"{_count(pair['instances_needed_normal'])} / {_count(pair['instances_needed_simulated'])}"
        + (
            f" [{pair['simulated_interval'][0]}, {pair['simulated_interval'][1]}]"
            if pair.get("simulated_interval")
            else ""
        )
        + (
            ""
            if pair.get("agrees") is None
            else ", agree within simulation noise"
            if pair["agrees"]
            else ", differ beyond simulation noise"
        )
        for pair in plan["pairs"]
    ]
    lines += ["", "Minimum detectable difference (instances x raters per item):"]
    lines += [
        f"  N={entry['instances']} M={entry['raters_per_item']}: {_figure(entry['mdd'])}" for entry in plan["mdd"]
    ]
    return lines
