"""The metric study's report: which metrics, then texts -> scores -> statistics -> the typed report.

:func:`build_report` is what a metric run computes (``runs.py``); the report is a
:class:`~evalapp.compute.metric_study_report.MetricReport`, stored as its versioned JSON form.
"""

from __future__ import annotations

import importlib.metadata
import platform
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from core.defaults import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    METRIC_STUDY_COMPUTE_SHARE,
    METRIC_STUDY_PERMUTATIONS,
    SCORE_MAX,
    SCORE_MIN,
    TOP_K_MIN,
)
from core.models import Campaign, System
from evalapp.compute.human_score import RatingRecords
from evalapp.compute.metric_study_report import (
    VERSION_PACKAGES,
    BootstrapSettings,
    Comparison,
    Figures,
    Instances,
    MetricInfo,
    MetricRanking,
    MetricReport,
    SoftPairwise,
    SystemRow,
    TopK,
)
from evalapp.formats.metric_report import jsonable
from evalapp.metrics import registry
from evalapp.services import results
from evalapp.services.metric_study import statistics
from evalapp.services.metric_study.score_cache import compute_builtin, study_fingerprint
from evalapp.services.metric_study.score_import import imported_metric_names, load_imported
from evalapp.services.metric_study.statistics import Progress
from evalapp.services.metric_study.texts import DATASET_DOMAIN, DEFAULT_CORPUS_SCOPE, StudyError, load_corpus


def choose_metrics(campaign: Campaign, metrics: Sequence[str] | None = None) -> tuple[list[str], list[str]]:
    """Split requested names into built-in keys and imported names; default: all of both.

    A built-in output name (e.g. ``bertscore_f1``) selects its metric (``bertscore``).
    """
    imported = imported_metric_names(campaign)
    if not metrics:
        return list(registry.DEFAULT_METRICS), imported
    output_key = {name: key for key, cls in registry.METRICS.items() for name in cls().output_names()}
    builtin: list[str] = []
    chosen_imported: list[str] = []
    unknown: list[str] = []
    for name in metrics:
        key = name if name in registry.METRICS else output_key.get(name)
        if key is not None:
            if key not in builtin:
                builtin.append(key)
        elif name in imported:
            chosen_imported.append(name)
        else:
            unknown.append(name)
    if unknown:
        raise StudyError(
            f"unknown metric(s) {', '.join(unknown)}; built-in: {', '.join(registry.METRICS)}; "
            f"imported in this campaign: {', '.join(imported) or 'none'}"
        )
    return builtin, chosen_imported


def versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {"python": platform.python_version()}
    for package in VERSION_PACKAGES:
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = None
    return found


def rating_histograms(records: Iterable[Any], systems: Sequence[System]) -> dict[str, list[int]]:
    """``{system: [count of score 0, 1, 2, 3]}`` over the counted ratings."""
    histograms = {system.name: [0] * (SCORE_MAX - SCORE_MIN + 1) for system in systems}
    for _, system, _, score in records:
        if system in histograms:
            histograms[system][score - SCORE_MIN] += 1
    return histograms


def _notes(corpus_scope: str) -> list[str]:
    return [
        (
            f"System-level metric scores use the "
            f"{'whole dataset' if corpus_scope == DATASET_DOMAIN else 'sampled instances'}"
            " (corpus scope); segment-level scores use the campaign's sampled instances."
        ),
        "The Human pseudo-system is listed but left out of every correlation.",
        (
            "Segment-level human score: mean rating of the output; grouped_by_instance: mean of the per-instance "
            "coefficients over the instances where it is defined."
        ),
    ]


