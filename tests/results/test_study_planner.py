"""The study planner: hand-computed figures, statsmodels' power functions, the simulated search, the
command, the page and the API giving the same plan."""

import io
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient
from scipy import stats
from statsmodels.regression.mixed_linear_model import MixedLM
from statsmodels.stats.power import NormalIndPower, TTestPower, tt_solve_power

from evalapp.compute import rater_effects, study_planner
from evalapp.options.planner import PlanOptions
from evalapp.services import planning, results
from tests.results.factories import rated_campaign

SETTINGS = study_planner.SimulationSettings(simulations=300, permutations=400, max_instances=2000, seed=7)


def test_normal_formula_by_hand():
    # z_0.975 + z_0.8 = 1.959964 + 0.841621 = 2.801585; (2.801585 * 1.0 / 0.3)^2 = 87.21 -> 88.
    assert study_planner.z_sum(0.05, 0.8) == pytest.approx(2.801585, abs=1e-6)
    assert study_planner.instances_needed_normal(0.3, 1.0, 0.05, 0.8) == 88
    assert study_planner.instances_needed_normal(-0.3, 1.0, 0.05, 0.8) == 88
    assert study_planner.instances_needed_normal(0.0, 1.0, 0.05, 0.8) is None
    assert study_planner.minimum_detectable_difference(1.0, 100, 0.05, 0.8) == pytest.approx(0.2801585, abs=1e-7)


@pytest.mark.parametrize(
    "effect, alpha, power", [(0.1, 0.05, 0.8), (0.25, 0.05, 0.9), (0.4, 0.01, 0.8), (0.6, 0.05, 0.8), (0.2, 0.1, 0.5)]
)
def test_normal_approximation_against_statsmodels(effect, alpha, power):
    normal = study_planner.instances_needed_normal(effect, 1.0, alpha, power)
    # statsmodels' one-sample normal power (ratio=0) adds the far tail's tiny share; the closed form drops it.
    z_test = NormalIndPower().solve_power(effect_size=effect, alpha=alpha, power=power, ratio=0)
    assert normal - 1 <= z_test <= normal
    # The paired t-test needs a little more: the t distribution's heavier tails, about 2 instances at 5%.
    t_test = tt_solve_power(effect_size=effect, alpha=alpha, power=power, alternative="two-sided")
    assert normal < t_test <= normal + 4
    assert (
        TTestPower().power(effect_size=effect, nobs=normal, alpha=alpha)
        < power
        <= TTestPower().power(effect_size=effect, nobs=math.ceil(t_test), alpha=alpha)
    )


def test_simulated_power_is_seeded_and_rises_with_n():
    differences = np.random.default_rng(1).normal(0.3, 1.0, 120)
    first = study_planner.simulated_power(differences, 60, 0.05, SETTINGS)
    assert first == study_planner.simulated_power(differences, 60, 0.05, SETTINGS)
    powers = [study_planner.simulated_power(differences, n, 0.05, SETTINGS) for n in (20, 60, 150, 400)]
    assert powers == sorted(powers) and powers[0] < 0.5 < 0.95 < powers[-1]


def test_simulated_search_finds_the_smallest_n_near_the_t_test():
    differences = np.random.default_rng(2).normal(0.35, 1.0, 200)
    delta, sd = differences.mean(), differences.std(ddof=1)
    normal = study_planner.instances_needed_normal(delta, sd, 0.05, 0.8)
    found = study_planner.instances_needed_simulated(differences, 0.05, 0.8, SETTINGS, normal)
    assert study_planner.simulated_power(differences, found, 0.05, SETTINGS) >= 0.8
    assert study_planner.simulated_power(differences, found - 1, 0.05, SETTINGS) < 0.8
    t_test = tt_solve_power(effect_size=delta / sd, alpha=0.05, power=0.8)
    assert abs(found - t_test) <= 0.25 * t_test  # 300 simulated studies: a few percent of noise in the power


def test_only_the_best_pairs_are_simulated():
    means = np.array([[3.0, 2.0, 3.0, 2.0], [2.0, 2.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.0]])
    settings = study_planner.SimulationSettings(100, 100, 500, 7, max_pairs=1)
    plan = study_planner.plan(
        ["A", "B", "C"], means, np.full((3, 4), 3), study_planner.Components({}, 0, 0, 0.5), 0.05, 0.8, 3, settings
    )
    assert plan["pairs"][0]["instances_needed_simulated"] is not None
    assert plan["pairs"][1]["instances_needed_simulated"] is None and plan["pairs"][1]["instances_needed_normal"]
    assert plan["simulation"]["max_pairs"] == 1


