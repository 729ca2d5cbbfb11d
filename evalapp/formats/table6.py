"""Table 6 of the task paper: its rows as typed records, and the table as CSV, JSON, Markdown and LaTeX.

No Django imports. :class:`Table6Row` and :class:`Table6` carry the figures and know how to
show them, as sacreBLEU's score objects do: the services fill them, and every renderer, web
page and API reads the same objects. CSV and JSON carry the unrounded figures (S5); Markdown
and LaTeX show them as the paper does (BLEU one decimal, Human two), the Human row with "-"
for what it does not have, and an incomplete system's score marked with a dagger and
explained under the table.
"""
import json
import math
from dataclasses import dataclass

from core.defaults import TEAM_MARKERS
from evalapp.compute.ranks import BLEU_DIGITS, HUMAN_DIGITS, display
from evalapp.formats.csvfile import write_csv
from evalapp.formats.latex import escape

FORMATS = ("csv", "json", "markdown", "latex")
MISSING = "-"
INCOMPLETE_MARK = "†"
LATEX_INCOMPLETE_MARK = r"$^\dagger$"
JSON_KEYS = ("team", "marker", "bleu", "bleu_rank", "human", "human_rank", "ratings", "expected_ratings", "complete",
             "human_z", "human_adjusted", "human_adjusted_low", "human_adjusted_high")
HEADER = ("Team", "BLEU", "BLEU rank", "Human", "Human rank")
LATEX_HEADER = ("Team", "BLEU", "Rank", "Human", "Rank")
INTERVAL_HEADER = ("95% CI", "Cluster")
SECONDARY_HEADER = ("Human z (secondary)", "Human adjusted, 95% CI (secondary)")
LATEX_SECONDARY_HEADER = ("$z$", "Adj.")
# Decimals shown of the secondary figures (z-scores are centred on 0, so two decimals as Human).
Z_DIGITS = HUMAN_DIGITS


@dataclass(frozen=True)
class Table6Row:
    """One row of Table 6: a team, or the Human pseudo-system (human score only)."""

    team: str
    marker: str
    bleu: float | None
    bleu_rank: int | None
    human: float | None
    human_rank: int | None
    ratings: int
    expected_ratings: int
    complete: bool
    is_human: bool = False
    ci: dict | None = None        # the bootstrap interval (low, high, level, ...), when computed
    cluster: int | None = None    # the significance cluster of a team, when computed
    human_z: float | None = None              # secondary: mean per-rater z-score
    human_adjusted: float | None = None       # secondary: the mixed model's system effect
    human_adjusted_low: float | None = None   # its Wald interval
    human_adjusted_high: float | None = None

    @property
    def label(self):
        """The team as the paper prints it: name and marker."""
        return f"{self.team}{self.marker}"

    @property
    def coverage(self):
        return self.ratings / self.expected_ratings if self.expected_ratings else 0.0

    def cells(self, mark=INCOMPLETE_MARK):
        """(team, BLEU, BLEU rank, Human, Human rank) as displayed; ``mark`` flags an incomplete score."""
        human = display(self.human, HUMAN_DIGITS, MISSING)
        if not self.complete and self.human is not None:
            human += mark
        return [self.label, display(self.bleu, BLEU_DIGITS, MISSING), _rank(self.bleu_rank), human,
                _rank(self.human_rank)]

    def interval_cells(self):
        """(95% CI, cluster) as displayed."""
        ci = self.ci
        interval = MISSING if not ci or ci["low"] is None else (
            f"[{display(ci['low'], HUMAN_DIGITS)}, {display(ci['high'], HUMAN_DIGITS)}]")
        return [interval, MISSING if self.cluster is None else str(self.cluster)]

    def secondary_cells(self):
        """(human z, adjusted with its interval) as displayed."""
        adjusted = display(self.human_adjusted, HUMAN_DIGITS, MISSING)
        if self.human_adjusted is not None and self.human_adjusted_low is not None:
            adjusted += (f" [{display(self.human_adjusted_low, HUMAN_DIGITS)}, "
                         f"{display(self.human_adjusted_high, HUMAN_DIGITS)}]")
        return [display(self.human_z, Z_DIGITS, MISSING), adjusted]

    def latex_human(self, inline_interval):
        """The Human cell of LaTeX: with ``inline_interval`` and an interval, ``1.84 {\\small [1.71, 1.97]}``."""
        cell = escape(display(self.human, HUMAN_DIGITS, MISSING))
        if not self.complete and self.human is not None:
            cell += LATEX_INCOMPLETE_MARK
        ci = self.ci
        if inline_interval and ci and ci.get("low") is not None:
            cell += _latex_interval(ci["low"], ci["high"])
        return cell

    def latex_secondary(self, inline_interval):
        """($z$, Adj.) of LaTeX; with ``inline_interval`` the adjusted score carries its interval."""
        adjusted = escape(display(self.human_adjusted, HUMAN_DIGITS, MISSING))
        if inline_interval and self.human_adjusted is not None and self.human_adjusted_low is not None:
            adjusted += _latex_interval(self.human_adjusted_low, self.human_adjusted_high)
        return [escape(display(self.human_z, Z_DIGITS, MISSING)), adjusted]

    def as_json(self, with_intervals=False):
        """The S5 record of the row (unrounded), with ``ci`` and ``cluster`` when intervals were computed."""
        entry = {key: getattr(self, key) for key in JSON_KEYS}
        if with_intervals:
            entry["ci"], entry["cluster"] = self.ci, self.cluster
        return entry

    def csv_cells(self, with_intervals=False):
        cells = [_blank(getattr(self, key)) for key in JSON_KEYS]
        if with_intervals:
            ci = self.ci or {}
            cells += [_blank(ci.get("low")), _blank(ci.get("high")), _blank(self.cluster)]
        return cells

    def coverage_text(self):
        """How much of the system was rated: ``name 10 of 12 (83%)``."""
        return f"{self.team} {self.ratings} of {self.expected_ratings} ({math.floor(self.coverage * 100)}%)"


