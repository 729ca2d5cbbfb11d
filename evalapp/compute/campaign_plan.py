"""The seeded decisions of a campaign: its sample, shared reasons and control items (the rating order and
the item keys: ``core/item_order.py``).

No Django imports: everything here is a function of plain values and a seed, so the same
seed and dataset give the same campaign on any machine. Each decision draws from its own
generator, ``random.Random(f"{seed}:{purpose}")`` (string seeds are hashed with SHA-512 by
Python, independent of PYTHONHASHSEED), so changing e.g. the control rate never changes
the sample.
"""

from __future__ import annotations

import math
import random
import re
import unicodedata
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

OTHER_REASON = "other_reason"
STATEMENT = "statement"
REFERENCE = "reference"
# Control kinds in the order they rotate, with the score range a careful rater gives (protocol.md#control-items).
CONTROL_KINDS = (OTHER_REASON, STATEMENT, REFERENCE)
CONTROL_EXPECTED = {OTHER_REASON: (0, 0), STATEMENT: (0, 1), REFERENCE: (2, 3)}

_WHITESPACE = re.compile(r"\s+")
Key = TypeVar("Key", bound=Hashable)


class PlanError(ValueError):
    """The campaign cannot be planned as asked (e.g. control items without usable references)."""


def draw_sample(population_size: int, sample_size: int, seed: int) -> list[int]:
    """Positions (0-based, file order) of the sampled instances, in the order they were drawn.

    The algorithm is ``random.Random(seed).sample(range(population_size), sample_size)``, so
    anyone can redraw a campaign's sample from its stored seed with one line of Python.
    """
    if not 1 <= sample_size <= population_size:
        raise PlanError(f"cannot sample {sample_size} of {population_size} instances")
    return random.Random(seed).sample(range(population_size), sample_size)


def normalise_reason(text: str) -> str:
    """The form in which two reasons count as identical: Unicode NFC, whitespace collapsed, trimmed.

    Case and punctuation are kept: "Elephants are big." and "elephants are big" may be rated
    differently, as the official BLEU also keeps case.
    """
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def group_identical(outputs: Iterable[tuple[Key, str]]) -> list[list[Key]]:
    """Group ``(key, text)`` pairs by normalised text, in order of first appearance.

    Returns a list of lists of keys; used per instance when a campaign shares identical reasons.
    """
    groups: dict[str, list[Key]] = {}
    for key, text in outputs:
        groups.setdefault(normalise_reason(text), []).append(key)
    return list(groups.values())


def control_count(rate: float, system_items: int) -> int:
    """Number of control items: ``rate * system_items`` rounded half up."""
    return math.floor(rate * system_items + 0.5)


@dataclass(frozen=True)
class ControlPlan:
    """One control item: shown with ``instance``'s statement, reason ``text``, expected score range."""

    instance: int  # the instance's key (its primary key)
    kind: str
    text: str
    expected_min: int
    expected_max: int


@dataclass(frozen=True)
class InstanceMaterial:
    """What controls are made of: an instance's key, statement and references by position."""

    key: int  # the instance's primary key
    statement: str
    references: dict[int, str]  # position -> text


def plan_controls(
    instances: Sequence[InstanceMaterial], count: int, seed: int, human_reference: int | None = None
) -> list[ControlPlan]:
    """``count`` control items over the sampled ``instances`` (a list of :class:`InstanceMaterial`).

    Kinds rotate other reason / statement / reference, so each kind gets a third. Instances
    are taken in a seeded shuffled order, reshuffled after each pass. A reference used as the
    Human pseudo-system is never reused as a control, so a control never duplicates an item.
    """
    if count <= 0:
        return []
    rng = random.Random(f"{seed}:controls")

    def usable(material: InstanceMaterial) -> list[str]:
        return [
            text
            for position, text in sorted(material.references.items())
            if position != human_reference and text.strip()
        ]

    with_references = [material for material in instances if usable(material)]
    kinds_needed = {CONTROL_KINDS[index % len(CONTROL_KINDS)] for index in range(count)}
    if OTHER_REASON in kinds_needed and (len(instances) < 2 or not with_references):
        raise PlanError(
            "control items need at least 2 sampled instances and references to take a reason from another instance"
        )
    if REFERENCE in kinds_needed and not with_references:
        raise PlanError("control items need references other than the Human pseudo-system's")

    plans: list[ControlPlan] = []
    order: list[InstanceMaterial] = []
    for index in range(count):
        if not order:
            order = list(instances)
            rng.shuffle(order)
        kind = CONTROL_KINDS[index % len(CONTROL_KINDS)]
        if kind == REFERENCE and not usable(order[-1]):
            material = rng.choice(with_references)
        else:
            material = order.pop()
        if kind == OTHER_REASON:
            donors = [other for other in with_references if other.key != material.key]
            if not donors:  # only this instance has references: show one of them elsewhere
                donors = [material]
                material = rng.choice([other for other in instances if other.key != material.key])
            text = rng.choice(usable(rng.choice(donors)))
        elif kind == STATEMENT:
            text = material.statement
        else:
            text = rng.choice(usable(material))
        low, high = CONTROL_EXPECTED[kind]
        plans.append(ControlPlan(material.key, kind, text, low, high))
    return plans
