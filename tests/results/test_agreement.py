"""Agreement coefficients equal the reference implementations on the same data (protocol.md#agreement)."""

import itertools

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from evalapp.compute import agreement

TOLERANCE = 1e-9
SCALE = [0, 1, 2, 3]


def random_ratings(seed, n_units=60, n_raters=7, per_unit=3, missing=0.15):
    """(unit, rater, score) arrays: each unit rated by ``per_unit`` of the raters, some ratings dropped."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n_units)
    units, raters, scores = [], [], []
    for unit in range(n_units):
        for rater in rng.choice(n_raters, per_unit, replace=False):
            if rng.random() < missing:
                continue
            noise = rng.choice([-1, 0, 0, 0, 1])
            units.append(unit)
            raters.append(int(rater))
            scores.append(int(np.clip(truth[unit] + noise, 0, 3)))
    return np.array(units), np.array(raters), np.array(scores)


def reliability_matrix(units, raters, scores):
    """Raters x units with NaN for a missing rating: the krippendorff package's input."""
    matrix = np.full((raters.max() + 1, units.max() + 1), np.nan)
    matrix[raters, units] = scores
    return matrix


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("level", ["ordinal", "interval"])
def test_krippendorff_alpha_equals_package_with_missing_ratings(seed, level):
    units, raters, scores = random_ratings(seed)
    _, counts = agreement.value_counts(units, scores)
    expected = krippendorff.alpha(
        reliability_data=reliability_matrix(units, raters, scores), level_of_measurement=level, value_domain=SCALE
    )
    assert agreement.krippendorff_alpha(counts, level) == pytest.approx(expected, abs=TOLERANCE)


def test_krippendorff_alpha_ordinal_with_an_unused_scale_value():
    units = np.array([0, 0, 1, 1, 2, 2, 2, 3, 3])
    raters = np.array([0, 1, 0, 1, 0, 1, 2, 1, 2])
    scores = np.array([0, 0, 3, 2, 0, 3, 3, 2, 3])  # 1 never used
    _, counts = agreement.value_counts(units, scores)
    expected = krippendorff.alpha(
        reliability_data=reliability_matrix(units, raters, scores), level_of_measurement="ordinal", value_domain=SCALE
    )
    assert agreement.krippendorff_alpha(counts, "ordinal") == pytest.approx(expected, abs=TOLERANCE)


def test_krippendorff_alpha_hand_case():
    # Two raters, values (1,1),(2,2),(1,2): interval coincidences o11=2, o22=2, o12=o21=1, n=6.
    # D_o = 2*1/6... alpha = 1 - (n-1) * sum(o*d) / sum(n_c n_k d) = 1 - 5*2/(2*3*3) = 4/9.
    units, scores = np.array([0, 0, 1, 1, 2, 2]), np.array([1, 1, 2, 2, 1, 2])
    _, counts = agreement.value_counts(units, scores)
    assert agreement.krippendorff_alpha(counts, "interval") == pytest.approx(4 / 9, abs=TOLERANCE)


@pytest.mark.parametrize("seed", [4, 5])
def test_fleiss_kappa_equals_statsmodels_on_complete_units_only(seed):
    units, raters, scores = random_ratings(seed, missing=0.2)
    _, counts = agreement.value_counts(units, scores)
    kappa, used = agreement.fleiss_kappa(counts, 3)
    complete = counts[counts.sum(axis=1) == 3]
    assert 0 < used == len(complete) < len(counts)
    assert kappa == pytest.approx(statsmodels_fleiss(complete, method="fleiss"), abs=TOLERANCE)


def test_exact_agreement_hand_case():
    # unit 0: 3,3,2 -> pairs agree 1 of 3; unit 1: 1,1 -> 1 of 1; unit 2: a single rating, no pair.
    units, scores = np.array([0, 0, 0, 1, 1, 2]), np.array([3, 3, 2, 1, 1, 0])
    _, counts = agreement.value_counts(units, scores)
    assert agreement.exact_agreement(counts) == pytest.approx(2 / 4)


@pytest.mark.parametrize("seed", [6, 7])
def test_pairwise_qwk_equals_sklearn_for_every_pair(seed):
    units, raters, scores = random_ratings(seed, n_units=40, n_raters=5)
    report = agreement.agreement(units, raters, scores, raters_per_item=3)
    kappas = []
    for a, b in itertools.combinations(range(5), 2):
        shared = sorted(set(units[raters == a]) & set(units[raters == b]))
        if len(shared) < agreement.MIN_SHARED_UNITS:
            continue
        score_of = {(u, r): s for u, r, s in zip(units, raters, scores)}
        ya, yb = [score_of[u, a] for u in shared], [score_of[u, b] for u in shared]
        kappa = cohen_kappa_score(ya, yb, weights="quadratic", labels=SCALE)
        if np.isfinite(kappa):
            kappas.append(kappa)
    assert report["qwk_rater_pairs"] == len(kappas)
    assert report["mean_pairwise_qwk"] == pytest.approx(np.mean(kappas), abs=TOLERANCE)


def test_full_report_matches_references_and_per_rater_figures():
    units, raters, scores = random_ratings(11, n_units=50, n_raters=6)
    report = agreement.agreement(units, raters, scores, raters_per_item=3)
    data = reliability_matrix(units, raters, scores)
    assert report["krippendorff_alpha_ordinal"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=SCALE), abs=TOLERANCE
    )
    assert report["krippendorff_alpha_interval"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="interval", value_domain=SCALE), abs=TOLERANCE
    )
    by_rater = {entry["rater"]: entry for entry in report["raters"]}
    assert sum(entry["ratings"] for entry in report["raters"]) == len(scores)
    rater0 = by_rater[0]
    own = {u: s for u, r, s in zip(units, raters, scores) if r == 0}
    pairs = [(own[u], s) for u, r, s in zip(units, raters, scores) if r != 0 and u in own]
    assert rater0["pairs"] == len(pairs)
    assert rater0["exact_agreement"] == pytest.approx(np.mean([a == b for a, b in pairs]))
    assert rater0["mean_score"] == pytest.approx(np.mean(list(own.values())))


def test_undefined_coefficients_are_none():
    report = agreement.agreement(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([2, 2, 2, 2]), 2)
    assert report["krippendorff_alpha_ordinal"] is None
    assert report["fleiss_kappa"] is None
    assert report["mean_pairwise_qwk"] is None
    assert report["exact_agreement"] == 1.0


def test_score_off_the_scale_is_refused():
    with pytest.raises(ValueError, match="not on the scale"):
        agreement.value_counts(np.array([0, 0]), np.array([1, 4]))
