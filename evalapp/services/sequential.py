"""Stopping early with a guarantee: the anytime-valid decisions per pair of systems, and racing.

The dashboard, ``GET /api/campaigns/{id}/sequential/`` and ``manage.py sequential_status`` all call
:func:`sequential_status`, so they show the same figures. The statistics are in
:mod:`evalapp.compute.sequential`; this module reads the counted ratings (those of Table 6) in the
campaign's rating order and applies racing (:func:`retire_decided_systems`), which changes what
the engine hands out and so is a POST (or the command's ``--retire``), never a look.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from django.core.cache import cache
from django.db import transaction
from django.db.models import F

from core.defaults import RESULTS_CACHE_SECONDS, SEQUENTIAL_ALPHA, SEQUENTIAL_BET_TRUNCATION
from core.models import Campaign, Item, ItemOutput, SystemRetirement
from evalapp.compute import sequential as compute
from evalapp.services import results


@dataclass(frozen=True)
class SequentialStatus:
    """What the campaign's ratings so far decide, pair by pair, at family-wise level ``alpha``."""

    alpha: float
    epsilon: float
    method: str
    instances_seen: int
    settled: bool
    pairs: list[compute.PairDecision]
    order: list[str] = field(default_factory=list)  # systems, best observed mean first
    retired: dict[str, int] = field(default_factory=dict)  # system name -> instances it was complete on
    racing: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The JSON of the command and the API: exactly the keys the manual documents."""
        return {
            "alpha": self.alpha,
            "epsilon": self.epsilon,
            "method": self.method,
            "instances_seen": self.instances_seen,
            "settled": self.settled,
            "pairs": [pair.as_dict() for pair in self.pairs],
        }

    def confidence(self) -> str:
        """``1 - alpha`` as a percentage, for the banner."""
        return f"{(1 - self.alpha) * 100:g}%"

    def adjacent(self) -> list[compute.AdjacentPair]:
        """The adjacent pairs of the current order and how each is decided (the dashboard's list)."""
        return compute.adjacent_decisions(self.order, self.by_pair())

    def by_pair(self) -> dict[frozenset[str], compute.PairDecision]:
        return {frozenset((pair.better, pair.worse)): pair for pair in self.pairs}

    def decided(self) -> int:
        return sum(1 for pair in self.pairs if pair.decision != compute.OPEN)

    def retirable(self) -> list[str]:
        """Systems still racing whose every pair is decided (racing campaigns retire them)."""
        return [
            name for name in self.order if name not in self.retired and compute.all_pairs_decided(name, self.by_pair())
        ]


def _per_instance_means(campaign: Campaign) -> tuple[list[str], npt.NDArray[np.float64]]:
    """(system names, per-instance mean scores in rating order (systems x instances; NaN where a system
    is not complete on an instance: fewer counted ratings than the campaign's M))."""
    systems = results.campaign_systems(campaign)
    matrix = results.instance_score_matrix(campaign, systems=systems)
    # The matrix's columns are the instances in use (a retired instance leaves every comparison), in sample order.
    order = list(campaign.sampled.in_use().order_by("position").values_list("rating_order", flat=True))
    if matrix.sums.size and all(place is not None for place in order):
        columns = np.argsort(np.asarray(order))
        sums, counts = matrix.sums[:, columns], matrix.counts[:, columns]
    else:
        sums, counts = matrix.sums, matrix.counts
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts >= campaign.raters_per_item, sums / np.maximum(counts, 1), np.nan)
    return [system.name for system in systems], means


def _complete_prefix(complete: npt.NDArray[np.bool_]) -> int:
    """How many leading instances are complete (a boolean vector)."""
    missing = np.flatnonzero(~complete)
    return int(missing[0]) if missing.size else int(complete.size)


