"""Rater-aware intervals and tests of formula (1) (issue 19, item 1): the two-way cluster-robust variance
against statsmodels' cluster sandwich, the visible fallback, the harsh-rater campaign of the issue, and
the calibration bench."""

import io
import json
from contextlib import redirect_stdout
from itertools import combinations

import numpy as np
import pytest
from scipy import stats
from statsmodels.regression.linear_model import OLS
from statsmodels.stats import sandwich_covariance

from core.models import ItemOutput
from evalapp.compute import rater_uncertainty
from evalapp.compute.significance import holm, paired_permutation_pvalues
from evalapp.options.table6 import Table6Options
from evalapp.services.exports import table6 as table6_export
from tests.results.factories import add_ratings, make_campaign, make_dataset, make_raters, make_system


def random_design(rng, systems=4, instances=30, raters=8, per_item=3):
    rows = []
    severity = rng.normal(0, 0.5, raters)
    for k in range(systems):
        for i in range(instances):
            for r in rng.choice(raters, per_item, replace=False):
                rows.append((k, i, r, float(np.clip(np.rint(1.5 + 0.3 * k + severity[r] + rng.normal(0, 0.8)), 0, 3))))
    system, instance, rater, score = (np.array(column) for column in zip(*rows))
    return system, instance, rater, score


def statsmodels_variance(system, instance, rater, score, n_systems, contrast):
    """c' V c with V the cluster sandwich of OLS on system dummies, two-way as CGM with our G/(G-1) factors."""
    x = np.eye(n_systems)[system]
    fit = OLS(score, x).fit()

    def part(groups):
        groups = np.unique(groups, return_inverse=True)[1]
        g = groups.max() + 1
        cov = sandwich_covariance.cov_cluster(fit, groups, use_correction=False)
        return contrast @ cov @ contrast * (g / (g - 1))

    cells = instance * 1000 + rater
    return part(instance), part(rater), part(cells)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_variances_equal_statsmodels_cluster_sandwich(seed):
    rng = np.random.default_rng(seed)
    system, instance, rater, score = random_design(rng)
    design = rater_uncertainty.RatingDesign([0, 1, 2, 3], system, instance, rater, score, 30, 8)
    found = rater_uncertainty.contrasts(design)
    assert found.fallback_reason is None
    for k in range(4):
        contrast = np.eye(4)[k]
        v_i, v_r, v_ir = statsmodels_variance(system, instance, rater, score, 4, contrast)
        assert found.mean_variance[k] == pytest.approx(max(v_i + v_r - v_ir, v_i, v_r), rel=1e-9)
    for index, (a, b) in enumerate(combinations(range(4), 2)):
        contrast = np.eye(4)[a] - np.eye(4)[b]
        v_i, v_r, v_ir = statsmodels_variance(system, instance, rater, score, 4, contrast)
        assert found.pair_variance[index] == pytest.approx(max(v_i + v_r - v_ir, v_i, v_r), rel=1e-9)
        assert found.means[a] - found.means[b] == pytest.approx(score[system == a].mean() - score[system == b].mean())


