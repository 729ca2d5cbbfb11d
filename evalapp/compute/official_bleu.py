"""The official BLEU of SemEval-2020 Task 4 Subtask C, as ``taskC_scorer.py`` computes it.

The official scorer is the tensorflow/nmt ``compute_bleu``: tokens are ``str.split()``
(whitespace, case kept), n-grams of order 1..4 are clipped against the MAX count over the
references of an instance, there is no smoothing, and the corpus brevity penalty compares the
hypothesis length with the sum over instances of the SHORTEST reference length. A precision
with nothing to match is 0, and a zero precision makes BLEU 0. The result is on 0-100.

Two cases crash the official scorer (a division by zero); here they have a defined value:
an empty hypothesis corpus scores 0, and a corpus whose shortest references are all empty
gets no brevity penalty.

Corpus BLEU is a function of sums of per-segment statistics, so :func:`segment_stats` and
:func:`stats_matrix` let a bootstrap recompute it on resampled instances with one matrix
product (:func:`bleu_from_totals_array`) instead of re-counting n-grams.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

MAX_ORDER = 4
SCALE = 100.0
SIGNATURE = "comve-bleu|scorer:taskC_scorer.py|tok:whitespace|case:mixed|order:4|smooth:none|eff:shortest"

# Layout of one row of :func:`stats_matrix`: matches per order, possible per order, lengths.
MATCHES = slice(0, MAX_ORDER)
POSSIBLE = slice(MAX_ORDER, 2 * MAX_ORDER)
HYP_LEN = 2 * MAX_ORDER
REF_LEN = 2 * MAX_ORDER + 1
STATS_WIDTH = 2 * MAX_ORDER + 2


def tokenize(text: str) -> list[str]:
    """The official tokenisation: split on any whitespace, case kept."""
    return text.split()


def signature(nrefs: int | str | None = None) -> str:
    """The metric's signature string, with the number of references when known."""
    return SIGNATURE if nrefs is None else f"{SIGNATURE}|nrefs:{nrefs}"


def _ngram_counts(tokens: Sequence[str], max_order: int) -> Counter[tuple[str, ...]]:
    counts: Counter[tuple[str, ...]] = Counter()
    for order in range(1, max_order + 1):
        for start in range(len(tokens) - order + 1):
            counts[tuple(tokens[start : start + order])] += 1
    return counts


@dataclass(frozen=True)
class SegmentStats:
    """What corpus BLEU needs from one instance: clipped matches and possible matches per
    order, the hypothesis length and the length of the shortest reference."""

    matches: tuple[int, ...]
    possible: tuple[int, ...]
    hyp_len: int
    ref_len: int

    def as_row(self) -> list[int]:
        return [*self.matches, *self.possible, self.hyp_len, self.ref_len]


def segment_stats(hypothesis: str, references: Sequence[str], max_order: int = MAX_ORDER) -> SegmentStats:
    """Sufficient statistics of one instance.

    ``hypothesis`` is a string; ``references`` a list of strings. As in the official scorer,
    empty reference strings are ignored; an instance needs at least one reference.
    """
    reference_tokens = [tokenize(reference) for reference in references if reference]
    if not reference_tokens:
        raise ValueError("an instance needs at least one non-empty reference")
    hyp = tokenize(hypothesis)
    merged: Counter[tuple[str, ...]] = Counter()
    for tokens in reference_tokens:
        merged |= _ngram_counts(tokens, max_order)
    overlap = _ngram_counts(hyp, max_order) & merged
    matches = [0] * max_order
    for ngram, count in overlap.items():
        matches[len(ngram) - 1] += count
    possible = tuple(max(len(hyp) - order + 1, 0) for order in range(1, max_order + 1))
    return SegmentStats(tuple(matches), possible, len(hyp), min(len(tokens) for tokens in reference_tokens))


@dataclass(frozen=True)
class BleuResult:
    """Corpus BLEU (0-100) with the figures it is made of."""

    score: float
    precisions: tuple[float, ...]
    brevity_penalty: float
    ratio: float
    hyp_len: int
    ref_len: int


