"""sacreBLEU's corpus BLEU and chrF, and sentence-level BLEU, with sacreBLEU's own signatures.

The per-segment statistics are sacreBLEU's (its reference cache and segment statistics), so
the corpus scores equal ``corpus_score`` and the segment scores ``sentence_score``; keeping
the statistics lets a bootstrap recompute the corpus scores on resampled instances. Defaults
are sacreBLEU's: BLEU with the 13a tokenizer, case kept, exponential smoothing; chrF2
(character 6-grams, beta 2); sentence BLEU with effective order, as sacreBLEU recommends.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.metrics.base import Metric as SacreScorer

from evalapp.compute.official_bleu import every_column
from evalapp.metrics.base import (
    Hypotheses,
    Metric,
    MetricOutput,
    Progress,
    References,
    distribution_version,
    statistics_output,
    with_version,
)

FloatArray = NDArray[np.float64]
# The sacreBLEU scorer a metric runs (BLEU or CHRF): each subclass reads its own scorer's settings.
ScorerT = TypeVar("ScorerT", bound=SacreScorer)


def reference_streams(references: References) -> list[list[str | None]]:
    """Per-instance reference lists to sacreBLEU's streams (one list per reference position; None pads)."""
    width = max((len(refs) for refs in references), default=0)
    return [[refs[j] if j < len(refs) else None for refs in references] for j in range(width)]


LOG_FLOOR = -9999999999  # sacrebleu.utils.my_log(0)


def bleu_exp_scores(stats: ArrayLike, max_order: int = 4) -> FloatArray:
    """sacreBLEU's ``BLEU.compute_bleu`` (exponential smoothing, no effective order) on rows of
    statistics [sys_len, ref_len, correct_1..N, total_1..N], vectorised with the same
    operations in the same order, so the scores are the same floats. When every row has matches at
    every order (corpus totals of real texts nearly always), none needs smoothing and they take the short
    way: all orders at once, the logarithms added order by order from 0 as sacreBLEU's ``sum``."""
    stats = np.asarray(stats, float)
    sys_len, ref_len = np.floor(stats[:, 0]), np.floor(stats[:, 1])
    correct, total = stats[:, 2 : 2 + max_order], stats[:, 2 + max_order : 2 + 2 * max_order]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bp = np.where(
            sys_len < ref_len, np.where(sys_len > 0, np.exp(1 - ref_len / np.where(sys_len > 0, sys_len, 1)), 0.0), 1.0
        )
        if every_column((correct > 0) & (total > 0)).all():  # no smoothing, no stop: the short way
            log_sum = _plain_log_sum(correct, total, max_order)
        else:  # taking the rows apart costs more than the short way saves on some of them
            log_sum = _smoothed_log_sum(correct, total, max_order)
        score = bp * np.exp(log_sum / max_order)
    return np.where(~every_column(correct == 0), score, 0.0)


def _plain_log_sum(correct: FloatArray, total: FloatArray, max_order: int) -> FloatArray:
    """The sum of the logarithms of sacreBLEU's precisions, order by order, where every order has matches."""
    logs = np.log(100.0 * correct / total)
    log_sum = logs[:, 0].copy()
    for n in range(1, max_order):
        log_sum += logs[:, n]
    return log_sum


def _smoothed_log_sum(correct: FloatArray, total: FloatArray, max_order: int) -> FloatArray:
    """The sum of the logarithms of sacreBLEU's exponentially smoothed precisions, order by order."""
    smooth = np.ones(len(correct))
    running = np.ones(len(correct), bool)  # sacreBLEU stops at the first order with no n-grams
    log_sum = np.zeros(len(correct))
    for n in range(max_order):
        running &= total[:, n] != 0
        zero = running & (correct[:, n] == 0)
        smooth = np.where(zero, smooth * 2, smooth)
        safe_total = np.where(total[:, n] != 0, total[:, n], 1)
        precision = np.where(
            running,
            np.where(correct[:, n] == 0, 100.0 / (smooth * safe_total), 100.0 * correct[:, n] / safe_total),
            0.0,
        )
        log_sum = log_sum + np.where(precision == 0.0, LOG_FLOOR, np.log(np.where(precision > 0, precision, 1)))
    return log_sum


def chrf_scores(stats: ArrayLike, order: int, beta: float) -> FloatArray:
    """sacreBLEU's ``CHRF._compute_f_score`` (effective-order averaging) on rows of statistics
    [hyp, ref, match] per order, vectorised with the same operations in the same order: the
    precisions and recalls of the orders that count at once, added order by order."""
    stats = np.asarray(stats, float)
    triples = stats[:, : 3 * order].reshape(len(stats), order, 3)
    n_hyp, n_ref, n_match = triples[..., 0], triples[..., 1], triples[..., 2]
    factor = beta**2
    both = (n_hyp > 0) & (n_ref > 0)  # an order counts when both sides have n-grams
    prec = np.divide(n_match, n_hyp, out=np.zeros(both.shape), where=both)
    rec = np.divide(n_match, n_ref, out=np.zeros(both.shape), where=both)
    avg_prec, avg_rec = prec[:, 0].copy(), rec[:, 0].copy()  # 0 + the first; adding 0.0 leaves a sum as it is
    for i in range(1, order):
        avg_prec += prec[:, i]
        avg_rec += rec[:, i]
    effective = both.sum(axis=1).astype(float)
    counted = effective > 0
    avg_prec = np.divide(avg_prec, effective, out=np.zeros(len(stats)), where=counted)
    avg_rec = np.divide(avg_rec, effective, out=np.zeros(len(stats)), where=counted)
    denominator = (factor * avg_prec) + avg_rec
    score = (1 + factor) * avg_prec * avg_rec
    np.divide(score, denominator, out=score, where=denominator != 0)
    return np.where(avg_prec + avg_rec != 0, 100 * score, 0.0)


