"""The study planner: hand-computed figures, statsmodels' power functions, the simulated search, the
command, the page and the API giving the same plan."""
import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient
from scipy import stats
from statsmodels.stats.power import NormalIndPower, TTestPower, tt_solve_power

from evalapp.compute import study_planner
from evalapp.services import planning, results
from tests.results.factories import rated_campaign
from tests.results.test_rater_effects import _statsmodels_fit

SETTINGS = study_planner.SimulationSettings(simulations=300, permutations=400, max_instances=2000, seed=7)


def test_normal_formula_by_hand():
    # z_0.975 + z_0.8 = 1.959964 + 0.841621 = 2.801585; (2.801585 * 1.0 / 0.3)^2 = 87.21 -> 88.
    assert study_planner.z_sum(0.05, 0.8) == pytest.approx(2.801585, abs=1e-6)
    assert study_planner.instances_needed_normal(0.3, 1.0, 0.05, 0.8) == 88
    assert study_planner.instances_needed_normal(-0.3, 1.0, 0.05, 0.8) == 88
    assert study_planner.instances_needed_normal(0.0, 1.0, 0.05, 0.8) is None
    assert study_planner.minimum_detectable_difference(1.0, 100, 0.05, 0.8) == pytest.approx(0.2801585, abs=1e-7)


@pytest.mark.parametrize("effect, alpha, power", [(0.1, 0.05, 0.8), (0.25, 0.05, 0.9), (0.4, 0.01, 0.8),
                                                  (0.6, 0.05, 0.8), (0.2, 0.1, 0.5)])
def test_normal_approximation_against_statsmodels(effect, alpha, power):
    normal = study_planner.instances_needed_normal(effect, 1.0, alpha, power)
    # statsmodels' one-sample normal power (ratio=0) adds the far tail's tiny share; the closed form drops it.
    z_test = NormalIndPower().solve_power(effect_size=effect, alpha=alpha, power=power, ratio=0)
    assert normal - 1 <= z_test <= normal
    # The paired t-test needs a little more: the t distribution's heavier tails, about 2 instances at 5%.
    t_test = tt_solve_power(effect_size=effect, alpha=alpha, power=power, alternative="two-sided")
    assert normal < t_test <= normal + 4
    assert TTestPower().power(effect_size=effect, nobs=normal, alpha=alpha) < power <= TTestPower().power(
        effect_size=effect, nobs=math.ceil(t_test), alpha=alpha)


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
    plan = study_planner.plan(["A", "B", "C"], means, np.full((3, 4), 3), study_planner.Components({}, 0, 0, 0.5),
                              0.05, 0.8, 3, settings)
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
    d = np.array([1.0, 0.0, 2.0, 1.0])                   # A - B on the four shared instances
    assert (first["higher"], first["lower"]) == ("A", "B")
    assert first["delta"] == pytest.approx(1.0) and first["sd_diff"] == pytest.approx(d.std(ddof=1))
    assert first["instances_needed_normal"] == math.ceil((2.801585 * d.std(ddof=1) / 1.0) ** 2)
    d2 = np.array([1.0, 1.0, 0.0, -1.0, 1.0])            # B - C on all five
    assert second["delta"] == pytest.approx(0.4) and second["sd_diff"] == pytest.approx(d2.std(ddof=1))
    # Planning for M = 1: the true part is sd^2 - 2 (0.1 + 0.5) / 3, plus 2 (0.1 + 0.5) / 1.
    plan_one = study_planner.plan(["A", "B", "C"], means, counts, components, 0.05, 0.8, 1, SETTINGS)
    assert plan_one["pairs"][0]["sd_diff"] == pytest.approx(math.sqrt(d.var(ddof=1) - 0.4 + 1.2))
    true = np.mean([d.var(ddof=1) - 0.4, d2.var(ddof=1) - 0.4])
    entry = next(e for e in plan["mdd"] if e["instances"] == 200 and e["raters_per_item"] == 5)
    assert entry["mdd"] == pytest.approx(2.801585 * math.sqrt(true + 2 * 0.6 / 5) / math.sqrt(200), abs=1e-6)
    assert [(e["instances"], e["raters_per_item"]) for e in plan["mdd"]] == [
        (n, m) for n in (50, 100, 200, 500, 1000) for m in (1, 3, 5)]
    assert list(plan) == ["alpha", "power", "raters_per_item", "pairs", "mdd", "variance_components", "simulation"]
    assert list(first) == ["higher", "lower", "delta", "sd_diff", "instances_needed_normal",
                           "instances_needed_simulated"]