def test_simulated_search_is_bounded():
    differences = np.random.default_rng(3).normal(0.01, 1.0, 50)  # would need about 80,000 instances
    assert study_planner.instances_needed_simulated(differences, 0.05, 0.8, SETTINGS, 80_000) is None
    assert study_planner.instances_needed_simulated(np.zeros(10), 0.05, 0.8, SETTINGS, None) is None


def test_plan_by_hand():
    means = np.array([[3.0, 2.0, 3.0, 2.0, np.nan], [2.0, 2.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 2.0, 0.0]])
    counts = np.array([[3, 3, 3, 3, 0], [3, 3, 3, 3, 3], [3, 3, 3, 3, 3]])
    components = study_planner.Components({}, 0.1, 0.2, 0.5)
    plan = study_planner.plan(["A", "B", "C"], means, counts, components, 0.05, 0.8, 3, SETTINGS)
    first, second = plan["pairs"]
    d = np.array([1.0, 0.0, 2.0, 1.0])  # A - B on the four shared instances
    assert (first["higher"], first["lower"]) == ("A", "B")
    assert first["delta"] == pytest.approx(1.0) and first["sd_diff"] == pytest.approx(d.std(ddof=1))
    # Holm over 3 pairs: each planned two-sided at 0.05 / 3: z_(1 - 0.05/6) + z_0.8 = 2.393980 + 0.841621.
    assert plan["test"] == {
        "rule": "holm",
        "alpha": 0.05,
        "pair_level": pytest.approx(0.05 / 3),
        "sided": 2,
        "pairs_corrected_over": 3,
    }
    assert first["instances_needed_normal"] == math.ceil((3.235601 * d.std(ddof=1) / 1.0) ** 2)
    d2 = np.array([1.0, 1.0, 0.0, -1.0, 1.0])  # B - C on all five
    assert second["delta"] == pytest.approx(0.4) and second["sd_diff"] == pytest.approx(d2.std(ddof=1))
    # Planning for M = 1: the true part is sd^2 - 2 (0.1 + 0.5) / 3, plus 2 (0.1 + 0.5) / 1.
    plan_one = study_planner.plan(["A", "B", "C"], means, counts, components, 0.05, 0.8, 1, SETTINGS)
    assert plan_one["pairs"][0]["sd_diff"] == pytest.approx(math.sqrt(d.var(ddof=1) - 0.4 + 1.2))
    true = np.mean([d.var(ddof=1) - 0.4, d2.var(ddof=1) - 0.4])
    entry = next(e for e in plan["mdd"] if e["instances"] == 200 and e["raters_per_item"] == 5)
    assert entry["mdd"] == pytest.approx(3.235601 * math.sqrt(true + 2 * 0.6 / 5) / math.sqrt(200), abs=1e-5)
    # WMT's rule: one-sided at alpha, no correction: z_0.95 + z_0.8 = 1.644854 + 0.841621.
    wmt = study_planner.plan(["A", "B", "C"], means, counts, components, 0.05, 0.8, 3, SETTINGS, "wmt")
    assert wmt["test"]["sided"] == 1 and wmt["test"]["pair_level"] == 0.05
    assert wmt["pairs"][0]["instances_needed_normal"] == math.ceil((2.486475 * d.std(ddof=1) / 1.0) ** 2)
    assert [(e["instances"], e["raters_per_item"]) for e in plan["mdd"]] == [
        (n, m) for n in (50, 100, 200, 500, 1000) for m in (1, 3, 5)
    ]
    assert list(plan) == [
        "alpha",
        "power",
        "raters_per_item",
        "test",
        "pairs",
        "mdd",
        "variance_components",
        "simulation",
    ]
    assert list(first) == [
        "higher",
        "lower",
        "delta",
        "sd_diff",
        "instances_needed_normal",
        "instances_needed_simulated",
        "simulated_interval",
        "agrees",
    ]


# --- the service, the command, the API and the page ------------------------------------------------------


def _pilot_scores(seed=4, n=16):
    rng = np.random.default_rng(seed)
    shift = rng.normal(0, 0.4, n)
    return {
        name: [[int(np.clip(np.rint(mean + shift[i] + rng.normal(0, 0.6)), 0, 3)) for _ in range(3)] for i in range(n)]
        for name, mean in (("alpha", 2.3), ("beta", 1.9), ("gamma", 1.0))
    }


@pytest.fixture
def pilot(db):
    campaign, _ = rated_campaign(_pilot_scores(), name="pilot")
    return campaign


