"""Table 6 of the task paper as typed results, and their versioned JSON form. No Django imports.

Why typed: Table 6 is read by six renderers (CSV, JSON, Markdown, LaTeX, the page and its charts), the API and
the commands; as nested dicts every reader repeated the key names and a missing one failed at run time. As
mt-metrics-eval keeps a task's results in ``TaskResults``, the figures live in these dataclasses, filled by
:func:`evalapp.services.results.table6`; :mod:`evalapp.formats.table6` renders them by attribute.

The JSON form (:meth:`Table6.as_dict`, read back by :meth:`Table6.from_dict`) is the S5 contract: its keys are
the ones every export has always had, plus ``format_version`` (:data:`FORMAT_VERSION`), raised whenever a key
changes meaning or goes away.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from evalapp.compute.rater_effects import Z_METHOD, MixedModelFit
from evalapp.compute.rater_uncertainty import TInterval
from evalapp.compute.significance import RULE_TEXT, RuledComparison

# The version of Table 6's JSON form; 1: the keys of the exports before it was versioned (issue 21).
FORMAT_VERSION = 1
SECONDARY_TEXT = "formula (1) is the headline; these columns correct for who rated what"
# The Human pseudo-system's name (``core.models.System.HUMAN_NAME``; a test holds them equal): its row comes first.
HUMAN_TEAM = "Human"
P_VALUE_TEXT = "one-sided: P(t_df >= difference / standard_error), better beats worse"


@dataclass(frozen=True)
class Table6Row:
    """One row of Table 6: a team, or the Human pseudo-system (human score only)."""

    team: str
    marker: str
    bleu: float | None
    bleu_rank: int | None
    human: float | None
    human_rank: int | None
    ratings: int
    expected_ratings: int
    complete: bool
    is_human: bool = False
    ci: TInterval | None = None  # the rater-aware interval of the human score, when computed
    cluster: int | None = None  # the significance cluster of a team, when computed
    human_z: float | None = None  # secondary: mean per-rater z-score
    human_adjusted: float | None = None  # secondary: the mixed model's system effect
    human_adjusted_low: float | None = None  # its Wald interval
    human_adjusted_high: float | None = None

    @property
    def label(self) -> str:
        """The team as the paper prints it: name and marker."""
        return f"{self.team}{self.marker}"

    @property
    def coverage(self) -> float:
        return self.ratings / self.expected_ratings if self.expected_ratings else 0.0

    def as_dict(self, with_intervals: bool = False) -> dict[str, Any]:
        """The S5 record of the row (unrounded), with ``ci`` and ``cluster`` when intervals were computed."""
        entry: dict[str, Any] = {
            "team": self.team,
            "marker": self.marker,
            "bleu": self.bleu,
            "bleu_rank": self.bleu_rank,
            "human": self.human,
            "human_rank": self.human_rank,
            "ratings": self.ratings,
            "expected_ratings": self.expected_ratings,
            "complete": self.complete,
            "human_z": self.human_z,
            "human_adjusted": self.human_adjusted,
            "human_adjusted_low": self.human_adjusted_low,
            "human_adjusted_high": self.human_adjusted_high,
        }
        if with_intervals:
            entry["ci"], entry["cluster"] = (self.ci.as_dict() if self.ci else None), self.cluster
        return entry

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any], is_human: bool) -> Table6Row:
        ci = entry.get("ci")
        return cls(
            entry["team"],
            entry["marker"],
            entry["bleu"],
            entry["bleu_rank"],
            entry["human"],
            entry["human_rank"],
            entry["ratings"],
            entry["expected_ratings"],
            entry["complete"],
            is_human=is_human,
            ci=TInterval(**ci) if ci else None,
            cluster=entry.get("cluster"),
            human_z=entry["human_z"],
            human_adjusted=entry["human_adjusted"],
            human_adjusted_low=entry["human_adjusted_low"],
            human_adjusted_high=entry["human_adjusted_high"],
        )


@dataclass(frozen=True)
class IntervalSettings:
    """How the rows' intervals were made: the method's name, the level, the design's size, any fallback."""

    method: str
    level: float
    raters: int
    instances: int
    fallback: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "level": self.level,
            "raters": self.raters,
            "instances": self.instances,
            "fallback": self.fallback,
        }


@dataclass(frozen=True)
class Significance:
    """The teams' significance clusters under a named rule (``holm`` or ``wmt``), and every pairwise comparison."""

    test: str
    rule: str
    alpha: float
    clusters: dict[str, int] = field(default_factory=dict)  # {team: cluster number}
    comparisons: list[RuledComparison] = field(default_factory=list)

    @property
    def rule_description(self) -> str:
        return RULE_TEXT[self.rule]

    def as_dict(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "rule": self.rule,
            "rule_description": self.rule_description,
            "alpha": self.alpha,
            "p_value": P_VALUE_TEXT,
            "clusters": self.clusters,
            "comparisons": [c.as_dict() for c in self.comparisons],
        }