class _SacreMetric(Metric, Generic[ScorerT]):
    """Runs one sacreBLEU metric object over all systems with one reference cache."""

    corpus_level = True
    has_segment_scores = True

    def make(self) -> ScorerT:
        raise NotImplementedError

    def _signature(self, scorer: ScorerT) -> str:
        # sacreBLEU's signature carries its module's __version__; the installed distribution's is the truth
        return with_version(
            f"{self.label}|{scorer.get_signature().format()}", "version", distribution_version("sacrebleu")
        )

    def signature_for(self, references: References) -> str:
        scorer = self.make()
        counts = {len(refs) for refs in references}  # sacreBLEU counts the references of each instance
        scorer.num_refs = counts.pop() if len(counts) == 1 else -1
        return self._signature(scorer)

    def score_value(self, scorer: ScorerT, stats_row: Iterable[float]) -> float:
        score: float = scorer._compute_score_from_stats(list(stats_row)).score
        return score

    def scores_from_stats(self, scorer: ScorerT, summed: FloatArray) -> FloatArray:
        """sacreBLEU's score of each row of summed statistics; subclasses vectorise it when they can."""
        return np.array([self.score_value(scorer, row) for row in summed])

    def compute(
        self, hypotheses: Hypotheses, references: References, progress: Progress | None = None
    ) -> list[MetricOutput]:
        self.check_shapes(hypotheses, references)
        scorer = self.make()
        # sacreBLEU annotates Sequence[Sequence[str]]; its docstring and code take None for a missing reference
        cache = scorer._cache_references(reference_streams(references))  # type: ignore[arg-type]
        signature = self._signature(scorer)
        width = len(scorer._compute_segment_statistics(scorer._preprocess_segment(""), cache[0])) if cache else 0

        def segment_stats(hypothesis: str, instance: int) -> list[int]:
            return scorer._compute_segment_statistics(scorer._preprocess_segment(hypothesis), cache[instance])

        def from_stats(summed: FloatArray) -> FloatArray:
            return self.scores_from_stats(scorer, np.atleast_2d(np.asarray(summed, float)))

        segment_score = (lambda row: self.score_value(scorer, row)) if self.has_segment_scores else None
        output = statistics_output(
            self.key, signature, hypotheses, references, segment_stats, width, from_stats, segment_score, progress
        )
        return [output]


class SacreBleu(_SacreMetric[BLEU]):
    key = "sacrebleu"
    label = "sacreBLEU"
    description = "sacreBLEU corpus BLEU (0-100), 13a tokenizer, case kept, exponential smoothing"
    has_segment_scores = False  # segment correlations use sentbleu (effective order)

    def make(self) -> BLEU:
        return BLEU()

    def scores_from_stats(self, scorer: BLEU, summed: FloatArray) -> FloatArray:
        if scorer.smooth_method == "exp" and not scorer.effective_order:
            return bleu_exp_scores(summed, scorer.max_ngram_order)
        return super().scores_from_stats(scorer, summed)


class Chrf(_SacreMetric[CHRF]):
    key = "chrf"
    label = "chrF"
    description = "sacreBLEU chrF2 (0-100): character 6-grams, beta 2; segment scores are sentence chrF"

    def make(self) -> CHRF:
        return CHRF()

    def scores_from_stats(self, scorer: CHRF, summed: FloatArray) -> FloatArray:
        if not scorer.eps_smoothing:
            return chrf_scores(summed, scorer.order, scorer.beta)
        return super().scores_from_stats(scorer, summed)


class SentenceBleu(_SacreMetric[BLEU]):
    """Segment-level BLEU; its system score is the mean of the segment scores, not a corpus BLEU."""

    key = "sentbleu"
    label = "sentBLEU"
    description = (
        "sacreBLEU sentence BLEU (0-100), effective order, exponential smoothing; "
        "system score = mean of the sentence scores"
    )
    corpus_level = False

    def make(self) -> BLEU:
        return BLEU(effective_order=True)

    def compute(
        self, hypotheses: Hypotheses, references: References, progress: Progress | None = None
    ) -> list[MetricOutput]:
        (output,) = super().compute(hypotheses, references, progress)
        output.stats = output.from_stats = None  # averaged, so resampled as a mean of segment scores
        return [output]