@pytest.mark.postgres
def test_service_equals_hand_computation_and_statsmodels(pilot):
    plan = planning.plan_study(pilot, PlanOptions(alpha=0.05, power=0.8))
    assert plan["test"]["rule"] == "holm" and plan["test"]["pairs_corrected_over"] == 3
    scores = _pilot_scores()
    per_instance = {name: np.array([np.mean(row) for row in rows]) for name, rows in scores.items()}
    order = sorted(per_instance, key=lambda name: -per_instance[name].mean())
    for pair, (higher, lower) in zip(plan["pairs"], zip(order, order[1:])):
        d = per_instance[higher] - per_instance[lower]
        assert (pair["higher"], pair["lower"]) == (higher, lower)
        assert pair["delta"] == pytest.approx(d.mean()) and pair["sd_diff"] == pytest.approx(d.std(ddof=1))
        assert pair["instances_needed_normal"] == math.ceil(
            ((stats.norm.ppf(1 - 0.05 / 6) + stats.norm.ppf(0.8)) * d.std(ddof=1) / d.mean()) ** 2
        )
    components = plan["variance_components"]
    for name in scores:
        assert components["per_system_instance_means"][name] == pytest.approx(per_instance[name].var(ddof=1))
    rows = [
        (f"{100 + i}", name, f"w{r}", score)
        for name, table in scores.items()
        for i, row in enumerate(table)
        for r, score in enumerate(row)
    ]
    frame = pd.DataFrame(rows, columns=["instance", "system", "rater", "score"])
    assert_reml_at_least_as_good_as_statsmodels(frame, components)


def assert_reml_at_least_as_good_as_statsmodels(frame, components):
    """Our REML fit with the system x instance term reaches a REML likelihood at least as high as statsmodels'
    MixedLM with the same three variance components (the same function: equal at MixedLM's own point), and
    equals its components wherever MixedLM reaches the same optimum."""
    reference = _statsmodels_fit_with_cells(frame)
    fitted = dict(zip(reference.model.exog_vc.names, reference.vcomp))
    y = frame["score"].to_numpy(dtype=float)
    codes = {name: pd.factorize(frame[name])[0] for name in ("system", "rater", "instance")}
    cells = pd.factorize(frame["system"] + ":" + frame["instance"])[0]
    factors = [
        (codes["rater"], codes["rater"].max() + 1),
        (codes["instance"], codes["instance"].max() + 1),
        (cells, cells.max() + 1),
    ]
    design = rater_effects._Design(y, codes["system"], codes["system"].max() + 1, factors)
    theirs = np.sqrt([fitted["rater"], fitted["instance"], fitted["cell"]]) / math.sqrt(reference.scale)
    ours = np.sqrt([components["rater"], components["instance"], components["system_instance"]]) / math.sqrt(
        components["residual"]
    )
    assert design.solve(theirs).deviance == pytest.approx(-2 * reference.llf, abs=1e-6)
    assert design.solve(ours).deviance <= -2 * reference.llf + 1e-4
    if design.solve(ours).deviance > -2 * reference.llf - 1e-3:  # the same optimum
        assert components["system_instance"] == pytest.approx(fitted["cell"], abs=2e-3)


def test_system_instance_components_against_statsmodels():
    """Several raters and a real system x instance effect: our fit and MixedLM's agree."""
    rng = np.random.default_rng(11)
    rows = []
    severity = rng.normal(0, 0.4, 8)
    difficulty = rng.normal(0, 0.5, 20)
    for system, mean in (("A", 2.0), ("B", 1.6), ("C", 1.2)):
        cell = rng.normal(0, 0.5, 20)
        for i in range(20):
            for r in rng.choice(8, 3, replace=False):
                latent = mean + difficulty[i] + cell[i] + severity[r] + rng.normal(0, 0.6)
                rows.append((f"{i}", system, f"w{r}", float(np.clip(np.rint(latent), 0, 3))))
    frame = pd.DataFrame(rows, columns=["instance", "system", "rater", "score"])
    fitted = rater_effects.variance_components(frame["instance"], frame["system"], frame["rater"], frame["score"])
    assert fitted.converged and fitted.system_instance > 0.05
    assert_reml_at_least_as_good_as_statsmodels(frame, fitted.as_dict())