def _latex_interval(low, high):
    return f" {{\\small [{display(low, HUMAN_DIGITS)}, {display(high, HUMAN_DIGITS)}]}}"


@dataclass(frozen=True)
class Table6:
    """Table 6 of the task paper for one campaign, with its intervals and clusters when computed."""

    campaign: str
    rows: tuple
    raters_per_item: int
    instances: int
    intervals: dict | None = None       # bootstrap settings (method, resamples, seed, level)
    significance: dict | None = None    # test, alpha, permutations, seed, clusters, comparisons
    rater_effects: dict | None = None   # the secondary columns' methods and the mixed model's fit
    retired: tuple = ()                 # (instance id, reason) of each instance the organizer retired

    @property
    def with_intervals(self):
        return self.intervals is not None

    def marker_notes(self):
        """What the markers used in the table mean (the markers' legend), in the paper's order."""
        used = {row.marker for row in self.rows}
        return [note for marker, note in TEAM_MARKERS.items() if marker in used]

    def incomplete_note(self):
        """One line for every incomplete system (None when all are complete)."""
        incomplete = [row.coverage_text() for row in self.rows if not row.complete]
        if not incomplete:
            return None
        return (f"{INCOMPLETE_MARK} incomplete (ratings present of expected): {', '.join(incomplete)}; "
                "each score is the mean over the ratings present")

    def retired_note(self):
        """Which instances were retired (their statement was broken), or None: they count for no system."""
        if not self.retired:
            return None
        listed = ", ".join(f"{instance} ({reason})" if reason else instance for instance, reason in self.retired)
        return (f"Retired instances (statement broken; their ratings count for no system and N excludes them): "
                f"{listed}")

    def secondary_notes(self):
        """What the secondary columns are, and whether the mixed model could be fitted."""
        if self.rater_effects is None:
            return []
        effects = self.rater_effects
        fit = effects.get("human_adjusted") or {}
        lines = ["Secondary columns (rater effects; Human, formula (1), is the headline): Human z = mean of "
                 "per-rater z-scores (WMT DA, population SD); Human adjusted = system effect of a linear mixed model "
                 "with raters and instances as crossed random effects (REML, the model of statsmodels MixedLM), "
                 f"{_percent(fit.get('level', 0.95))} Wald interval"]
        if fit.get("problem"):
            lines.append(f"Human adjusted: {fit['problem']}")
        elif not fit.get("converged"):
            lines.append("Human adjusted: the mixed model did not converge; read it with care")
        return lines

    def notes(self):
        """The lines printed under a text table: markers used, incomplete systems, intervals and test."""
        lines = self.marker_notes()
        incomplete = self.incomplete_note()
        lines += [incomplete] if incomplete else []
        retired = self.retired_note()
        lines += [retired] if retired else []
        if self.with_intervals:
            lines.append(f"95% CI: {self.intervals['method']}, {self.intervals['resamples']} resamples, "
                         f"seed {self.intervals['seed']}")
            lines.append(f"Clusters: {self.significance['test']}, alpha {self.significance['alpha']}; "
                         "a new cluster starts where every system above is significantly better than every "
                         "system below")
        return lines + self.secondary_notes()

    def render(self, fmt, halves=False, latex_intervals=False):
        """The table in format ``fmt`` (one of :data:`FORMATS`); ``halves``: LaTeX in two side-by-side halves;
        ``latex_intervals``: LaTeX with every interval beside its score (``1.84 {\\small [1.71, 1.97]}``)."""
        if fmt not in RENDERERS:
            raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
        if fmt == "latex":
            return to_latex(self, halves=halves, intervals=latex_intervals)
        return RENDERERS[fmt](self)