@dataclass(frozen=True)
class SecondaryColumns:
    """The secondary columns' methods: the mixed model's fit (its figures are on the rows) and, when neither
    column can be estimated, why."""

    fit: MixedModelFit
    not_estimable: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "human_z": Z_METHOD,
            "human_adjusted": self.fit.as_dict(),
            "secondary": SECONDARY_TEXT
            + (f"; human_z and human_adjusted are empty: {self.not_estimable}" if self.not_estimable else ""),
            "not_estimable": self.not_estimable,
        }


class CountedNotes(Protocol):
    """What no figure counts (:class:`core.models.LeftOut`): the excluded raters and control items."""

    @property
    def excluded_raters(self) -> int: ...

    @property
    def excluded_ratings(self) -> int: ...

    @property
    def control_items(self) -> int: ...

    @property
    def control_ratings(self) -> int: ...


@dataclass(frozen=True)
class LeftOutCounts:
    """:class:`CountedNotes` read back from the JSON form."""

    excluded_raters: int
    excluded_ratings: int
    control_items: int
    control_ratings: int


@dataclass(frozen=True)
class Table6:
    """Table 6 of the task paper for one campaign, with its intervals and clusters when computed."""

    campaign: str
    rows: tuple[Table6Row, ...]
    raters_per_item: int
    instances: int
    intervals: IntervalSettings | None = None
    significance: Significance | None = None
    rater_effects: SecondaryColumns | None = None  # the secondary columns' methods and the mixed model's fit
    counted: CountedNotes | None = None  # what was left out: excluded raters and their ratings, control items
    retired: tuple[tuple[str, int], ...] = ()  # (system, instances) retired by racing (stopping early)
    retired_instances: tuple[tuple[str, str], ...] = ()  # (instance id, reason) of each retired instance

    @property
    def with_intervals(self) -> bool:
        return self.intervals is not None

    def as_dict(self) -> dict[str, Any]:
        """The versioned JSON form: ``{"format_version", "campaign", "instances", "raters_per_item", "rows"}`` and,
        when there are, ``counted``, ``intervals`` with ``significance``, ``secondary``, ``retired_instances``."""
        document: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "campaign": self.campaign,
            "instances": self.instances,
            "raters_per_item": self.raters_per_item,
            "rows": [row.as_dict(self.with_intervals) for row in self.rows],
        }
        if self.counted is not None:
            document["counted"] = {
                "excluded_raters": self.counted.excluded_raters,
                "excluded_ratings": self.counted.excluded_ratings,
                "control_items": self.counted.control_items,
                "control_ratings": self.counted.control_ratings,
            }
        if self.intervals is not None:
            document["intervals"] = self.intervals.as_dict()
            document["significance"] = self.significance.as_dict() if self.significance else None
        if self.rater_effects is not None:
            document["secondary"] = self.rater_effects.as_dict()
        if self.retired_instances:
            document["retired_instances"] = [
                {"instance": instance, "reason": reason} for instance, reason in self.retired_instances
            ]
        return document

    @classmethod
    def from_dict(cls, document: Mapping[str, Any]) -> Table6:
        """Read the JSON form back (what :meth:`as_dict` wrote, of this :data:`FORMAT_VERSION`).

        The JSON form does not carry the racing retirements (a note of the text formats) nor the mixed model's
        per-system fit (its figures are on the rows); the Human row is the first row named :data:`HUMAN_TEAM`.
        """
        version = document.get("format_version")
        if version != FORMAT_VERSION:
            raise ValueError(f"Table 6 JSON format_version {version!r}; this version reads {FORMAT_VERSION}")
        significance = document.get("significance")
        secondary = document.get("secondary")
        counted = document.get("counted")
        return cls(
            document["campaign"],
            tuple(
                Table6Row.from_dict(entry, is_human=index == 0 and entry["team"] == HUMAN_TEAM)
                for index, entry in enumerate(document["rows"])
            ),
            document["raters_per_item"],
            document["instances"],
            IntervalSettings(**document["intervals"]) if document.get("intervals") else None,
            _significance(significance) if significance else None,
            _secondary(secondary) if secondary else None,
            LeftOutCounts(**counted) if counted else None,
            (),
            tuple((entry["instance"], entry["reason"]) for entry in document.get("retired_instances", ())),
        )


def _significance(entry: Mapping[str, Any]) -> Significance:
    return Significance(
        entry["test"],
        entry["rule"],
        entry["alpha"],
        dict(entry["clusters"]),
        [RuledComparison(**comparison) for comparison in entry["comparisons"]],
    )


def _secondary(entry: Mapping[str, Any]) -> SecondaryColumns:
    fit = entry["human_adjusted"]
    return SecondaryColumns(
        MixedModelFit(
            {},
            fit["converged"],
            fit["rater_variance"],
            fit["instance_variance"],
            fit["residual_variance"],
            fit["level"],
            fit["problem"],
        ),
        entry["not_estimable"],
    )
