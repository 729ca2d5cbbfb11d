"""Table 6 of the task paper: its rows as typed records, and the table as CSV, JSON, Markdown and LaTeX.

No Django imports. :class:`Table6Row` and :class:`Table6` carry the figures and know how to
show them, as sacreBLEU's score objects do: the services fill them, and every renderer, web
page and API reads the same objects. CSV and JSON carry the unrounded figures (protocol.md#table6); Markdown
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
# Beside a secondary column's dash when it cannot be estimated (explained under the table).
SECONDARY_MISSING_MARK = "‡"
LATEX_SECONDARY_MISSING_MARK = r"$^\ddagger$"
LATEX_INCOMPLETE_MARK = r"$^\dagger$"
JSON_KEYS = (
    "team",
    "marker",
    "bleu",
    "bleu_rank",
    "human",
    "human_rank",
    "ratings",
    "expected_ratings",
    "complete",
    "human_z",
    "human_adjusted",
    "human_adjusted_low",
    "human_adjusted_high",
)
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
    ci: dict | None = None  # the bootstrap interval (low, high, level, ...), when computed
    cluster: int | None = None  # the significance cluster of a team, when computed
    human_z: float | None = None  # secondary: mean per-rater z-score
    human_adjusted: float | None = None  # secondary: the mixed model's system effect
    human_adjusted_low: float | None = None  # its Wald interval
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
        return [
            self.label,
            display(self.bleu, BLEU_DIGITS, MISSING),
            _rank(self.bleu_rank),
            human,
            _rank(self.human_rank),
        ]

    def interval_cells(self):
        """(95% CI, cluster) as displayed."""
        ci = self.ci
        interval = (
            MISSING
            if not ci or ci["low"] is None
            else (f"[{display(ci['low'], HUMAN_DIGITS)}, {display(ci['high'], HUMAN_DIGITS)}]")
        )
        return [interval, MISSING if self.cluster is None else str(self.cluster)]

    def secondary_cells(self, missing=MISSING):
        """(human z, adjusted with its interval) as displayed; ``missing`` stands for an empty figure
        (a dash with the not-estimable mark when the table cannot estimate them)."""
        adjusted = display(self.human_adjusted, HUMAN_DIGITS, missing)
        if self.human_adjusted is not None and self.human_adjusted_low is not None:
            adjusted += (
                f" [{display(self.human_adjusted_low, HUMAN_DIGITS)}, "
                f"{display(self.human_adjusted_high, HUMAN_DIGITS)}]"
            )
        return [display(self.human_z, Z_DIGITS, missing), adjusted]

    def latex_human(self, inline_interval):
        """The Human cell of LaTeX: with ``inline_interval`` and an interval, ``1.84 {\\small [1.71, 1.97]}``."""
        cell = escape(display(self.human, HUMAN_DIGITS, MISSING))
        if not self.complete and self.human is not None:
            cell += LATEX_INCOMPLETE_MARK
        ci = self.ci
        if inline_interval and ci and ci.get("low") is not None:
            cell += _latex_interval(ci["low"], ci["high"])
        return cell

    def latex_secondary(self, inline_interval, mark=""):
        """($z$, Adj.) of LaTeX; with ``inline_interval`` the adjusted score carries its interval; ``mark``
        follows a dash that stands for a figure the table cannot estimate."""
        adjusted = escape(display(self.human_adjusted, HUMAN_DIGITS, MISSING))
        if self.human_adjusted is None:
            adjusted += mark
        if inline_interval and self.human_adjusted is not None and self.human_adjusted_low is not None:
            adjusted += _latex_interval(self.human_adjusted_low, self.human_adjusted_high)
        z = escape(display(self.human_z, Z_DIGITS, MISSING)) + (mark if self.human_z is None else "")
        return [z, adjusted]

    def as_json(self, with_intervals=False):
        """The row's JSON record (protocol.md#contracts), unrounded; ``ci`` and ``cluster`` when computed."""
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
        """How much of the system was rated: ``name 200 of 300 (67%)``, the percentage rounded to nearest."""
        share = percent_text(self.ratings, self.expected_ratings)
        return f"{self.team} {self.ratings} of {self.expected_ratings} ({share})"


def percent_text(part, whole):
    """``part / whole`` as a whole percentage rounded to nearest (half up), but never "100%" for a part
    short of the whole nor "0%" for a part above nothing: 999 of 1000 is "99%", 1 of 1000 is "1%"."""
    if not whole:
        return "0%"
    value = math.floor(part * 100 / whole + 0.5)
    if part < whole:
        value = min(value, 99)
    if part > 0:
        value = max(value, 1)
    return f"{value}%"


def _latex_interval(low, high):
    return f" {{\\small [{display(low, HUMAN_DIGITS)}, {display(high, HUMAN_DIGITS)}]}}"