def test_hand_computed_case():
    """Two systems, two instances, two raters each rating everything once per system."""
    # rows: (system, instance, rater, score)
    rows = [
        (0, 0, 0, 3),
        (0, 0, 1, 2),
        (0, 1, 0, 2),
        (0, 1, 1, 1),
        (1, 0, 0, 1),
        (1, 0, 1, 1),
        (1, 1, 0, 2),
        (1, 1, 1, 0),
    ]
    system, instance, rater, score = (np.array(c) for c in zip(*rows))
    design = rater_uncertainty.RatingDesign(["a", "b"], system, instance, rater, score.astype(float), 2, 2)
    found = rater_uncertainty.contrasts(design, min_raters=2)
    # a: mean 2, residuals 1, 0, 0, -1, each weighted 1/4.
    # Instances: totals 1/4, -1/4 -> 1/8, x G/(G-1) = 2 -> 1/4. Raters: the same, 1/4.
    # Cells (instance, rater): each holds one of a's ratings -> 1/16 + 0 + 0 + 1/16 = 1/8, x 4/3 -> 1/6.
    # V = 1/4 + 1/4 - 1/6 = 1/3 (above either one-way term, so no floor).
    assert found.means[0] == 2.0
    assert found.mean_variance[0] == pytest.approx(1 / 3)
    # df = V^2 / (c_I^2 sum s_i^4 + c_R^2 sum s_r^4) = (1/9) / (2 x 4 x 2 / 256) = 16/9, within [1, 2].
    assert found.mean_df[0] == pytest.approx(16 / 9)
    # The difference a - b: b's residuals -0.5, -0.5, 1, -... (mean 1): 0, 0, 1, -1, weighted -1/4.
    # Instance totals of a - b: (1 + 0)/4 - (0 + 0)/4 = 1/4 and (0 - 1)/4 - (1 - 1)/4 = -1/4 -> 1/8 x 2 = 1/4.
    # Rater totals: rater 0: (1 + 0)/4 - (0 + 1)/4 = 0; rater 1: (0 - 1)/4 - (0 - 1)/4 = 0 -> 0.
    # Cells: (i0,r0): 1/4 - 0; (i0,r1): 0 - 0; (i1,r0): 0 - 1/4; (i1,r1): -1/4 + 1/4 -> 1/8 x 4/3 = 1/6.
    # V = 1/4 + 0 - 1/6 = 1/12 < 1/4, so the floor gives the instance term 1/4.
    assert found.pair_variance[0] == pytest.approx(1 / 4)


def test_fallbacks_are_visible():
    rng = np.random.default_rng(5)
    system, instance, rater, score = random_design(rng, raters=4)
    design = rater_uncertainty.RatingDesign([0, 1, 2, 3], system, instance, rater, score, 30, 4)
    found = rater_uncertainty.contrasts(design)
    assert found.fallback_reason == "4 raters, fewer than 5"
    assert "raters not accounted for: 4 raters, fewer than 5" in rater_uncertainty.method_name(
        "interval", "4 raters, fewer than 5"
    )
    unknown = np.arange(len(score))  # every rating its own rater: a file without worker ids
    design = rater_uncertainty.RatingDesign([0, 1, 2, 3], system, instance, unknown, score, 30, len(score))
    found = rater_uncertainty.contrasts(design)
    assert found.fallback_reason.startswith("raters not identifiable")
    # One-way: the instance sandwich alone.
    v_i, _, _ = statsmodels_variance(system, instance, unknown, score, 4, np.eye(4)[0])
    assert found.mean_variance[0] == pytest.approx(v_i)
    assert "rater" in rater_uncertainty.method_name("test", None) and "rater" in rater_uncertainty.method_name(
        "interval", None
    )


def test_one_sided_pvalues():
    p = rater_uncertainty.one_sided_pvalues([0.2, 0.0, -0.1, 0.3], [0.01, 0.01, 0.04, 0.0], [10, 10, 5, 3])
    assert p[0] == pytest.approx(stats.t.sf(2.0, 10))
    assert p[1] == 0.5 and p[2] == pytest.approx(stats.t.sf(-0.5, 5)) and p[3] == 0.0


def harsh_campaign(seed):
    """The issue's scenario: systems a (mu 1.8) and b (1.75); one harsh rater (-1.2) takes a slot in 60% of
    a's items and 10% of b's; 9 other raters of severity N(0, 0.2^2); 100 instances, 3 raters per item."""
    rng = np.random.default_rng(seed)
    instances, pool = 100, 10
    severity = np.concatenate([[-1.2], rng.normal(0, 0.2, pool - 1)])
    difficulty = rng.normal(0, 0.5, instances)
    scores = {}
    for name, mu, share in (("a", 1.8, 0.6), ("b", 1.75, 0.1)):
        cells = []
        for i in range(instances):
            raters = 1 + rng.choice(pool - 1, 3, replace=False)
            if rng.random() < share:
                raters[0] = 0
            latent = mu + difficulty[i] + rng.normal(0, 0.63) + severity[raters] + rng.normal(0, 0.79, 3)
            cells.append(list(zip(raters.tolist(), np.clip(np.rint(latent), 0, 3).astype(int).tolist())))
        scores[name] = cells
    return scores


