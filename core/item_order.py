"""A rater's own order of a campaign's items. No Django imports.

Every item gets a random ``shuffle_key`` when the campaign is made; each rater walks the keys
in a permutation of their own, ``(shuffle_key * m + a) mod SHUFFLE_MODULUS``, computed in SQL
by the engine (:mod:`core.rating_sql`) from the rater's ``order_seed``.
"""

# Shuffle keys are drawn below this prime; ``key * m + a`` then stays inside 64-bit integers in SQL.
SHUFFLE_MODULUS = 2**31 - 1


def rater_order_parameters(order_seed):
    """The multiplier and offset of a rater's item order, ``(shuffle_key * m + a) mod SHUFFLE_MODULUS``.

    Multiplying by ``m`` (1 <= m < modulus, a prime) permutes the keys, and different raters get
    different multipliers, so their orders are different permutations rather than rotations of
    one order.
    """
    multiplier = 1 + order_seed % (SHUFFLE_MODULUS - 1)
    offset = (order_seed // (SHUFFLE_MODULUS - 1)) % SHUFFLE_MODULUS
    return multiplier, offset