@dataclass(frozen=True)
class Table6:
    """Table 6 of the task paper for one campaign, with its intervals and clusters when computed."""

    campaign: str
    rows: tuple
    raters_per_item: int
    instances: int
    intervals: dict | None = None  # bootstrap settings (method, resamples, seed, level)
    significance: dict | None = None  # test, alpha, permutations, seed, clusters, comparisons
    rater_effects: dict | None = None  # the secondary columns' methods and the mixed model's fit
    counted: dict | None = None  # what was left out: excluded raters and their ratings, control items
    retired: tuple = ()  # (system, instances) retired by racing (stopping early)
    retired_instances: tuple = ()  # (instance id, reason) of each instance the organizer retired

    @property
    def with_intervals(self):
        return self.intervals is not None

    @property
    def secondary_missing(self):
        """What an empty secondary figure shows: a dash, marked when the table cannot estimate the columns."""
        if self.rater_effects and self.rater_effects.get("not_estimable"):
            return MISSING + SECONDARY_MISSING_MARK
        return MISSING

    def marker_notes(self):
        """What the markers used in the table mean (the markers' legend), in the paper's order."""
        used = {row.marker for row in self.rows}
        return [note for marker, note in TEAM_MARKERS.items() if marker in used]

    def incomplete_note(self):
        """One line for every incomplete system (None when all are complete)."""
        incomplete = [row.coverage_text() for row in self.rows if not row.complete]
        if not incomplete:
            return None
        tested = (
            "; the intervals and tests are of these same means and their displayed differences"
            if self.with_intervals
            else ""
        )
        return (
            f"{INCOMPLETE_MARK} incomplete (ratings present of expected): {', '.join(incomplete)}; "
            f"each score is the mean over the ratings present{tested}"
        )

    def counted_notes(self):
        """What was left out of every figure: excluded raters (and their ratings), control items."""
        counted = self.counted or {}
        lines = []
        if counted.get("excluded_raters"):
            lines.append(
                f"Excluded: {_plural(counted['excluded_raters'], 'rater')} excluded by the organizer, "
                f"{_plural(counted['excluded_ratings'], 'rating')} not counted"
            )
        if counted.get("control_items"):
            lines.append(
                f"Control items: {_plural(counted['control_items'], 'item')} with known answers "
                f"({_plural(counted['control_ratings'], 'rating')}) check the raters and are not counted"
            )
        return lines

    def retired_note(self):
        """One line naming the systems a racing campaign stopped rating (None when there are none)."""
        if not self.retired:
            return None
        named = ", ".join(f"{name} after {count} instances" for name, count in self.retired)
        return (
            f"Retired by racing once all its comparisons were decided: {named}; its Human score is formula (1) "
            "over the instances it was rated on"
        )

    def retired_instances_note(self):
        """Which instances the organizer retired (their statement was broken), or None: they count for no system."""
        if not self.retired_instances:
            return None
        listed = ", ".join(
            f"{instance} ({reason})" if reason else instance for instance, reason in self.retired_instances
        )
        return f"Retired instances (statement broken; their ratings count for no system and N excludes them): {listed}"

    def secondary_notes(self):
        """What the secondary columns are, and whether the mixed model could be fitted."""
        if self.rater_effects is None:
            return []
        effects = self.rater_effects
        fit = effects.get("human_adjusted") or {}
        lines = [
            (
                "Secondary columns (rater effects; Human, formula (1), is the headline): Human z = mean of "
                "per-rater z-scores (WMT DA, population SD); Human adjusted = system effect of a linear mixed model "
                "with raters and instances as crossed random effects (REML, the model of statsmodels MixedLM), "
                f"{_percent(fit.get('level', 0.95))} Wald interval"
            )
        ]
        if effects.get("not_estimable"):
            lines.append(f"{SECONDARY_MISSING_MARK} Human z and Human adjusted are empty, {effects['not_estimable']}")
        elif fit.get("problem"):
            lines.append(f"Human adjusted: {fit['problem']}")
        elif not fit.get("converged"):
            lines.append("Human adjusted: the mixed model did not converge; read it with care")
        return lines

    def notes(self):
        """The lines printed under a text table: markers used, incomplete systems, intervals and test."""
        lines = self.marker_notes()
        incomplete = self.incomplete_note()
        lines += [incomplete] if incomplete else []
        lines += self.counted_notes()
        retired = self.retired_note()
        lines += [retired] if retired else []
        retired_instances = self.retired_instances_note()
        lines += [retired_instances] if retired_instances else []
        if self.with_intervals:
            lines.append(
                f"95% CI: {self.intervals['method']}; {self.intervals['raters']} raters, "
                f"{self.intervals['instances']} instances"
            )
            lines.append(
                f"Clusters: {self.significance['test']}, alpha {self.significance['alpha']}; rule "
                f"{self.significance['rule_description']}"
            )
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