def _percent(level):
    return f"{level * 100:g}%"


def _rank(rank):
    return MISSING if rank is None else str(rank)


def _blank(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def to_json(table):
    """The S5 contract: ``{"campaign", "rows": [...]}`` plus intervals and the significance test when computed."""
    document = {"campaign": table.campaign, "instances": table.instances, "raters_per_item": table.raters_per_item,
                "rows": [row.as_json(table.with_intervals) for row in table.rows]}
    if table.with_intervals:
        document["intervals"] = table.intervals
        document["significance"] = table.significance
    if table.rater_effects is not None:
        document["secondary"] = table.rater_effects
    if table.retired:
        document["retired_instances"] = [{"instance": instance, "reason": reason} for instance, reason in table.retired]
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def to_csv(table):
    """One row per system with the unrounded figures; empty cells for what a row does not have."""
    header = list(JSON_KEYS) + (["ci_low", "ci_high", "cluster"] if table.with_intervals else [])
    return write_csv([row.csv_cells(table.with_intervals) for row in table.rows], header)


def to_markdown(table):
    header = list(HEADER) + (list(INTERVAL_HEADER) if table.with_intervals else []) + list(SECONDARY_HEADER)
    lines = [f"Table 6: {table.campaign}", "", "| " + " | ".join(header) + " |",
             "|" + "---|" + "---:|" * (len(header) - 1)]
    for row in table.rows:
        cells = (row.cells(INCOMPLETE_MARK) + (row.interval_cells() if table.with_intervals else [])
                 + row.secondary_cells())
        lines.append("| " + " | ".join(_markdown_cell(c) for c in cells) + " |")
    footer = ["- " + _markdown_cell(note) for note in table.notes()]
    return "\n".join(lines + ([""] + footer if footer else [])) + "\n"


def _markdown_cell(text):
    """A cell that Markdown shows as the text itself: HTML in a system name is written as entities
    (a renderer would otherwise run it), and the table's own syntax is escaped."""
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _latex_cells(row, with_intervals, inline):
    cells = row.cells(LATEX_INCOMPLETE_MARK)
    cells = [escape(cells[0]), escape(cells[1]), escape(cells[2]), row.latex_human(inline), escape(cells[4])]
    if with_intervals:
        interval, cluster = row.interval_cells()
        cells += [escape(cluster)] if inline else [escape(interval), escape(cluster)]
    return cells + row.latex_secondary(inline)


def to_latex(table, halves=False, intervals=False):
    """A booktabs tabular; ``halves`` puts the rows in two side-by-side halves as the paper does.

    In halves the Human row opens the left half alone, then the teams fill the left half
    (the larger one when their number is odd) and the right half. ``intervals`` puts each
    interval beside its score, ``1.84 {\\small [1.71, 1.97]}`` (the bootstrap interval beside
    Human when computed, the Wald interval beside the adjusted score), instead of a CI column.
    """
    ci_header = ["Cluster"] if intervals else ["95\\% CI", "Cluster"]
    header = list(LATEX_HEADER) + (ci_header if table.with_intervals else []) + list(LATEX_SECONDARY_HEADER)
    width = len(header)
    spec = "l" + "r" * (width - 1)
    cells = [_latex_cells(row, table.with_intervals, intervals) for row in table.rows]
    if halves:
        humans = [c for c, row in zip(cells, table.rows) if row.is_human]
        teams = [c for c, row in zip(cells, table.rows) if not row.is_human]
        split = math.ceil(len(teams) / 2)
        left, right = humans + teams[:split], [None] * len(humans) + teams[split:]
        empty = [""] * width
        body = [(l or empty) + (r or empty) for l, r in zip(left, right + [None] * (len(left) - len(right)))]
        spec = spec + "@{\\hspace{2em}}" + spec
        header = header * 2
        width *= 2
    else:
        body = cells
    lines = [f"% Table 6: {escape(table.campaign)}", f"\\begin{{tabular}}{{{spec}}}", "\\toprule",
             " & ".join(header) + " \\\\", "\\midrule"]
    lines += [" & ".join(row) + " \\\\" for row in body]
    lines.append("\\bottomrule")
    for note in table.notes():
        note = escape(note).replace(INCOMPLETE_MARK, LATEX_INCOMPLETE_MARK)
        lines.append(f"\\multicolumn{{{width}}}{{l}}{{\\footnotesize {note}}} \\\\")
    lines.append("\\end{tabular}")
    return "\n".join(lines) + "\n"


RENDERERS = {"csv": to_csv, "json": to_json, "markdown": to_markdown, "latex": to_latex}
