"""The seeded decisions of a campaign (evalapp.compute.campaign_plan), without a database."""

import random
from collections import Counter

import pytest

from core import item_order
from evalapp.compute import campaign_plan as plan
from evalapp.compute.campaign_plan import InstanceMaterial


def test_sample_is_the_documented_one_liner_and_reproducible():
    drawn = plan.draw_sample(1000, 100, 2020)
    assert drawn == random.Random(2020).sample(range(1000), 100)
    assert drawn == plan.draw_sample(1000, 100, 2020)
    assert len(set(drawn)) == 100 and all(0 <= position < 1000 for position in drawn)
    assert drawn != plan.draw_sample(1000, 100, 2021)


@pytest.mark.parametrize("size", [0, 11])
def test_sample_size_outside_population_is_refused(size):
    with pytest.raises(plan.PlanError, match=f"cannot sample {size} of 10"):
        plan.draw_sample(10, size, 1)


def test_normalised_reasons_ignore_only_spacing_and_unicode_form():
    assert plan.normalise_reason("  An elephant\tis  too big.\n") == "An elephant is too big."
    assert plan.normalise_reason("cafe\u0301") == plan.normalise_reason("caf\u00e9")
    assert plan.normalise_reason("Elephants are big.") != plan.normalise_reason("elephants are big")


def test_identical_reasons_are_grouped_in_order_of_first_appearance():
    groups = plan.group_identical([(1, "Too big."), (2, "Small."), (3, " Too  big. "), (4, "too big.")])
    assert groups == [[1, 3], [2], [4]]


@pytest.mark.parametrize(
    "rate, items, expected",
    [
        (0.0, 1700, 0),
        (0.1, 1700, 170),
        (0.1, 15, 2),
        (0.1, 14, 1),
        (0.5, 3, 2),
        (1.0, 7, 7),
        (0.05, 10, 1),
    ],
)
def test_control_count_rounds_half_up(rate, items, expected):
    assert plan.control_count(rate, items) == expected


def materials(count=6, references=3):
    return [
        InstanceMaterial(
            key, f"statement {key}", {position: f"ref {position} of {key}" for position in range(1, references + 1)}
        )
        for key in range(count)
    ]


def test_controls_rotate_kinds_with_their_expected_ranges():
    controls = plan.plan_controls(materials(), 9, seed=7)
    assert Counter(control.kind for control in controls) == {plan.OTHER_REASON: 3, plan.STATEMENT: 3, plan.REFERENCE: 3}
    for control in controls:
        assert (control.expected_min, control.expected_max) == plan.CONTROL_EXPECTED[control.kind]
        if control.kind == plan.STATEMENT:
            assert control.text == f"statement {control.instance}"
        elif control.kind == plan.REFERENCE:
            assert control.text.endswith(f" of {control.instance}")
        else:  # a reason from ANOTHER instance
            assert control.text.startswith("ref ") and not control.text.endswith(f" of {control.instance}")
    assert plan.CONTROL_EXPECTED == {plan.OTHER_REASON: (0, 0), plan.STATEMENT: (0, 1), plan.REFERENCE: (2, 3)}


def test_controls_are_seeded_and_spread_over_instances():
    assert plan.plan_controls(materials(), 6, seed=1) == plan.plan_controls(materials(), 6, seed=1)
    assert plan.plan_controls(materials(), 6, seed=1) != plan.plan_controls(materials(), 6, seed=2)
    # One pass over the shuffled instances before any instance is used twice.
    assert len({control.instance for control in plan.plan_controls(materials(), 6, seed=3)}) == 6


def test_controls_never_use_the_human_reference():
    controls = plan.plan_controls(materials(), 30, seed=5, human_reference=2)
    assert not any(control.text.startswith("ref 2 ") for control in controls)
    assert {control.text.split()[1] for control in controls if control.kind != plan.STATEMENT} == {"1", "3"}


def test_controls_without_usable_references_are_refused():
    only_human = materials(references=1)
    with pytest.raises(plan.PlanError, match="another instance"):
        plan.plan_controls(only_human, 1, seed=1, human_reference=1)
    with pytest.raises(plan.PlanError, match="another instance"):
        plan.plan_controls(materials(count=1), 1, seed=1)
    assert plan.plan_controls(materials(), 0, seed=1) == []


def test_other_reason_when_only_one_instance_has_references():
    mixed = [
        InstanceMaterial(0, "s0", {1: "only reference"}),
        InstanceMaterial(1, "s1", {}),
        InstanceMaterial(2, "s2", {}),
    ]
    for seed in range(10):
        control = plan.plan_controls(mixed, 1, seed=seed)[0]
        assert control.kind == plan.OTHER_REASON and control.text == "only reference" and control.instance != 0


def test_shuffle_keys_are_seeded_and_within_the_modulus():
    places = item_order.instance_rating_order(500, 9)
    keys = item_order.ordered_shuffle_keys(places, 500, 9)
    assert keys == item_order.ordered_shuffle_keys(places, 500, 9) != item_order.ordered_shuffle_keys(places, 500, 10)
    assert all(0 <= key < item_order.SHUFFLE_MODULUS for key in keys)


def rater_order(keys, order_seed):
    multiplier, offset = item_order.rater_order_parameters(order_seed)
    return sorted(range(len(keys)), key=lambda index: (keys[index] * multiplier + offset) % item_order.SHUFFLE_MODULUS)


def test_each_rater_gets_a_different_permutation_not_a_rotation():
    keys = item_order.ordered_shuffle_keys(list(range(50)), 50, 1)
    orders = [rater_order(keys, seed) for seed in (0, 12345, 2**61 + 17, 987654321987)]
    assert len({tuple(order) for order in orders}) == len(orders)
    first = orders[0]
    rotations = {tuple(first[shift:] + first[:shift]) for shift in range(len(first))}
    assert not any(tuple(order) in rotations for order in orders[1:])


def test_rater_order_stays_inside_64_bit_integers():
    multiplier, offset = item_order.rater_order_parameters(2**62 - 1)
    modulus = item_order.SHUFFLE_MODULUS
    assert 1 <= multiplier < modulus and 0 <= offset < modulus
    assert (modulus - 1) * multiplier + offset < 2**63
