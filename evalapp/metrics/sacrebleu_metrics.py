"""sacreBLEU's corpus BLEU and chrF, and sentence-level BLEU, with sacreBLEU's own signatures.

The per-segment statistics are sacreBLEU's (its reference cache and segment statistics), so
the corpus scores equal ``corpus_score`` and the segment scores ``sentence_score``; keeping
the statistics lets a bootstrap recompute the corpus scores on resampled instances. Defaults
are sacreBLEU's: BLEU with the 13a tokenizer, case kept, exponential smoothing; chrF2
(character 6-grams, beta 2); sentence BLEU with effective order, as sacreBLEU recommends.
"""
import numpy as np
from sacrebleu.metrics import BLEU, CHRF

from evalapp.metrics.base import Metric, distribution_version, statistics_output, with_version


def reference_streams(references):
    """Per-instance reference lists to sacreBLEU's streams (one list per reference position; None pads)."""
    width = max((len(refs) for refs in references), default=0)
    return [[refs[j] if j < len(refs) else None for refs in references] for j in range(width)]


class _SacreMetric(Metric):
    """Runs one sacreBLEU metric object over all systems with one reference cache."""

    corpus_level = True
    has_segment_scores = True

    def make(self):
        raise NotImplementedError

    def score_value(self, scorer, stats_row):
        return scorer._compute_score_from_stats(list(stats_row)).score

    def compute(self, hypotheses, references, progress=None):
        self.check_shapes(hypotheses, references)
        scorer = self.make()
        cache = scorer._cache_references(reference_streams(references))
        # sacreBLEU's signature carries its module's __version__; the installed distribution's is the truth
        signature = with_version(f"{self.label}|{scorer.get_signature().format()}", "version",
                                 distribution_version("sacrebleu"))
        width = len(scorer._compute_segment_statistics(scorer._preprocess_segment(""), cache[0])) if cache else 0

        def segment_stats(hypothesis, instance):
            return scorer._compute_segment_statistics(scorer._preprocess_segment(hypothesis), cache[instance])

        def from_stats(summed):
            return np.array([self.score_value(scorer, row) for row in summed])

        segment_score = (lambda row: self.score_value(scorer, row)) if self.has_segment_scores else None
        output = statistics_output(self.key, signature, hypotheses, references, segment_stats, width, from_stats,
                                   segment_score, progress)
        return [output]


class SacreBleu(_SacreMetric):
    key = "sacrebleu"
    label = "sacreBLEU"
    description = "sacreBLEU corpus BLEU (0-100), 13a tokenizer, case kept, exponential smoothing"
    has_segment_scores = False  # segment correlations use sentbleu (effective order)

    def make(self):
        return BLEU()


class Chrf(_SacreMetric):
    key = "chrf"
    label = "chrF"
    description = "sacreBLEU chrF2 (0-100): character 6-grams, beta 2; segment scores are sentence chrF"

    def make(self):
        return CHRF()


class SentenceBleu(_SacreMetric):
    """Segment-level BLEU; its system score is the mean of the segment scores, not a corpus BLEU."""

    key = "sentbleu"
    label = "sentBLEU"
    description = "sacreBLEU sentence BLEU (0-100), effective order, exponential smoothing; " \
                  "system score = mean of the sentence scores"
    corpus_level = False

    def make(self):
        return BLEU(effective_order=True)

    def compute(self, hypotheses, references, progress=None):
        output, = super().compute(hypotheses, references, progress)
        output.stats = output.from_stats = None  # averaged, so resampled as a mean of segment scores
        return [output]