def test_more_raters_cannot_average_the_system_instance_part_away():
    """A simulation: the SD of a per-instance difference at M raters is what the plan says (true + noise / M),
    where the former planner, counting the system x instance part as noise, promised less at M = 5."""
    rng = np.random.default_rng(5)
    cell_var, noise_var, instances = 0.4, 0.6, 4000
    pilot = []
    for m in (3, 5):
        cells = rng.normal(0, math.sqrt(cell_var), (2, instances))
        ratings = cells[:, :, None] + rng.normal(0, math.sqrt(noise_var), (2, instances, m))
        pilot.append((ratings.mean(axis=2)[0] - ratings.mean(axis=2)[1]).var(ddof=1))
    planned = {m: 2 * cell_var + 2 * noise_var / m for m in (3, 5)}
    assert pilot[0] == pytest.approx(planned[3], rel=0.06) and pilot[1] == pytest.approx(planned[5], rel=0.06)
    # From the M = 3 pilot, the plan for M = 5 with the decomposition recovers the M = 5 spread...
    true = pilot[0] - 2 * noise_var / 3
    assert true + 2 * noise_var / 5 == pytest.approx(pilot[1], rel=0.06)
    # ...while counting the cell part as noise (residual = cell + noise) under-states it by more than 6%.
    lumped = max(0.0, pilot[0] - 2 * (cell_var + noise_var) / 3) + 2 * (cell_var + noise_var) / 5
    assert lumped < 0.94 * pilot[1]


def test_monte_carlo_interval_and_agreement():
    # h = 1.96 sqrt(0.8 x 0.2 / 400) = 0.0392; z_0.7608 = 0.70920, z_0.8392 = 0.99119; base 2.801585:
    # 100 x ((1.959964 + 0.70920) / 2.801585)^2 = 90.77 -> 90; 100 x (2.951154 / 2.801585)^2 = 110.96 -> 111.
    low, high = study_planner.monte_carlo_interval(100, 0.05, 0.8, 400)
    assert (low, high) == (90, 111)
    assert study_planner.monte_carlo_interval(None, 0.05, 0.8, 400) is None
    means = np.random.default_rng(9).normal(0, 1, (2, 120))
    means[0] += 0.4
    plan = study_planner.plan(
        ["A", "B"],
        means,
        np.full((2, 120), 3),
        study_planner.Components({}, 0.1, 0.2, 0.5, 0.3),
        0.05,
        0.8,
        3,
        SETTINGS,
    )
    pair = plan["pairs"][0]
    low, high = pair["simulated_interval"]
    assert low <= pair["instances_needed_simulated"] <= high
    assert pair["agrees"] == (low <= pair["instances_needed_normal"] <= high)


@pytest.mark.parametrize("rule, sided", [("holm", "two-sided"), ("wmt", "larger")])
def test_rule_levels_against_statsmodels(rule, sided):
    level = study_planner.pair_level(rule, 0.05, 5)
    normal = study_planner.instances_needed_normal(0.3, 1.0, level.level, 0.8, level.sided)
    expected = NormalIndPower().solve_power(effect_size=0.3, alpha=level.level, power=0.8, ratio=0, alternative=sided)
    assert normal - 1 <= expected <= normal
    assert level.level == (0.05 / 10 if rule == "holm" else 0.05)


