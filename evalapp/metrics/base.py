"""The small base every automatic metric implements, and what a metric hands back.

A metric scores all systems of a study in one call (so that a model-based metric can share
work between systems, e.g. embed each reference once), against a list of references per
instance. A missing output is ``None``: its segment score is NaN and it adds nothing to a
corpus score. No Django imports.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

Hypotheses = Sequence[Sequence[str | None]]  # one list per system, None = no output
References = Sequence[Sequence[str]]  # the reference strings of each instance
Progress = Callable[..., object]  # progress(fraction) or progress(fraction, detail)


def distribution_version(distribution: str) -> str:
    """The installed distribution's version (importlib.metadata), never a module's ``__version__``.

    A module's ``__version__`` is a string its authors forget to bump (bert-score 0.3.13 says
    0.3.12); the distribution metadata is what pip installed. ``"none"`` when not installed.
    """
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "none"


def with_version(signature: str, key: str, version: str, separator: str = ":") -> str:
    """``signature`` with the value after ``key`` + ``separator`` replaced by ``version`` (appended when absent)."""
    pattern = re.compile(rf"(?<![A-Za-z]){re.escape(key)}{re.escape(separator)}[^|()_\s]*")
    if pattern.search(signature):
        return pattern.sub(lambda _: f"{key}{separator}{version}", signature)
    return f"{signature}|{key}{separator}{version}"


@dataclass
class MetricOutput:
    """One named score of a metric for every system.

    ``segment`` is (systems, instances), NaN where a system has no output or the metric has no
    segment-level score. A corpus metric also carries per-segment sufficient statistics
    ``stats`` (systems, instances, k) and ``from_stats`` turning their sum (systems, k) into
    system scores, so a bootstrap can recompute it on resampled instances; a segment-averaged
    metric's system score is the mean of its segment scores.
    """

    name: str
    signature: str
    segment: NDArray[np.float64] | None = None
    stats: NDArray[np.float64] | None = None
    from_stats: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None
    has_segment_scores: bool = True

    def system_scores(self) -> NDArray[np.float64]:
        if self.stats is not None and self.from_stats is not None:
            return np.asarray(self.from_stats(self.stats.sum(axis=1)), dtype=float)
        if self.segment is None:
            raise ValueError(f"{self.name}: neither statistics nor segment scores")
        present = np.isfinite(self.segment)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(present.any(axis=1), np.nansum(self.segment, axis=1) / present.sum(axis=1), np.nan)


def nan_matrix(n_systems: int, n_instances: int) -> NDArray[np.float64]:
    return np.full((n_systems, n_instances), np.nan)


class Metric:
    """A metric family: ``key`` selects it; ``compute`` returns one or more :class:`MetricOutput`."""

    key = ""
    label = ""  # how the run's status line names it ("BERTScore"); the key when empty
    description = ""
    corpus_level = False  # True when its system score is not the mean of segment scores
    has_segment_scores = True
    # True when one output's score depends on the other instances too (BERTScore's idf weights):
    # then stored scores are reused only when nothing changed, never mixed with new ones
    whole_corpus = False

    def signature_for(self, references: References) -> str:
        """The signature the scores of ``references`` carry, known before computing anything."""
        raise NotImplementedError

    def output_names(self) -> list[str]:
        """The names this metric's outputs carry in reports."""
        return [self.key]

    def compute(
        self, hypotheses: Hypotheses, references: References, progress: Progress | None = None
    ) -> list[MetricOutput]:
        """Score every system.

        ``hypotheses``: one list per system, aligned with ``references`` (one list of reference
        strings per instance); ``None`` marks a missing output. ``progress(fraction)`` may be
        called with values in [0, 1].
        """
        raise NotImplementedError

    @staticmethod
    def check_shapes(hypotheses: Hypotheses, references: References) -> None:
        for position, outputs in enumerate(hypotheses):
            if len(outputs) != len(references):
                raise ValueError(f"system {position}: {len(outputs)} outputs for {len(references)} instances")


def report_progress(progress: Progress | None, fraction: float, detail: str | None = None) -> None:
    """Call ``progress(fraction)``, or ``progress(fraction, detail)`` with a count such as
    ``"4,120 of 13,854 sentences"`` when there is one."""
    if progress is None:
        return
    fraction = min(max(fraction, 0.0), 1.0)
    if detail is None:
        progress(fraction)
    else:
        progress(fraction, detail)


def count_detail(done: int, total: int, unit: str) -> str:
    """``"4,120 of 13,854 sentences"``."""
    return f"{done:,} of {total:,} {unit}"


def statistics_output(
    name: str,
    signature: str,
    hypotheses: Hypotheses,
    references: References,
    segment_stats: Callable[[str, int], Any],
    width: int,
    from_stats: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    segment_score: Callable[[NDArray[np.float64]], float] | None = None,
    progress: Progress | None = None,
) -> MetricOutput:
    """A corpus metric's :class:`MetricOutput` from a per-segment statistics function.

    ``segment_stats(hypothesis, i)`` returns ``width`` numbers for the output of instance i;
    ``segment_score(row)``, when given, turns one row into that segment's own score.
    """
    n_systems, n_instances = len(hypotheses), len(references)
    total = sum(h is not None for outputs in hypotheses for h in outputs)
    done = 0
    stats = np.zeros((n_systems, n_instances, width))
    segment = nan_matrix(n_systems, n_instances)
    for k, outputs in enumerate(hypotheses):
        for i, hypothesis in enumerate(outputs):
            if hypothesis is None:
                continue
            stats[k, i] = segment_stats(hypothesis, i)
            if segment_score is not None:
                segment[k, i] = segment_score(stats[k, i])
            done += 1
        report_progress(progress, (k + 1) / n_systems, count_detail(done, total, "outputs"))
    return MetricOutput(
        name,
        signature,
        segment=segment,
        stats=stats,
        from_stats=from_stats,
        has_segment_scores=segment_score is not None,
    )
