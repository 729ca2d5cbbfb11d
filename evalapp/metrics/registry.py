"""The built-in metrics by key, and the names their outputs carry in reports."""

from __future__ import annotations

from typing import Any

from evalapp.metrics.base import Metric
from evalapp.metrics.bertscore import BertScore
from evalapp.metrics.comve_bleu import ComveBleu
from evalapp.metrics.sacrebleu_metrics import Chrf, SacreBleu, SentenceBleu

METRICS: dict[str, type[Metric]] = {cls.key: cls for cls in (ComveBleu, SacreBleu, Chrf, SentenceBleu, BertScore)}
DEFAULT_METRICS = tuple(METRICS)


class UnknownMetric(ValueError):
    pass


def metric_class(key: str) -> type[Metric]:
    try:
        return METRICS[key]
    except KeyError:
        raise UnknownMetric(f"unknown metric '{key}'; built-in metrics: {', '.join(METRICS)}") from None


def build(key: str, bertscore_options: dict[str, Any] | None = None) -> Metric:
    """An instance of the built-in metric ``key``; ``bertscore_options`` go to BertScore."""
    cls = metric_class(key)
    return cls(**(bertscore_options or {})) if cls is BertScore else cls()


def builtin_output_names() -> set[str]:
    """Every report name a built-in metric can produce (imported metrics may not reuse them)."""
    names: set[str] = set()
    for cls in METRICS.values():
        names.update(cls().output_names())
    return names