def _statsmodels_fit_with_cells(frame):
    """statsmodels' MixedLM with raters, instances and system x instance cells as variance components."""
    frame = frame.assign(group=0, cell=frame["system"] + ":" + frame["instance"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MixedLM.from_formula(
            "score ~ 0 + C(system)",
            frame,
            groups="group",
            vc_formula={"rater": "0 + C(rater)", "instance": "0 + C(instance)", "cell": "0 + C(cell)"},
        )
        return model.fit(reml=True)


def test_command_api_and_page_give_the_same_plan(pilot, organizer):
    out = io.StringIO()
    call_command(
        "plan_study",
        "--campaign",
        "pilot",
        "--alpha",
        "0.05",
        "--power",
        "0.9",
        "--raters-per-item",
        "5",
        "--json",
        stdout=out,
    )
    from_command = json.loads(out.getvalue())
    api = APIClient()
    api.force_authenticate(organizer)
    response = api.get(f"/api/campaigns/{pilot.pk}/plan/", {"alpha": 0.05, "power": 0.9, "raters_per_item": 5})
    assert response.status_code == 200 and response.json() == from_command
    assert from_command["raters_per_item"] == 5 and from_command["power"] == 0.9
    api.force_authenticate(None)
    web = APIClient()
    web.force_login(organizer)
    page = web.get(reverse("results:plan", args=[pilot.pk]), {"alpha": "0.05", "power": "0.9", "raters_per_item": "5"})
    assert page.status_code == 200 and page.context["plan"] == from_command
    text = io.StringIO()
    call_command("plan_study", "--campaign", "pilot", stdout=text)
    assert "Minimum detectable difference" in text.getvalue() and "alpha > beta" in text.getvalue()


def test_bad_options_are_refused(pilot, organizer):
    with pytest.raises(CommandError, match="power"):
        call_command("plan_study", "--campaign", "pilot", "--power", "1.5", stdout=io.StringIO())
    api = APIClient()
    api.force_authenticate(organizer)
    assert api.get(f"/api/campaigns/{pilot.pk}/plan/", {"alpha": "2"}).status_code == 400
    web = APIClient()
    web.force_login(organizer)
    response = web.get(reverse("results:plan", args=[pilot.pk]), {"alpha": "abc", "power": "0.8"})
    assert response.status_code == 400 and response.context["plan"] is None


def test_raters_cannot_plan(pilot, rater_user):
    web = APIClient()
    web.force_login(rater_user)
    assert web.get(reverse("results:plan", args=[pilot.pk])).status_code == 403
    assert web.get(f"/api/campaigns/{pilot.pk}/plan/").status_code == 403


def test_components_come_from_the_counted_ratings(pilot):
    _, instances, systems, raters, scores = results.rating_rows(pilot)
    fitted = rater_effects.variance_components(instances, systems, raters, scores)
    assert (
        planning.plan_study(pilot, PlanOptions(alpha=0.05, power=0.8))["variance_components"]["system_instance"]
        == fitted.system_instance
    )


@pytest.mark.parametrize(
    "query",
    [
        {"alpha": "nan"},
        {"alpha": "inf"},
        {"power": "1e999"},
        {"power": "-0"},
        {"raters_per_item": "99999999999999999999999"},
        {"raters_per_item": "0"},
        {"alpha": "0.05\x00"},
        {"seed": "-1"},
    ],
)
def test_hostile_planner_queries_are_400(pilot, organizer, query):
    api = APIClient()
    api.force_authenticate(organizer)
    assert api.get(f"/api/campaigns/{pilot.pk}/plan/", query).status_code == 400
    web = APIClient()
    web.force_login(organizer)
    page = {"alpha": "0.05", "power": "0.8", **{k: v for k, v in query.items() if k != "seed"}}
    if query.keys() != {"seed"}:
        assert web.get(reverse("results:plan", args=[pilot.pk]), page).status_code == 400


def test_the_rule_reaches_the_plan_through_every_door(pilot, organizer):
    out = io.StringIO()
    call_command("plan_study", "--campaign", "pilot", "--clusters", "wmt", "--json", stdout=out)
    from_command = json.loads(out.getvalue())
    assert from_command["test"]["rule"] == "wmt" and from_command["test"]["sided"] == 1
    api = APIClient()
    api.force_authenticate(organizer)
    assert api.get(f"/api/campaigns/{pilot.pk}/plan/", {"clusters": "wmt"}).json() == from_command
    assert api.get(f"/api/campaigns/{pilot.pk}/plan/", {"clusters": "x"}).status_code == 400
    web = APIClient()
    web.force_login(organizer)
    page = web.get(reverse("results:plan", args=[pilot.pk]), {"alpha": "0.05", "power": "0.8", "clusters": "wmt"})
    assert page.status_code == 200 and page.context["plan"] == from_command
    assert "one-sided" in page.content.decode()
    text = io.StringIO()
    call_command("plan_study", "--campaign", "pilot", "--clusters", "holm", stdout=text)
    assert "Clustering rule holm: each pair tested two-sided at 0.01667 (alpha / 3 pairs)" in text.getvalue()


def test_holm_levels_are_reached_by_the_simulation():
    """Five systems: Holm plans each pair at 0.005; the simulated search still finds its N (a permutation test
    with 500 sign patterns never could), and near the normal figure."""
    rng = np.random.default_rng(21)
    means = rng.normal(0, 0.6, (5, 150)) + np.array([2.0, 1.7, 1.4, 1.1, 0.8])[:, None]
    plan = study_planner.plan(
        list("ABCDE"),
        means,
        np.full((5, 150), 3),
        study_planner.Components({}, 0.1, 0.2, 0.5, 0.3),
        0.05,
        0.8,
        3,
        SETTINGS,
    )
    assert plan["test"]["pair_level"] == pytest.approx(0.005)
    for pair in plan["pairs"]:
        assert pair["instances_needed_simulated"] is not None
        assert (
            abs(pair["instances_needed_simulated"] - pair["instances_needed_normal"])
            <= 0.3 * pair["instances_needed_normal"] + 3
        )
