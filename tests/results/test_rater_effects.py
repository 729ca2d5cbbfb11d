"""Rater effects (the secondary columns of Table 6): per-rater z-scores and the mixed model.

Checked against hand-computed values, scipy's zscore and a direct statsmodels MixedLM fit, on
complete and incomplete campaigns, and on a simulated campaign with one harsh rater.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.regression.mixed_linear_model import MixedLM

from core.models import Item, ItemOutput, Rater, RaterExclusion, SystemOutput
from evalapp.compute import rater_effects
from evalapp.formats import table6 as table6_format
from evalapp.services import results
from tests.results.factories import add_ratings, make_campaign, make_dataset, make_raters, make_system, rated_campaign

# --- z-scores --------------------------------------------------------------------------------------


def test_z_scores_by_hand():
    # rater "a": 3, 1 -> mean 2, population SD 1 -> z 1, -1; rater "b": 2, 2, 2 -> SD 0 -> z 0.
    z = rater_effects.rater_z_scores(["a", "b", "a", "b", "b"], [3, 2, 1, 2, 2])
    assert z.tolist() == [1.0, 0.0, -1.0, 0.0, 0.0]


def test_z_scores_equal_scipy_zscore_per_rater():
    rng = np.random.default_rng(3)
    raters = rng.integers(0, 7, 400)
    scores = rng.integers(0, 4, 400)
    z = rater_effects.rater_z_scores(raters, scores)
    for rater in np.unique(raters):
        mine = raters == rater
        expected = stats.zscore(scores[mine].astype(float), ddof=0) if scores[mine].std() > 0 else 0.0
        assert z[mine] == pytest.approx(expected, abs=1e-12)


def test_a_shared_rating_enters_its_raters_figures_once():
    # Rating 1 (score 3) counts for X and Y, rating 2 (score 1) for X: the rater's ratings are 3 and 1
    # (mean 2, SD 1), so z = 1 and -1; X's mean z is 0, Y's is 1. Counting rating 1 twice would give
    # mean 7/3 and different z-scores.
    z = rater_effects.system_z_means([1, 1, 2], ["r", "r", "r"], [3, 3, 1], ["X", "Y", "X"], ["X", "Y", "Z"])
    assert z == {"X": 0.0, "Y": 1.0, "Z": None}


# --- the mixed model ---------------------------------------------------------------------------------


def _statsmodels_fit(frame):
    frame = frame.assign(group=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MixedLM.from_formula(
            "score ~ 0 + C(system)",
            frame,
            groups="group",
            vc_formula={"rater": "0 + C(rater)", "instance": "0 + C(instance)"},
        )
        return model.fit(reml=True)


def _structured_ratings(seed, n_instances=12, n_raters=6, missing=0.0):
    """Ratings with real system, rater and instance effects; ``missing`` of them left out at random."""
    rng = np.random.default_rng(seed)
    systems = {"A": 2.2, "B": 1.7, "C": 1.2}
    rater_shift = rng.normal(0, 0.5, n_raters)
    instance_shift = rng.normal(0, 0.5, n_instances)
    rows = []
    for system, mean in systems.items():
        for i in range(n_instances):
            for r in rng.choice(n_raters, 3, replace=False):
                if rng.random() < missing:
                    continue
                score = int(np.clip(np.rint(mean + rater_shift[r] + instance_shift[i] + rng.normal(0, 0.5)), 0, 3))
                rows.append((f"i{i}", system, f"r{r}", score))
    return pd.DataFrame(rows, columns=["instance", "system", "rater", "score"])


@pytest.mark.parametrize("missing", [0.0, 0.25])
def test_mixed_model_equals_statsmodels(missing):
    frame = _structured_ratings(5, missing=missing)
    fit = rater_effects.mixed_model(
        frame["instance"], frame["system"], frame["rater"], frame["score"], ["A", "B", "C", "D"]
    )
    reference = _statsmodels_fit(frame)
    # The Wald interval from sigma^2 (X' V^-1 X)^-1, V built densely from MixedLM's variance estimates.
    components = dict(zip(reference.model.exog_vc.names, reference.vcomp))
    rater = pd.get_dummies(frame["rater"]).to_numpy(float)
    instance = pd.get_dummies(frame["instance"]).to_numpy(float)
    x = pd.get_dummies(frame["system"]).to_numpy(float)
    v = (
        components["rater"] * rater @ rater.T
        + components["instance"] * instance @ instance.T
        + reference.scale * np.eye(len(frame))
    )
    se = np.sqrt(np.diag(np.linalg.inv(x.T @ np.linalg.solve(v, x))))
    for k, system in enumerate(["A", "B", "C"]):
        estimate = reference.fe_params.iloc[k]
        assert fit.scores[system].estimate == pytest.approx(estimate, abs=2e-6)
        # Variance estimates agree to MixedLM's own convergence tolerance (about 1e-5 here), so the intervals too.
        assert fit.scores[system].low == pytest.approx(estimate - stats.norm.ppf(0.975) * se[k], abs=1e-4)
        assert fit.scores[system].high == pytest.approx(estimate + stats.norm.ppf(0.975) * se[k], abs=1e-4)
        # MixedLM's own bse_fe inverts the whole observed information (variance parameters included),
        # which on 36 ratings differs from the GLS standard error in the third decimal at most.
        assert se[k] == pytest.approx(reference.bse_fe.iloc[k], rel=0.01)
    assert fit.scores["D"] == rater_effects.NOT_ESTIMATED
    assert fit.converged
    assert fit.residual_variance == pytest.approx(reference.scale, abs=1e-4)
    assert [fit.rater_variance, fit.instance_variance] == pytest.approx(
        [components["rater"], components["instance"]], abs=1e-4
    )


def test_balanced_complete_design_gives_the_raw_means():
    # Every rater rates every (system, instance): the GLS estimate of a system is its raw mean.
    rng = np.random.default_rng(8)
    rows = [(i, s, r, int(rng.integers(0, 4))) for s in "AB" for i in range(5) for r in range(3)]
    instances, systems, raters, scores = map(np.array, zip(*rows))
    fit = rater_effects.mixed_model(instances, systems, raters, scores, ["A", "B"])
    for system in "AB":
        assert fit.scores[system].estimate == pytest.approx(scores[systems == system].mean(), abs=1e-6)


def test_too_few_raters_is_not_estimated_and_says_why():
    fit = rater_effects.mixed_model([1, 2, 3], ["A", "A", "B"], ["r", "r", "r"], [1, 2, 3], ["A", "B"])
    assert fit.scores == {"A": rater_effects.NOT_ESTIMATED, "B": rater_effects.NOT_ESTIMATED}
    assert "two raters" in fit.problem


# --- one harsh rater ----------------------------------------------------------------------------------


def harsh_rater_campaign(seed=14, n_instances=60, harsh=-1.2):
    """True means B 2.1 > A 2.0 > C 1.9; nine ordinary raters; B's items get two of them and a harsh rater
    (1.2 points below) who rates nothing else. Rows: (rating id, instance, system, rater, score)."""
    rng = np.random.default_rng(seed)
    truth = {"A": 2.0, "B": 2.1, "C": 1.9}
    kind = rng.normal(0, 0.15, 9)
    instance_shift = rng.normal(0, 0.4, n_instances)
    rows = []
    for system, mean in truth.items():
        for i in range(n_instances):
            raters = [int(r) for r in rng.choice(9, 2 if system == "B" else 3, replace=False)]
            raters += [9] if system == "B" else []
            for r in raters:
                shift = harsh if r == 9 else kind[r]
                score = int(np.clip(np.rint(mean + instance_shift[i] + shift + rng.normal(0, 0.5)), 0, 3))
                rows.append((len(rows), i, system, r, score))
    return tuple(map(np.array, zip(*rows)))


def test_one_harsh_rater_on_one_system():
    ids, instances, systems, raters, scores = harsh_rater_campaign()
    raw = {s: scores[systems == s].mean() for s in "ABC"}
    z = rater_effects.system_z_means(ids, raters, scores, systems, list("ABC"))
    fit = rater_effects.mixed_model(instances, systems, raters, scores, list("ABC"))
    adjusted = {s: fit.scores[s].estimate for s in "ABC"}
    # Formula (1) puts B, truly the best, last: a third of its ratings come from the harsh rater.
    assert sorted(raw, key=raw.get, reverse=True) == ["A", "C", "B"]
    # Both corrections lift B above C; neither can fully separate a rater who rates only B from B.
    assert sorted(z, key=z.get, reverse=True) == ["A", "B", "C"]
    assert sorted(adjusted, key=adjusted.get, reverse=True) == ["A", "B", "C"]
    assert fit.converged and fit.rater_variance > 0


# --- the service, over a campaign's counted ratings ------------------------------------------------------

SCORES = {"A": [[3, 2, None], [2, 2, 1], [3, None, 2], [1, 1, 0]], "B": [[1, 0, 1], [2, None, 2], [1, 1, 0], [0, 0, 1]]}


@pytest.fixture
def incomplete(db):
    campaign, _ = rated_campaign(SCORES, name="effects")
    return campaign


def _hand_frame(scores):
    rows = [
        (f"{100 + i}", system, f"w{r}", score)
        for system, table in scores.items()
        for i, row in enumerate(table)
        for r, score in enumerate(row)
        if score is not None
    ]
    return pd.DataFrame(rows, columns=["instance", "system", "rater", "score"])


@pytest.mark.postgres
def test_service_on_an_incomplete_campaign(incomplete):
    frame = _hand_frame(SCORES)
    frame["z"] = frame.groupby("rater")["score"].transform(lambda s: stats.zscore(s.astype(float), ddof=0))
    found = results.rater_effects(incomplete)
    reference = _statsmodels_fit(frame)
    for k, system in enumerate("AB"):
        assert found.z[system] == pytest.approx(frame.loc[frame.system == system, "z"].mean(), abs=1e-12)
        assert found.fit.scores[system].estimate == pytest.approx(reference.fe_params.iloc[k], abs=2e-6)
    table = results.table6(incomplete)
    row = {r.team: r for r in table.rows}["A"]
    assert not row.complete and row.human_z == found.z["A"]
    assert (row.human_adjusted, row.human_adjusted_low, row.human_adjusted_high) == (
        found.fit.scores["A"].estimate,
        found.fit.scores["A"].low,
        found.fit.scores["A"].high,
    )


@pytest.mark.postgres
def test_an_excluded_rater_leaves_the_figures(incomplete):
    RaterExclusion.objects.create(campaign=incomplete, rater=Rater.objects.get(external_id="effects-w2"))
    kept = {system: [row[:2] + [None] for row in table] for system, table in SCORES.items()}
    frame = _hand_frame(kept)
    frame["z"] = frame.groupby("rater")["score"].transform(lambda s: stats.zscore(s.astype(float), ddof=0))
    found = results.rater_effects(incomplete)
    assert found.z["B"] == pytest.approx(frame.loc[frame.system == "B", "z"].mean(), abs=1e-12)


@pytest.mark.postgres
def test_a_shared_item_is_one_rating_of_its_rater(db):
    dataset = make_dataset("shared-z", 2)
    a, b = make_system(dataset, "A"), make_system(dataset, "B")
    SystemOutput.objects.filter(system=b, instance__external_id="100").update(text="A reason 100.")
    campaign = make_campaign(dataset, [a, b], name="shared-z", raters_per_item=2)
    items = {
        (io.output.system.name, io.output.instance.external_id): io.item
        for io in ItemOutput.objects.filter(campaign=campaign).select_related("output__system", "output__instance")
    }
    ItemOutput.objects.filter(item=items["B", "100"]).update(item=items["A", "100"])
    Item.objects.filter(pk=items["B", "100"].pk).delete()
    raters = make_raters(2)
    add_ratings(
        campaign, [(items["A", "100"], [3, 2]), (items["A", "101"], [1, 2]), (items["B", "101"], [2, 0])], raters
    )
    # Rater 0 rated 3, 1, 2 (mean 2, SD sqrt(2/3)); rater 1 rated 2, 2, 0 (mean 4/3, SD sqrt(8/9)).
    z0 = (np.array([3, 1, 2]) - 2) / np.sqrt(2 / 3)
    z1 = (np.array([2, 2, 0]) - 4 / 3) / np.sqrt(8 / 9)
    found = results.rater_effects(campaign)
    assert found.z["A"] == pytest.approx(np.mean([z0[0], z1[0], z0[1], z1[1]]), abs=1e-12)
    assert found.z["B"] == pytest.approx(np.mean([z0[0], z1[0], z0[2], z1[2]]), abs=1e-12)


def test_the_fit_is_kept_in_the_cache_until_the_ratings_change(incomplete, monkeypatch):
    calls = []
    real = rater_effects.mixed_model
    monkeypatch.setattr(rater_effects, "mixed_model", lambda *a, **k: calls.append(1) or real(*a, **k))
    first = results.rater_effects(incomplete)
    second = results.rater_effects(incomplete)
    assert len(calls) == 1 and first.fit == second.fit
    RaterExclusion.objects.create(campaign=incomplete, rater=Rater.objects.get(external_id="effects-w0"))
    results.rater_effects(incomplete)
    assert len(calls) == 2


def test_too_many_levels_is_not_fitted_and_says_so(incomplete, monkeypatch):
    monkeypatch.setattr(results, "MAX_ADJUSTED_LEVELS", 5)  # 3 raters + 4 instances
    found = results.rater_effects(incomplete)
    assert found.fit.scores["A"] == rater_effects.NOT_ESTIMATED and "more than 5" in found.fit.problem
    assert found.z["A"] is not None
    table = results.table6(incomplete)
    assert "Human adjusted: not fitted: more than 5 raters and instances together" in table6_format.notes(table)