# --- the service, the command, the API and the page ------------------------------------------------------

def _pilot_scores(seed=4, n=16):
    rng = np.random.default_rng(seed)
    shift = rng.normal(0, 0.4, n)
    return {name: [[int(np.clip(np.rint(mean + shift[i] + rng.normal(0, 0.6)), 0, 3)) for _ in range(3)]
                   for i in range(n)] for name, mean in (("alpha", 2.3), ("beta", 1.9), ("gamma", 1.0))}


@pytest.fixture
def pilot(db):
    campaign, _ = rated_campaign(_pilot_scores(), name="pilot")
    return campaign


@pytest.mark.postgres
def test_service_equals_hand_computation_and_statsmodels(pilot):
    plan = planning.plan_study(pilot, 0.05, 0.8)
    scores = _pilot_scores()
    per_instance = {name: np.array([np.mean(row) for row in rows]) for name, rows in scores.items()}
    order = sorted(per_instance, key=lambda name: -per_instance[name].mean())
    for pair, (higher, lower) in zip(plan["pairs"], zip(order, order[1:])):
        d = per_instance[higher] - per_instance[lower]
        assert (pair["higher"], pair["lower"]) == (higher, lower)
        assert pair["delta"] == pytest.approx(d.mean()) and pair["sd_diff"] == pytest.approx(d.std(ddof=1))
        assert pair["instances_needed_normal"] == math.ceil(
            ((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * d.std(ddof=1) / d.mean()) ** 2)
    components = plan["variance_components"]
    for name in scores:
        assert components["per_system_instance_means"][name] == pytest.approx(per_instance[name].var(ddof=1))
    rows = [(f"{100 + i}", name, f"w{r}", score) for name, table in scores.items() for i, row in enumerate(table)
            for r, score in enumerate(row)]
    reference = _statsmodels_fit(pd.DataFrame(rows, columns=["instance", "system", "rater", "score"]))
    fitted = dict(zip(reference.model.exog_vc.names, reference.vcomp))
    assert components["rater"] == pytest.approx(fitted["rater"], abs=1e-4)
    assert components["instance"] == pytest.approx(fitted["instance"], abs=1e-4)
    assert components["residual"] == pytest.approx(reference.scale, abs=1e-4)


def test_command_api_and_page_give_the_same_plan(pilot, organizer):
    out = io.StringIO()
    call_command("plan_study", "--campaign", "pilot", "--alpha", "0.05", "--power", "0.9", "--raters-per-item", "5",
                 "--json", stdout=out)
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
    assert planning.plan_study(pilot, 0.05, 0.8)["variance_components"]["rater"] == results.rater_effects(
        pilot).fit.rater_variance


@pytest.mark.parametrize("query", [{"alpha": "nan"}, {"alpha": "inf"}, {"power": "1e999"}, {"power": "-0"},
                                   {"raters_per_item": "99999999999999999999999"}, {"raters_per_item": "0"},
                                   {"alpha": "0.05\x00"}, {"seed": "-1"}])
def test_hostile_planner_queries_are_400(pilot, organizer, query):
    api = APIClient()
    api.force_authenticate(organizer)
    assert api.get(f"/api/campaigns/{pilot.pk}/plan/", query).status_code == 400
    web = APIClient()
    web.force_login(organizer)
    page = {"alpha": "0.05", "power": "0.8", **{k: v for k, v in query.items() if k != "seed"}}
    if query.keys() != {"seed"}:
        assert web.get(reverse("results:plan", args=[pilot.pk]), page).status_code == 400