def _plural(count, noun):
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _rank(rank):
    return MISSING if rank is None else str(rank)


def _blank(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def to_json(table):
    """The JSON (protocol.md#contracts): ``{"campaign", "rows": [...]}``, intervals and the test when computed."""
    document = {
        "campaign": table.campaign,
        "instances": table.instances,
        "raters_per_item": table.raters_per_item,
        "rows": [row.as_json(table.with_intervals) for row in table.rows],
    }
    if table.counted is not None:
        document["counted"] = table.counted
    if table.with_intervals:
        document["intervals"] = table.intervals
        document["significance"] = table.significance
    if table.rater_effects is not None:
        document["secondary"] = table.rater_effects
    if table.retired_instances:
        document["retired_instances"] = [
            {"instance": instance, "reason": reason} for instance, reason in table.retired_instances
        ]
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def to_csv(table):
    """One row per system with the unrounded figures; empty cells for what a row does not have."""
    header = list(JSON_KEYS) + (["ci_low", "ci_high", "cluster"] if table.with_intervals else [])
    return write_csv([row.csv_cells(table.with_intervals) for row in table.rows], header)


def to_markdown(table):
    header = list(HEADER) + (list(INTERVAL_HEADER) if table.with_intervals else []) + list(SECONDARY_HEADER)
    lines = [
        f"Table 6: {_markdown_cell(table.campaign)}",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" + "---:|" * (len(header) - 1),
    ]
    for row in table.rows:
        cells = (
            row.cells(INCOMPLETE_MARK)
            + (row.interval_cells() if table.with_intervals else [])
            + row.secondary_cells(table.secondary_missing)
        )
        lines.append("| " + " | ".join(_markdown_cell(c) for c in cells) + " |")
    footer = ["- " + _markdown_cell(note) for note in table.notes()]
    return "\n".join(lines + ([""] + footer if footer else [])) + "\n"


def _markdown_cell(text):
    """Text that Markdown shows as the text itself, in a cell, a heading or a note: HTML in a name is
    written as entities (a renderer would otherwise run it), emphasis, code, link and table syntax is
    escaped, and a line break becomes a space (it would end the table row or the heading, and start
    a row or a link definition of its own)."""
    text = "".join(" " if ch in "\r\n\u2028\u2029" else ch for ch in str(text))
    for char in "\\`*|~":
        text = text.replace(char, "\\" + char)
    return text.replace("](", "]\\(").replace("<", "&lt;").replace(">", "&gt;")


def _latex_cells(row, with_intervals, inline, mark=""):
    cells = row.cells(LATEX_INCOMPLETE_MARK)
    cells = [escape(cells[0]), escape(cells[1]), escape(cells[2]), row.latex_human(inline), escape(cells[4])]
    if with_intervals:
        interval, cluster = row.interval_cells()
        cells += [escape(cluster)] if inline else [escape(interval), escape(cluster)]
    return cells + row.latex_secondary(inline, mark)


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
    mark = LATEX_SECONDARY_MISSING_MARK if table.secondary_missing != MISSING else ""
    cells = [_latex_cells(row, table.with_intervals, intervals, mark) for row in table.rows]
    if halves:
        humans = [c for c, row in zip(cells, table.rows) if row.is_human]
        teams = [c for c, row in zip(cells, table.rows) if not row.is_human]
        split = math.ceil(len(teams) / 2)
        left, right = humans + teams[:split], [None] * len(humans) + teams[split:]
        empty = [""] * width
        body = [(lhs or empty) + (rhs or empty) for lhs, rhs in zip(left, right + [None] * (len(left) - len(right)))]
        spec = spec + "@{\\hspace{2em}}" + spec
        header = header * 2
        width *= 2
    else:
        body = cells
    lines = [
        f"% Table 6: {escape(table.campaign)}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(header) + " \\\\",
        "\\midrule",
    ]
    lines += [" & ".join(row) + " \\\\" for row in body]
    lines.append("\\bottomrule")
    for note in table.notes():
        note = (
            escape(note)
            .replace(INCOMPLETE_MARK, LATEX_INCOMPLETE_MARK)
            .replace(SECONDARY_MISSING_MARK, LATEX_SECONDARY_MISSING_MARK)
        )
        lines.append(f"\\multicolumn{{{width}}}{{l}}{{\\footnotesize {note}}} \\\\")
    lines.append("\\end{tabular}")
    return "\n".join(lines) + "\n"


RENDERERS = {"csv": to_csv, "json": to_json, "markdown": to_markdown, "latex": to_latex}
