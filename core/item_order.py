"""The order of a campaign's items: the instances' rating order and each rater's own walk. No Django imports.

Every campaign draws a random rating order of its instances from its seed; every item gets a
``shuffle_key`` that follows that order (:func:`ordered_shuffle_keys`). The engine hands out the
open items from the front of the key order, and each rater picks among the next few in a
permutation of their own, ``(shuffle_key * m + a) mod SHUFFLE_MODULUS``, computed in SQL by the
engine (:mod:`core.rating_sql`) from the rater's ``order_seed``.
"""

import random

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


def instance_rating_order(count, seed):
    """Each sampled instance's place in the campaign's rating order: a seeded uniform permutation.

    ``result[position]`` is the place of the instance at sample ``position``. The engine hands out
    items so that the instances are completed in about this order, so every prefix of it is a simple
    random sample of the campaign's instances: what the anytime-valid decisions
    (``evalapp/compute/sequential.py``) read, instance by instance.
    """
    rng = random.Random(f"{seed}:rating-order")
    places = list(range(count))
    rng.shuffle(places)
    return places


def ordered_shuffle_keys(places, instances, seed):
    """Item keys in ``[0, SHUFFLE_MODULUS)`` that follow the instances' rating order.

    ``places`` holds each item's instance place (from :func:`instance_rating_order`), ``instances``
    how many places there are. The key is the place times a stride plus a random part below the
    stride, so key order is rating order, and within one instance the items (its systems, its
    controls) come in a random order.
    """
    rng = random.Random(f"{seed}:shuffle")
    stride = key_stride(instances)
    return [place * stride + rng.randrange(stride) for place in places]


def key_stride(instances):
    """The width of one instance's band of keys: ``shuffle_key // key_stride`` is the instance's place."""
    return SHUFFLE_MODULUS // max(instances or 1, 1)