def sequential_status(campaign: Campaign, alpha: float = SEQUENTIAL_ALPHA) -> SequentialStatus:
    """The decisions of every pair of the campaign's systems (the Human pseudo-system included).

    A pair's observations are its two systems' per-instance mean scores on the leading instances of
    the rating order on which both are complete (a prefix, so a simple random sample); ``instances_seen``
    is the prefix on which every system still racing is complete.
    """
    names, means = _per_instance_means(campaign)
    retired = dict(SystemRetirement.objects.filter(campaign=campaign).values_list("system__name", "instances"))
    complete = ~np.isnan(means)
    prefix = {name: _complete_prefix(complete[row]) for row, name in enumerate(names)}
    level = compute.pair_alpha(alpha, len(names))
    # Looks without a new rating in between read the pairs from the cache (keyed by the ratings they use).
    key = "comve:sequential:" + results.digest(
        np.asarray(names, dtype=object),
        np.nan_to_num(means, nan=-1.0),
        [level, campaign.tie_margin, SEQUENTIAL_BET_TRUNCATION],
        np.asarray([prefix[name] for name in names]),
        np.asarray([compute.METHOD], dtype=object),
    )
    pairs = cache.get(key)
    if pairs is None:
        pairs = compute.pair_decisions(
            names,
            np.nan_to_num(means),
            [prefix[name] for name in names],
            level,
            SEQUENTIAL_BET_TRUNCATION,
            campaign.tie_margin,
        )
        cache.set(key, pairs, RESULTS_CACHE_SECONDS)
    observed = {
        name: float(np.mean(means[row, : prefix[name]])) if prefix[name] else None for row, name in enumerate(names)
    }
    seen_means = {name: mean for name, mean in observed.items() if mean is not None}
    order = sorted(seen_means, key=lambda name: (-seen_means[name], name))
    racing = [name for name in names if name not in retired]
    seen = min((prefix[name] for name in racing), default=0)
    by_pair = {frozenset((pair.better, pair.worse)): pair for pair in pairs}
    settled = len(order) == len(names) >= 2 and compute.adjacent_pairs_decided(order, by_pair)
    return SequentialStatus(
        alpha, campaign.tie_margin, compute.METHOD, seen, settled, pairs, order, retired, campaign.racing
    )


@dataclass(frozen=True)
class Retired:
    """What :func:`retire_decided_systems` did: the systems retired now, and the items they left unrated."""

    systems: list[str]
    items_closed: int


def retire_decided_systems(campaign: Campaign) -> Retired:
    """Racing: every system whose pairs are all decided stops receiving new items.

    Only in a campaign with ``racing`` on and open. Its open items keep the ratings they have and
    the leases out now (a held lease may still be submitted), and take no new rater: their
    ``needed`` drops to what they hold. The remaining systems go on being rated on the same
    instances, so every open comparison stays paired by instance. Each retirement is recorded with
    the instances the system was complete on (Table 6 footnotes it).
    """
    if not campaign.racing or campaign.status != Campaign.Status.OPEN:
        return Retired([], 0)
    status = sequential_status(campaign)
    names, means = _per_instance_means(campaign)
    complete = ~np.isnan(means)
    done: list[str] = []
    closed = 0
    with transaction.atomic():
        locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
        for name in status.retirable():
            system = next(s for s in results.campaign_systems(locked) if s.name == name)
            _, created = SystemRetirement.objects.get_or_create(
                campaign=locked, system=system, defaults={"instances": _complete_prefix(complete[names.index(name)])}
            )
            if not created:
                continue
            closed += _close_items(locked)
            done.append(name)
    return Retired(done, closed)


def _close_items(campaign: Campaign) -> int:
    """Close the open items that show only retired systems' outputs (an item shared with a system
    still racing stays open); the number closed."""
    retired = SystemRetirement.objects.filter(campaign=campaign).values("system_id")
    still_racing = ItemOutput.objects.filter(campaign=campaign).exclude(output__system_id__in=retired).values("item_id")
    closing = (
        Item.objects.filter(campaign=campaign, kind=Item.Kind.SYSTEM, active_count__lt=F("needed"))
        .exclude(pk__in=still_racing)
        .values_list("pk", flat=True)
    )
    return Item.objects.filter(pk__in=list(closing)).update(needed=F("active_count"))


def retired_counts(campaign: Campaign) -> dict[str, int]:
    """``{system name: instances}`` of the campaign's retired systems (Table 6's footnote)."""
    return dict(SystemRetirement.objects.filter(campaign=campaign).values_list("system__name", "instances"))
