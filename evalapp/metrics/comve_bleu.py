"""The official ComVE Subtask C BLEU as a metric of the study (wraps evalapp.compute.official_bleu).

A corpus metric: its per-segment sufficient statistics are kept so a bootstrap recomputes
it on resampled instances exactly. It has no segment-level score (unsmoothed sentence BLEU is
0 for most single reasons); segment correlations use ``sentbleu``.
"""

from __future__ import annotations

from evalapp.compute import official_bleu
from evalapp.metrics.base import Hypotheses, Metric, MetricOutput, Progress, References, statistics_output


class ComveBleu(Metric):
    key = "comve_bleu"
    label = "ComVE BLEU"
    description = (
        "Official ComVE Subtask C BLEU (0-100): whitespace tokens, case kept, no smoothing, "
        "brevity penalty from the shortest reference"
    )
    corpus_level = True

    def signature_for(self, references: References) -> str:
        nrefs = sorted({len([r for r in refs if r]) for refs in references})
        return official_bleu.signature(nrefs[0] if len(nrefs) == 1 else "var")

    def compute(
        self, hypotheses: Hypotheses, references: References, progress: Progress | None = None
    ) -> list[MetricOutput]:
        self.check_shapes(hypotheses, references)
        signature = self.signature_for(references)

        def segment_row(hypothesis: str, instance: int) -> list[int]:
            return official_bleu.segment_stats(hypothesis, references[instance]).as_row()

        return [
            statistics_output(
                self.key,
                signature,
                hypotheses,
                references,
                segment_row,
                official_bleu.STATS_WIDTH,
                official_bleu.bleu_from_totals_array,
                progress=progress,
            )
        ]
