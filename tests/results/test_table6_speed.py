"""Table 6 from one read of the counted ratings (issue 22): the same figures as the per-rating paths it replaced.

Every column of Table 6 now comes from :class:`evalapp.compute.human_score.CountedRatings` (one packed integer
per counted rating, grouped in NumPy): formula (1)'s score matrix, ``human_z``, the mixed model's cache key and
the rater-aware intervals and tests. Each is held here to the former computation on random campaigns with
missing ratings, an excluded rater, a control item and a shared item; the rater-aware contrasts' moment-matrix
path (hundreds of systems) to the direct sums.
"""

from itertools import combinations

import numpy as np
import pytest
from django.core.cache import cache

from core.models import Item, ItemOutput, Rater, RaterExclusion, Rating, SystemOutput
from evalapp.compute import human_score, rater_effects, rater_uncertainty
from evalapp.services import results
from tests.results.factories import add_ratings, make_campaign, make_dataset, make_raters, make_system


def _random_campaign(seed, n_systems=5, n_instances=12, pool=8, per_item=3):
    """Systems x instances items, each rated by ``per_item`` raters drawn from a pool (some ratings missing),
    plus one item shared by two systems' identical outputs, one excluded rater and one control item."""
    rng = np.random.default_rng(seed)
    name = f"speed-{seed}"
    dataset = make_dataset(name, n_instances)
    systems = [make_system(dataset, f"S{k}", bleu=float(k)) for k in range(n_systems)]
    first = dataset.instances.order_by("position").first()
    SystemOutput.objects.filter(system=systems[1], instance=first).update(
        text=SystemOutput.objects.get(system=systems[0], instance=first).text
    )
    campaign = make_campaign(dataset, systems, name=name, raters_per_item=per_item)
    shared = ItemOutput.objects.get(campaign=campaign, output__system=systems[0], output__instance=first).item
    doubled = ItemOutput.objects.get(campaign=campaign, output__system=systems[1], output__instance=first)
    Item.objects.filter(pk=doubled.item_id).delete()
    ItemOutput.objects.create(campaign=campaign, item=shared, output=doubled.output)
    raters = make_raters(pool, prefix=name + "-w")
    for item in Item.objects.filter(campaign=campaign):
        chosen = rng.choice(pool, size=per_item, replace=False)
        scores = [int(rng.integers(0, 4)) if rng.random() > 0.15 else None for _ in chosen]
        add_ratings(campaign, [(item, scores)], [raters[k] for k in chosen])
    control = Item.objects.create(
        campaign=campaign,
        instance=first,
        text="control",
        kind=Item.Kind.CONTROL,
        control_kind=Item.Control.STATEMENT,
        needed=1,
    )
    Rating.objects.create(item=control, rater=raters[0], campaign=campaign, score=3)
    RaterExclusion.objects.create(campaign=campaign, rater=raters[-1])
    return campaign


@pytest.fixture(params=range(3))
def campaign(db, request):
    return _random_campaign(request.param)


@pytest.mark.postgres
def test_the_score_matrix_equals_the_per_rating_records(campaign):
    counted = results.counted_ratings(campaign)
    found = results.instance_score_matrix(campaign)
    expected = results.instance_score_matrix(campaign, results.ratings_records(campaign))
    assert found.systems == expected.systems and found.instances == expected.instances
    assert np.array_equal(found.sums, expected.sums) and np.array_equal(found.counts, expected.counts)
    assert counted.ratings == Rating.objects.counted(campaign).count()
    assert len(counted.row_rating) == Rating.objects.counted_per_system(campaign).count()


@pytest.mark.postgres
def test_human_z_equals_the_z_of_every_rating(campaign):
    names = [s.name for s in results.campaign_systems(campaign)]
    ids, _, systems, raters, scores = results.rating_rows(campaign)
    expected = rater_effects.system_z_means(ids, raters, scores, systems, names)
    found = results.rater_z_means(campaign, names)
    assert found.keys() == expected.keys()
    for name in names:
        assert found[name] == pytest.approx(expected[name], abs=1e-12)


def test_z_from_totals_is_z_from_sums_bit_for_bit():
    rng = np.random.default_rng(5)
    raters = [
        (r, int(n), int(t), int(q)) for r, n, t, q in zip(range(6), [4, 3, 5, 2, 6, 1], *rng.integers(1, 9, (2, 6)))
    ]
    cells = [
        (f"S{k % 3}", int(rng.integers(0, 6)), int(rng.integers(1, 3)), int(rng.integers(0, 7))) for k in range(20)
    ]
    cells.sort(key=lambda cell: (cell[0], cell[1]))
    expected = rater_effects.system_z_from_sums(raters, cells, ["S0", "S1", "S2", "S3"])
    ids, n, total, squares = (np.array(column, dtype=np.int64) for column in zip(*raters))
    found = rater_effects.system_z_from_totals(
        ids,
        n,
        total,
        squares,
        [c[0] for c in cells],
        *(np.array(column, dtype=np.int64) for column in list(zip(*cells))[1:]),
        ["S0", "S1", "S2", "S3"],
    )
    assert found == expected


@pytest.mark.postgres
def test_the_intervals_and_tests_equal_the_per_rating_design(campaign):
    systems = results.campaign_systems(campaign)
    names = [s.name for s in systems]
    found = results.rater_aware_uncertainty(campaign, systems).contrasts
    _, instances, system_names, raters, scores = results.rating_rows(campaign)
    design = rater_uncertainty.RatingDesign.from_rows(system_names, instances, raters, scores, names)
    expected = rater_uncertainty.contrasts(design, min_raters=2)
    found = rater_uncertainty.contrasts(
        rater_uncertainty.RatingDesign.from_counted(
            results.counted_ratings(campaign), {s.pk: s.name for s in systems}, names
        ),
        min_raters=2,
    )
    assert found.pairs == expected.pairs and found.fallback_reason is None
    for field in ("means", "counts", "mean_variance", "mean_df", "pair_variance", "pair_df"):
        assert np.allclose(getattr(found, field), getattr(expected, field), rtol=1e-12, atol=0, equal_nan=True), field