def bleu_from_totals(matches: Sequence[int], possible: Sequence[int], hyp_len: int, ref_len: int) -> BleuResult:
    """Corpus BLEU from summed statistics, exactly as the official ``_compute_bleu``."""
    precisions = tuple(m / p if p > 0 else 0.0 for m, p in zip(matches, possible))
    if min(precisions) > 0:
        geo_mean = math.exp(sum((1.0 / len(precisions)) * math.log(p) for p in precisions))
    else:
        geo_mean = 0.0
    ratio = hyp_len / ref_len if ref_len > 0 else math.inf
    if ratio > 1.0:
        brevity_penalty = 1.0
    elif ratio == 0:
        brevity_penalty = 0.0
    else:
        brevity_penalty = math.exp(1 - 1 / ratio)
    return BleuResult(geo_mean * brevity_penalty * SCALE, precisions, brevity_penalty, ratio, hyp_len, ref_len)


def corpus_stats(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> list[SegmentStats]:
    """Per-instance statistics; ``references[i]`` is the list of references of instance i."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
    return [segment_stats(hyp, refs) for hyp, refs in zip(hypotheses, references)]


def bleu_from_stats(stats: Sequence[SegmentStats]) -> BleuResult:
    """Corpus BLEU of a list of :class:`SegmentStats`."""
    matches = [sum(s.matches[i] for s in stats) for i in range(MAX_ORDER)]
    possible = [sum(s.possible[i] for s in stats) for i in range(MAX_ORDER)]
    return bleu_from_totals(matches, possible, sum(s.hyp_len for s in stats), sum(s.ref_len for s in stats))


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> BleuResult:
    """The official Subtask C BLEU of a whole corpus."""
    return bleu_from_stats(corpus_stats(hypotheses, references))


def stats_matrix(stats: Sequence[SegmentStats]) -> NDArray[np.int64]:
    """Per-segment statistics as an ``(n, STATS_WIDTH)`` integer array (columns: see MATCHES...)."""
    return np.array([s.as_row() for s in stats], dtype=np.int64).reshape(len(stats), STATS_WIDTH)


def bleu_from_totals_array(totals: ArrayLike) -> NDArray[np.float64]:
    """Vectorised :func:`bleu_from_totals` over rows of summed statistics.

    ``totals`` has shape ``(B, STATS_WIDTH)``, e.g. ``weights @ stats_matrix(stats)`` where
    each row of ``weights`` counts how often a bootstrap resample drew each instance.
    Returns ``B`` BLEU scores on 0-100.
    """
    totals = np.asarray(totals, dtype=np.float64)
    if totals.ndim == 1:
        totals = totals[np.newaxis, :]
    matches, possible = totals[:, MATCHES], totals[:, POSSIBLE]
    hyp_len, ref_len = totals[:, HYP_LEN], totals[:, REF_LEN]
    with np.errstate(divide="ignore", invalid="ignore"):
        if every_column((matches > 0) & (possible > 0)).all():  # corpus totals nearly always: every precision positive
            geo_mean = np.exp(_log_sum(np.log(matches / possible)) / matches.shape[1])
        else:
            precisions = np.where(possible > 0, matches / np.where(possible > 0, possible, 1), 0.0)
            positive = precisions > 0
            log_mean = _log_sum(np.log(np.where(positive, precisions, 1.0))) / matches.shape[1]
            geo_mean = np.where(every_column(positive), np.exp(log_mean), 0.0)
        ratio = np.where(ref_len > 0, hyp_len / np.where(ref_len > 0, ref_len, 1), np.inf)
        brevity_penalty = np.where(
            ratio > 1.0, 1.0, np.where(ratio == 0, 0.0, np.exp(1 - 1 / np.where(ratio == 0, 1, ratio)))
        )
    scores: NDArray[np.float64] = geo_mean * brevity_penalty * SCALE
    return scores


def _log_sum(logs: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each row's logarithms added order by order, as NumPy's mean over a row of a few adds them."""
    total = logs[:, 0].copy()
    for order in range(1, logs.shape[1]):
        total += logs[:, order]
    return total


def every_column(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """``mask.all(axis=1)`` for a (rows, a few columns) mask, column by column (NumPy's reduction over a short
    strided axis is several times slower). Also the sacreBLEU scores' (:mod:`evalapp.metrics.sacrebleu_metrics`)."""
    every: NDArray[np.bool_] = mask[:, 0].copy()
    for column in range(1, mask.shape[1]):
        every &= mask[:, column]
    return every