def old_and_new(scores):
    """(old Holm p of b over a, new two-sided p, raw means) on the harsh campaign."""
    rows = [(k, i, r, s) for k, name in enumerate(("a", "b")) for i, cell in enumerate(scores[name]) for r, s in cell]
    system, instance, rater, score = (np.array(c) for c in zip(*rows))
    means = np.zeros((2, 100))
    for k in range(2):
        for i in range(100):
            means[k, i] = score[(system == k) & (instance == i)].mean()
    old = paired_permutation_pvalues(means[1] - means[0], 10_000, 2020)[0]
    design = rater_uncertainty.RatingDesign(["a", "b"], system, instance, rater, score.astype(float), 100, 10)
    found = rater_uncertainty.contrasts(design)
    difference = found.means[1] - found.means[0]
    new = 2 * rater_uncertainty.one_sided_pvalues([abs(difference)], found.pair_variance, found.pair_df)[0]
    return old, new, found.means


def test_harsh_rater_does_not_make_the_wrong_order_significant():
    """Over 40 seeded campaigns: wherever formula (1) puts b above a (the wrong order, made by the harsh
    rater) and the former paired test calls it significant, the rater-aware test does not."""
    wrong_and_old_significant = 0
    for seed in range(40):
        old, new, means = old_and_new(harsh_campaign(seed))
        if means[1] > means[0] and holm([old])[0] < 0.05:
            wrong_and_old_significant += 1
            assert new >= 0.05, (seed, old, new, means)
    assert wrong_and_old_significant >= 5  # the scenario does fool the former test


@pytest.mark.django_db
def test_harsh_campaign_through_table6_names_raters_and_does_not_call_the_wrong_order():
    seed = next(s for s in range(40) if (lambda r: r[2][1] > r[2][0] and r[0] < 0.05)(old_and_new(harsh_campaign(s))))
    scores = harsh_campaign(seed)
    dataset = make_dataset("harsh", n_instances=100)
    systems = [make_system(dataset, "a"), make_system(dataset, "b")]
    campaign = make_campaign(dataset, systems, name="harsh", raters_per_item=3)
    raters = make_raters(10)
    instances = list(dataset.instances.order_by("position"))
    items = {
        (io.output.system.name, io.output.instance_id): io.item
        for io in ItemOutput.objects.filter(campaign=campaign).select_related("item", "output__system")
    }
    for name in ("a", "b"):
        for i, cell in enumerate(scores[name]):
            add_ratings(campaign, [(items[name, instances[i].pk], [s for _, s in cell])], [raters[r] for r, _ in cell])
    document = json.loads(table6_export(campaign, "json", Table6Options(bootstrap=1)).text)
    assert "rater" in document["intervals"]["method"] and "rater" in document["significance"]["test"]
    assert document["intervals"]["fallback"] is None
    rows = {row["team"]: row for row in document["rows"]}
    assert rows["b"]["human"] > rows["a"]["human"]
    comparison = document["significance"]["comparisons"][0]
    assert (comparison["better"], comparison["worse"], comparison["significant"]) == ("b", "a", False)
    assert rows["a"]["cluster"] == rows["b"]["cluster"] == 1


def test_the_calibration_bench_runs():
    from bench import rater_uncertainty_sim

    out = io.StringIO()
    with redirect_stdout(out):
        rater_uncertainty_sim.main(["--campaigns", "20", "--old-resamples", "50", "--old-permutations", "100"])
    lines = out.getvalue().splitlines()
    assert (
        lines[0].startswith("| pool | severity SD") and len([line for line in lines if line.startswith("| 10 |")]) == 4
    )
    truth = rater_uncertainty_sim.true_means(10, 0.2)
    assert np.all(np.diff(truth[[1, 2]]) == 0) and np.all((truth > 0) & (truth < 3))
