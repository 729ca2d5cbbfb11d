"""Table 6's secondary columns without reading single ratings (issue 22).

``human_z`` comes from grouped queries (per system and rater, and per rater: counts, sums and
sums of squares) and must equal the per-rating z-scores; the mixed model of ``human_adjusted`` is
fitted once per state of the counted ratings, by the background worker above
``ADJUSTED_INLINE_MAX_RATINGS``, and every channel says "being computed" until it is ready.
"""

from io import StringIO

import numpy as np
import pandas as pd
import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import override_settings
from django_tasks_db.models import DBTaskResult

from core.models import Item, Rater, RaterExclusion
from evalapp.compute import rater_effects
from evalapp.formats import table6 as table6_format
from evalapp.services import results
from evalapp.tasks import fit_rater_effects_task
from tests.results.factories import add_ratings, make_raters, rated_campaign
from tests.results.test_rater_effects import SCORES

IMMEDIATE = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


def _sums_of(ids, raters, scores, systems):
    """The grouped rows the database returns, computed from per-(rating, system) rows with pandas."""
    rows = pd.DataFrame({"id": ids, "rater": raters, "score": scores, "system": systems})
    once = rows.drop_duplicates("id")
    per_rater = (
        once.assign(sq=once.score**2)
        .groupby("rater")
        .agg(n=("id", "size"), total=("score", "sum"), squares=("sq", "sum"))
    )
    cells = rows.groupby(["system", "rater"]).agg(n=("id", "size"), total=("score", "sum"))
    return (
        [(r, *v) for r, v in zip(per_rater.index, per_rater.itertuples(index=False))],
        [(s, r, *v) for (s, r), v in zip(cells.index, cells.itertuples(index=False))],
    )


@pytest.mark.parametrize("seed", range(5))
def test_z_from_sums_equals_z_from_rows(seed):
    rng = np.random.default_rng(seed)
    n = 600
    ids = rng.integers(0, 450, n)  # repeated ids: a shared item's rating counts for 2 systems
    raters = (ids % 11).astype(int)  # a rating has one rater
    scores = (ids * 7 % 4).astype(int)  # ... and one score
    scores[raters == 3] = 2  # a rater with SD 0 adds z = 0
    systems = np.array(list("ABCDE"))[rng.integers(0, 5, n)]
    keep = ~pd.DataFrame({"i": ids, "s": systems}).duplicated().to_numpy()
    ids, raters, scores, systems = ids[keep], raters[keep], scores[keep], systems[keep]
    names = list("ABCDEF")
    expected = rater_effects.system_z_means(ids, raters, scores, systems, names)
    found = rater_effects.system_z_from_sums(*_sums_of(ids, raters, scores, systems), names)
    assert found["F"] is None and expected["F"] is None
    for name in "ABCDE":
        assert found[name] == pytest.approx(expected[name], abs=1e-12)


def test_z_from_sums_by_hand():
    # rater r: ratings 3 (counts for X and Y) and 1 (X): mean 2, SD 1 -> z 1 and -1; X: 0, Y: 1.
    z = rater_effects.system_z_from_sums([("r", 2, 4, 10)], [("X", "r", 2, 4), ("Y", "r", 1, 3)], ["X", "Y", "Z"])
    assert z == {"X": 0.0, "Y": 1.0, "Z": None}


def _z_from_rows(campaign, names):
    ids, _, systems, raters, scores = results.rating_rows(campaign)
    return rater_effects.system_z_means(ids, raters, scores, systems, names)


@pytest.fixture
def incomplete(db):
    campaign, _ = rated_campaign(SCORES, name="fast-effects")
    return campaign


@pytest.mark.postgres
def test_grouped_queries_equal_the_rows(incomplete):
    for excluded in ("w2", "w0"):
        found = results.rater_z_means(incomplete, ["A", "B", "C"])
        expected = _z_from_rows(incomplete, ["A", "B", "C"])
        assert found["C"] is None
        for name in "AB":
            assert found[name] == pytest.approx(expected[name], abs=1e-12)
        RaterExclusion.objects.create(
            campaign=incomplete, rater=Rater.objects.get(external_id=f"fast-effects-{excluded}")
        )


# A shared item's rating entering its rater once, through the grouped queries (the per-rater query
# runs then): tests/results/test_rater_effects.py::test_a_shared_item_is_one_rating_of_its_rater.


@pytest.mark.postgres
def test_a_large_campaign_is_fitted_in_the_background_once(incomplete, monkeypatch):
    monkeypatch.setattr(results, "ADJUSTED_INLINE_MAX_RATINGS", 0)
    cache.clear()
    queued = DBTaskResult.objects.count()
    first = results.rater_effects(incomplete)
    again = results.rater_effects(incomplete)
    assert first.fit.problem == again.fit.problem == results.ADJUSTED_BEING_COMPUTED
    assert first.fit.scores["A"] == rater_effects.NOT_ESTIMATED and first.z["A"] is not None
    assert DBTaskResult.objects.count() == queued + 1  # queued once, not once per export
    assert f"Human adjusted: {results.ADJUSTED_BEING_COMPUTED}" in table6_format.notes(results.table6(incomplete))
    fit_rater_effects_task.call(incomplete.pk, ["A", "B"])  # what the worker runs
    ready = results.rater_effects(incomplete)
    assert ready.fit.problem is None and ready.fit.scores["A"].estimate is not None
    cache.clear()
    assert results.rater_effects(incomplete, wait=True).fit == ready.fit  # the inline fit: the same figures
    # a new rating is a new state: being computed again
    item = Item.objects.filter(campaign=incomplete, kind=Item.Kind.SYSTEM).first()
    add_ratings(incomplete, [(item, [3])], make_raters(1, prefix="late"))
    assert results.rater_effects(incomplete).fit.problem == results.ADJUSTED_BEING_COMPUTED


@override_settings(TASKS=IMMEDIATE)
def test_an_immediate_worker_gives_the_fit_at_once(incomplete, monkeypatch):
    monkeypatch.setattr(results, "ADJUSTED_INLINE_MAX_RATINGS", 0)
    cache.clear()
    found = results.rater_effects(incomplete)
    assert found.fit.problem is None and found.fit.scores["B"].estimate is not None


def test_the_command_says_being_computed_or_waits(incomplete, monkeypatch):
    monkeypatch.setattr(results, "ADJUSTED_INLINE_MAX_RATINGS", 0)
    cache.clear()
    out = StringIO()
    call_command("export_table6", "--campaign", incomplete.name, "--format", "markdown", stdout=out)
    assert "being computed by the background worker" in out.getvalue()
    cache.clear()
    waited = StringIO()
    call_command(
        "export_table6", "--campaign", incomplete.name, "--format", "markdown", "--wait-adjusted", stdout=waited
    )
    assert "being computed" not in waited.getvalue()
    expected = results.rater_effects(incomplete).fit.scores["A"].estimate
    assert f"{expected:.2f}" in waited.getvalue()
