"""The options of a Table 6 export, declared once for the download page, the API and ``export_table6``."""

from __future__ import annotations

from dataclasses import dataclass

from core.defaults import (
    CLUSTER_RULES,
    DEFAULT_CLUSTER_RULE,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SEED,
    DEFAULT_TABLE6_RESAMPLES,
    MAX_REQUEST_PERMUTATIONS,
    MAX_REQUEST_RESAMPLES,
    REQUEST_SEED_BOUND,
)
from evalapp.options.base import Kind, OptionError, Options, choices_of, option

LATEX = "latex"


@dataclass(frozen=True)
class Table6Options(Options):
    """What a Table 6 export may be asked for besides its format."""

    job = "table6"

    halves: bool = option(
        False, kind=Kind.BOOL, label="Two halves", help="LaTeX only: two side-by-side halves, as in the task paper."
    )
    latex_intervals: bool = option(
        False,
        kind=Kind.BOOL,
        label="Intervals beside the scores",
        help="LaTeX only: each interval beside its score, 1.84 {\\small [1.71, 1.97]}, instead of a 95% CI column.",
    )
    bootstrap: int = option(
        DEFAULT_TABLE6_RESAMPLES,
        kind=Kind.INT,
        label="Intervals",
        help="N > 0: add the rater-aware 95% intervals (two-way cluster-robust over raters and instances, "
        "analytic: N is not a resample count) and significance clusters. 0: none.",
        minimum=0,
        request_maximum=MAX_REQUEST_RESAMPLES,
        metavar="N",
    )
    clusters: str = option(
        DEFAULT_CLUSTER_RULE,
        kind=Kind.CHOICE,
        label="Clustering rule",
        help="holm (every system above significantly better than every system below, Holm-corrected) or wmt "
        "(mt-metrics-eval's AssignRanks on one-sided p, no correction).",
        choices=choices_of(CLUSTER_RULES),
    )
    seed: int = option(
        DEFAULT_SEED,
        kind=Kind.INT,
        label="Seed",
        help="Kept for former scripts; the rater-aware figures use no seed.",
        minimum=0,
        maximum=REQUEST_SEED_BOUND - 1,
    )
    permutations: int = option(
        DEFAULT_PERMUTATIONS,
        kind=Kind.INT,
        label="Permutations",
        help="Kept for former scripts; the rater-aware test draws no permutations.",
        minimum=1,
        request_maximum=MAX_REQUEST_PERMUTATIONS,
    )

    def check_format(self, fmt: str) -> None:
        """The options that apply to one format only, against the export's format."""
        for name in ("halves", "latex_intervals"):
            if getattr(self, name) and fmt != LATEX:
                raise OptionError(name, "applies to the LaTeX format only")

    def filename_suffix(self) -> str:
        """The part of the file name that tells the options apart (``halves-ci1000-wmt-inline``)."""
        rule = self.clusters if self.bootstrap and self.clusters != DEFAULT_CLUSTER_RULE else ""
        parts = (
            "halves" if self.halves else "",
            f"ci{self.bootstrap}" if self.bootstrap else "",
            rule,
            "inline" if self.latex_intervals else "",
        )
        return "-".join(part for part in parts if part)