def build_report(
    campaign: Campaign,
    metrics: Sequence[str] | None = None,
    seed: int = DEFAULT_SEED,
    bootstrap: int = DEFAULT_RESAMPLES,
    top_k: int | None = None,
    permutations: int = METRIC_STUDY_PERMUTATIONS,
    corpus_scope: str = DEFAULT_CORPUS_SCOPE,
    bertscore_options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    records: RatingRecords | None = None,
    fingerprint: str | None = None,
) -> MetricReport:
    """Compute the chosen metrics and every figure (protocol.md#correlations): the report (protocol.md#contracts).

    ``progress(fraction, message)`` is called as the work advances; ``records`` are the campaign's counted
    ratings when the caller has read them already (``results.ratings_records``), ``fingerprint`` their
    :func:`study_fingerprint` when it has computed it (a run looking for a report to reuse): it is not
    computed twice. The ratings, texts and imported scores must not change in between (the run's reuse check
    and its report are one read of the same state).
    """
    if bootstrap < 0 or permutations < 1 or (top_k is not None and top_k < TOP_K_MIN):
        raise StudyError("bootstrap must be >= 0, permutations >= 1 and top-k >= 2")
    builtin, imported = choose_metrics(campaign, metrics)
    corpus = load_corpus(campaign, corpus_scope)
    records = results.ratings_records(campaign) if records is None else records
    if not len(records):
        raise StudyError(f"campaign '{campaign.name}' has no counted ratings yet: there is nothing to correlate with")
    scores = results.human_scores(campaign, records)
    matrix = results.instance_score_matrix(campaign, records, corpus.systems)

    def compute_step(fraction: float, message: str) -> None:
        if progress is not None:
            progress(fraction * METRIC_STUDY_COMPUTE_SHARE, message)

    computed = compute_builtin(campaign, builtin, corpus_scope, bertscore_options, compute_step, corpus)
    computed += [load_imported(campaign, name, corpus) for name in imported]
    rows = statistics.correlated_rows(
        [s.is_human for s in corpus.systems], [scores[s.name]["human"] is not None for s in corpus.systems]
    )
    data = statistics.study_data([s.name for s in corpus.systems], rows, matrix.sums, matrix.counts, computed)

    def bootstrap_step(fraction: float, detail: str) -> None:
        if progress is not None:
            progress(METRIC_STUDY_COMPUTE_SHARE + fraction * (1 - METRIC_STUDY_COMPUTE_SHARE), detail)

    found = jsonable(
        statistics.figures(
            data, seed=seed, bootstrap=bootstrap, top_k=top_k, permutations=permutations, progress=bootstrap_step
        )
    )
    boot = found["bootstrap"]
    report = MetricReport(
        campaign=campaign.name,
        fingerprint=fingerprint or study_fingerprint(campaign, records),
        dataset=campaign.dataset.name,
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        instances=Instances(len(corpus.campaign_columns), corpus_scope, len(corpus.instances)),
        excluded_reference=corpus.excluded_reference,
        systems=[
            SystemRow(
                system.name,
                system.is_human,
                k in rows,
                scores[system.name]["human"],
                scores[system.name]["ratings"],
                scores[system.name]["expected_ratings"],
                scores[system.name]["complete"],
                {m.name: statistics.finite(m.system[k]) for m in computed},
            )
            for k, system in enumerate(corpus.systems)
        ],
        metrics=[MetricInfo(m.name, m.source, m.description, m.segment is not None, m.notes) for m in computed],
        metric_ranking=MetricRanking.from_json(found["metric_ranking"]),
        soft_pairwise=SoftPairwise.from_json(found["soft_pairwise"]),
        figures=Figures.from_json(found),
        comparisons=[Comparison.from_json(c) for c in found["comparisons"]],
        top_k=TopK.from_json(found["top_k"]),
        bootstrap=BootstrapSettings(boot["resamples"], boot["seed"], boot["confidence"], boot["method"]),
        ci_methods=found["ci_methods"],
        permutation=found["permutation"],
        signatures={m.name: m.signature for m in computed},
        versions=versions(),
        seed=seed,
        rating_histograms=rating_histograms(records, corpus.systems),
        notes=_notes(corpus_scope),
    )
    if progress is not None:
        progress(1.0, "done")
    return report
