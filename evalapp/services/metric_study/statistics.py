"""The metric study's pure step: the figures from the metric scores and the ratings. No Django imports.

Everything the study computes is in :func:`evalapp.compute.correlation_study.correlation_report`;
this module turns the study's scores (one :class:`ComputedMetric` per metric output, the human
rating sums and counts) into its input, leaving the Human pseudo-system and the systems without a
human score out of every correlation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from evalapp.compute.correlation_study import CAMPAIGN_DOMAIN, MetricData, Resampler, StudyData, correlation_report

Progress = Callable[[float, str], None]


@dataclass
class ComputedMetric:
    """One metric output's scores for the campaign's systems (built-in or imported)."""

    name: str
    signature: str
    source: str
    description: str
    system: NDArray[np.float64]
    resampler: Resampler | None = None
    segment: NDArray[np.float64] | None = None  # (systems, campaign instances)
    notes: list[str] = field(default_factory=list)


def correlated_rows(is_human: Sequence[bool], has_human_score: Sequence[bool]) -> list[int]:
    """The systems in the correlations: not the Human pseudo-system, and with a human score."""
    return [k for k, (human, scored) in enumerate(zip(is_human, has_human_score, strict=True)) if not human and scored]


def study_data(
    names: Sequence[str],
    rows: Sequence[int],
    sums: NDArray[np.float64],
    counts: NDArray[np.float64] | NDArray[np.int64],
    computed: Sequence[ComputedMetric],
) -> StudyData:
    """The correlations' input: the rows' human rating sums and counts, and every metric's scores."""
    index = list(rows)
    return StudyData(
        [names[k] for k in index],
        Resampler.ratio(sums[index], counts[index], CAMPAIGN_DOMAIN),
        [
            MetricData(
                m.name,
                m.system[index],
                m.resampler.rows(index) if m.resampler else None,
                m.segment[index] if m.segment is not None else None,
            )
            for m in computed
        ],
    )


def figures(
    data: StudyData,
    *,
    seed: int,
    bootstrap: int,
    top_k: int | None,
    permutations: int,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Every correlation figure (the dict of :func:`~evalapp.compute.correlation_study.correlation_report`)."""
    result: dict[str, Any] = correlation_report(
        data, bootstrap=bootstrap, seed=seed, top_k=top_k, permutations=permutations, progress=progress
    )
    return result


def finite(value: float) -> float | None:
    """A figure as JSON keeps it: None when it is not a number."""
    return float(value) if np.isfinite(value) else None
