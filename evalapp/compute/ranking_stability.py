"""Is the ranking settled? The bootstrap probability that each system's rank and cluster are unchanged at
completion, given the ratings so far. No Django imports.

A running campaign has, for every team k and sampled instance i, ``counts[k, i]`` of its M ratings and
their sum. One bootstrap replicate completes the campaign: each team's observed scores are resampled
(a multinomial draw of its own 0-3 score frequencies: the team's score distribution as the bootstrap
sees it), and every missing rating of the team (``M - counts[k, i]`` on each instance) is drawn from that
resampled distribution. On the completed matrix the replicate computes what Table 6 would show:
competition ranks on the displayed (two-decimal) human scores, and the significance clusters with the
paired permutation test and Holm correction of :mod:`.significance`.

A team's **rank stability** is the share of replicates in which its rank equals its rank now; its
**cluster stability** the share in which the set of teams in its cluster (the teams it is tied with)
equals the set now. The ranking is **settled** when every team's two shares reach the threshold
(``STABILITY_THRESHOLD`` in ``core/defaults.py``) and every team of the campaign has ratings (a team never
rated has no rank to keep). A complete campaign has nothing left to draw, so every share is 1.

The draws treat a team's missing ratings as exchangeable with its observed ones (the same raters'
mix, instances like the ones rated): the organizer's order of rating (random, as the engine leases)
makes that reasonable; a campaign that rates its easiest instances first would look settled too early.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
from numpy.typing import ArrayLike, NDArray

from evalapp.compute.ranks import HUMAN_DIGITS, competition_ranks
from evalapp.compute.significance import clusters, compare_systems

SCORE_VALUES = np.arange(4)


class SystemStability(TypedDict):
    """One system of the JSON form (the API's and the command's)."""

    system: str
    rank: int | None
    cluster: int | None
    rank_stability: float
    cluster_stability: float


class StabilityReport(TypedDict):
    settled: bool
    threshold: float
    replicates: int
    problem: str | None
    systems: list[SystemStability]


@dataclass(frozen=True)
class Stability:
    """Per team (best first): rank and cluster now, and the shares of replicates that keep them."""

    teams: list[str]
    ranks: list[int | None]
    clusters: list[int | None]
    rank_stability: list[float]
    cluster_stability: list[float]
    replicates: int
    threshold: float
    unrated: tuple[str, ...] = ()  # teams of the campaign without a single counted rating: never settled
    problem: str | None = None  # why it was not estimated (then never settled)

    @property
    def settled(self) -> bool:
        return (
            bool(self.teams)
            and not self.unrated
            and self.problem is None
            and all(min(r, c) >= self.threshold for r, c in zip(self.rank_stability, self.cluster_stability))
        )

    def as_dict(self) -> StabilityReport:
        rated: list[SystemStability] = [
            {"system": team, "rank": rank, "cluster": cluster, "rank_stability": rs, "cluster_stability": cs}
            for team, rank, cluster, rs, cs in zip(
                self.teams, self.ranks, self.clusters, self.rank_stability, self.cluster_stability
            )
        ]
        unrated: list[SystemStability] = [
            {"system": team, "rank": None, "cluster": None, "rank_stability": 0.0, "cluster_stability": 0.0}
            for team in self.unrated
        ]
        return {
            "settled": self.settled,
            "threshold": self.threshold,
            "replicates": self.replicates,
            "problem": self.problem,
            "systems": rated + unrated,
        }


def ranking(
    teams: Sequence[str],
    sums: NDArray[np.float64],
    counts: NDArray[np.int64],
    permutations: int,
    seed: int,
    alpha: float,
) -> tuple[list[int | None], list[int | None]]:
    """(competition ranks on displayed scores, cluster numbers) of ``teams`` as Table 6 would show them.

    ``teams`` must be ordered best first by their current score (as the clusters expect)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = sums.sum(axis=1) / counts.sum(axis=1)
        means = sums / counts
    ranks = competition_ranks(scores.tolist(), HUMAN_DIGITS)
    order = sorted(range(len(teams)), key=lambda k: (-scores[k], teams[k]))
    ordered = [teams[k] for k in order]
    numbers = clusters(ordered, compare_systems(ordered, means[order], permutations, seed, alpha))
    cluster_of = dict(zip(ordered, numbers))
    return ranks, [cluster_of[team] for team in teams]


def _members(numbers: Sequence[int | None]) -> list[frozenset[int]]:
    """For each position, the frozenset of positions sharing its cluster number."""
    groups: dict[int | None, set[int]] = {}
    for position, number in enumerate(numbers):
        groups.setdefault(number, set()).add(position)
    return [frozenset(groups[number]) for number in numbers]


def stability(
    teams: Sequence[str],
    sums: ArrayLike,
    counts: ArrayLike,
    score_counts: ArrayLike,
    raters_per_item: int,
    replicates: int,
    permutations: int,
    seed: int,
    alpha: float,
    threshold: float,
) -> Stability:
    """The :class:`Stability` of ``teams`` (best first, every one with ratings).

    ``sums``/``counts``: (teams x instances) score sums and rating counts so far; ``score_counts``:
    (teams x 4) how many 0, 1, 2 and 3 scores each team has so far; ``raters_per_item``: M.
    """
    sums = np.asarray(sums, dtype=float)
    counts = np.asarray(counts, dtype=np.int64)
    score_counts = np.asarray(score_counts, dtype=np.int64)
    ranks, numbers = ranking(teams, sums, counts, permutations, seed, alpha)
    members = _members(numbers)
    missing = np.clip(raters_per_item - counts, 0, None)
    if not missing.any():
        ones = [1.0] * len(teams)
        return Stability(list(teams), ranks, numbers, ones, ones.copy(), 0, threshold)
    rng = np.random.default_rng(seed)
    same_rank = np.zeros(len(teams))
    same_cluster = np.zeros(len(teams))
    full = np.full(counts.shape, raters_per_item, dtype=np.int64)
    full = np.maximum(full, counts)
    for replicate in range(replicates):
        completed = sums.copy()
        for k in range(len(teams)):
            total = int(score_counts[k].sum())
            resampled = rng.multinomial(total, score_counts[k] / total)
            need = int(missing[k].sum())
            if not need:
                continue
            drawn = rng.choice(SCORE_VALUES, size=need, p=resampled / total).astype(float)
            cells = np.repeat(np.arange(counts.shape[1]), missing[k])
            completed[k] += np.bincount(cells, weights=drawn, minlength=counts.shape[1])
        new_ranks, new_numbers = ranking(teams, completed, full, permutations, seed + 1 + replicate, alpha)
        same_rank += [a == b for a, b in zip(new_ranks, ranks)]
        same_cluster += [a == b for a, b in zip(_members(new_numbers), members)]
    return Stability(
        list(teams),
        ranks,
        numbers,
        (same_rank / replicates).tolist(),
        (same_cluster / replicates).tolist(),
        replicates,
        threshold,
    )
