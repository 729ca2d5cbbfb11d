"""The comparisons' coin flips (correlation.coin_flips): fair, independent, seeded, and giving p-values
with the distribution of the former flips (one double per flip), with rater effects in the ratings."""

import numpy as np
import pytest

from bench import permutation_flips_calibration as calibration
from evalapp.compute import correlation as corr


@pytest.mark.parametrize("shape", [(1000, 1700), (3, 200_001), (4000, 17)])
def test_flips_are_fair_in_every_bit_position_and_not_correlated_with_their_neighbours(shape):
    flips = corr.coin_flips(np.random.default_rng(5), *shape)
    assert flips.shape == shape and flips.dtype == np.bool_
    flat = flips.ravel().astype(float)
    n = flat.size
    assert abs(flat.mean() - 0.5) < 4.5 * 0.5 / np.sqrt(n)
    for position in range(64):  # each bit of a 64-bit output
        share = flat[position::64].mean()
        assert abs(share - 0.5) < 4.5 * 0.5 / np.sqrt(n / 64), position
    centred = flat - 0.5
    for lag in (1, 7, 8, 63, 64, shape[1]):  # within a byte, across bytes and outputs, down a column
        assert abs(np.mean(centred[:-lag] * centred[lag:])) < 4.5 * 0.25 / np.sqrt(n - lag), lag


def test_flips_are_the_same_for_a_seed_and_the_stream_goes_on():
    first, again = corr.coin_flips(np.random.default_rng(3), 50, 77), corr.coin_flips(np.random.default_rng(3), 50, 77)
    assert np.array_equal(first, again)
    rng = np.random.default_rng(3)
    corr.coin_flips(rng, 50, 77)
    assert not np.array_equal(corr.coin_flips(rng, 50, 77), first)
    assert corr.coin_flips(np.random.default_rng(3), 0, 5).shape == (0, 5)


def test_the_permutation_tests_p_values_have_the_distribution_of_the_former_flips():
    """The bench's simulation at a small size: on one campaign near the edge of significance the p-values
    of 300 seeds are not told apart from the former flips' (two-sample KS), and over 300 null campaigns
    both reject at about the level, within each other's Monte Carlo error."""
    args = calibration.parser().parse_args(["--campaigns", "300", "--seeds", "300", "--instances", "40"])
    result = calibration.calibrate(args)
    assert result.ks_p > 0.01
    assert 0.01 < result.mean_p_one_campaign < 0.2, "the campaign is near the edge: the seed matters"
    now, before = result.spread
    assert abs(now.mean - before.mean) < 4 * np.hypot(now.sd, before.sd) / np.sqrt(300)
    assert 0.7 < now.sd / before.sd < 1.4
    for null in result.null:
        rate, low, high = null.rates[0.05]
        assert low <= 0.05 <= high or rate < 0.05, null
    (now_null, before_null), (now_power, before_power) = result.null, result.power
    assert abs(now_null.rates[0.05][0] - before_null.rates[0.05][0]) < 0.04
    assert abs(now_power.rates[0.05][0] - before_power.rates[0.05][0]) < 0.06
    assert now_power.rates[0.05][0] > now_null.rates[0.05][0] + 0.05, "the alternative is detected more often"