@pytest.mark.parametrize("dense_clusters", [20_000, 0], ids=["dense", "sparse"])
@pytest.mark.parametrize("seed", range(4))
def test_the_moment_path_equals_the_direct_sums(seed, dense_clusters, monkeypatch):
    rng = np.random.default_rng(seed)
    n = 3000
    system, instance, rater = rng.integers(0, 9, n), rng.integers(0, 40, n), rng.integers(0, 12, n)
    score = np.clip(
        np.round(1.5 + 0.4 * (system - 4) / 4 + 0.3 * rng.normal(size=12)[rater] + rng.normal(size=n)), 0, 3
    )
    design = rater_uncertainty.RatingDesign([f"S{k}" for k in range(9)], system, instance, rater, score, 40, 12)
    direct = rater_uncertainty.contrasts(design)
    monkeypatch.setattr(rater_uncertainty, "DIRECT_PAIR_ELEMENTS", 0)
    monkeypatch.setattr(rater_uncertainty, "DENSE_MOMENT_CLUSTERS", dense_clusters)
    moments = rater_uncertainty.contrasts(design)
    for field in ("mean_variance", "mean_df", "pair_variance", "pair_df"):
        assert np.allclose(getattr(moments, field), getattr(direct, field), rtol=1e-9, atol=1e-15), field


def test_the_direct_sums_in_blocks_equal_all_pairs_at_once(monkeypatch):
    rng = np.random.default_rng(9)
    n = 2000
    design = rater_uncertainty.RatingDesign(
        list("ABCDEFG"),
        rng.integers(0, 7, n),
        rng.integers(0, 30, n),
        rng.integers(0, 9, n),
        rng.integers(0, 4, n) * 1.0,
        30,
        9,
    )
    whole = rater_uncertainty.contrasts(design)
    monkeypatch.setattr(rater_uncertainty, "PAIR_BLOCK_ELEMENTS", 7)
    blocks = rater_uncertainty.contrasts(design)
    assert np.array_equal(whole.pair_variance, blocks.pair_variance) and np.array_equal(whole.pair_df, blocks.pair_df)


def test_a_pairs_place_is_computed_as_combinations_orders_it():
    names = [f"S{k}" for k in range(7)]
    pairs = list(combinations(range(7), 2))
    contrasts = rater_uncertainty.Contrasts(
        np.arange(7.0),
        np.ones(7, dtype=np.int64),
        np.zeros(7),
        np.zeros(7),
        pairs,
        np.arange(21.0),
        np.arange(21.0) + 100,
        None,
    )
    found = results.RaterAwareUncertainty(names, contrasts, 5, 5)
    for index, (a, b) in enumerate(pairs):
        assert found.pair(names[b], names[a]) == (b - a, index, index + 100)


@pytest.mark.parametrize("ids", [[5, 3, 3, 900, 5, 0], [2**40, 7, 2**40, 12], []])
def test_dense_codes_are_numpys_unique(ids):
    ids = np.array(ids, dtype=np.int64)
    distinct, codes = human_score.dense_codes(ids)
    expected_distinct, expected_codes = np.unique(ids, return_inverse=True)
    assert np.array_equal(distinct, expected_distinct) and np.array_equal(codes, expected_codes.reshape(-1))


def test_counted_ratings_rows_follow_what_the_items_show():
    counted = human_score.CountedRatings.from_arrays(
        np.array([7, 5, 9, 5]),  # item of each rating, any order
        np.array([1, 2, 1, 1]),
        np.array([3, 0, 2, 1]),
        np.array([5, 7, 7]),  # item 7 shows two systems' identical outputs; item 9 shows nothing
        np.array([10, 11, 10]),
        np.array([100, 101, 101]),
    )
    assert counted.item.tolist() == [5, 5, 7, 9] and counted.rater.tolist() == [1, 2, 1, 1]
    assert counted.row_rating.tolist() == [0, 1, 2, 2]
    assert counted.row_system.tolist() == [10, 10, 10, 11] and counted.row_instance.tolist() == [100, 100, 101, 101]
    assert counted.ratings == 4


@pytest.mark.postgres
def test_the_fingerprint_follows_the_counted_ratings(campaign):
    before = results.counted_ratings(campaign).fingerprint()
    assert results.counted_ratings(campaign).fingerprint() == before
    rating = Rating.objects.counted(campaign).first()
    Rating.objects.filter(pk=rating.pk).update(score=(rating.score + 1) % 4)
    changed = results.counted_ratings(campaign).fingerprint()
    assert changed != before
    RaterExclusion.objects.create(campaign=campaign, rater=Rater.objects.get(pk=rating.rater_id))
    assert results.counted_ratings(campaign).fingerprint() not in (before, changed)


@pytest.mark.postgres
def test_wide_ids_are_read_as_three_columns(campaign, monkeypatch):
    packed = results.counted_ratings(campaign)
    cache.clear()  # what the items show is read again, as columns too
    monkeypatch.setattr(results, "PACKED_BITS", 0)
    columns = results.counted_ratings(campaign)
    for field in ("item", "rater", "score", "row_rating", "shown_item", "shown_system", "shown_instance", "row_shown"):
        assert np.array_equal(getattr(packed, field), getattr(columns, field)), field
