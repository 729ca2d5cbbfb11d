"""Table 6 rendered: CSV, JSON, Markdown and LaTeX, and the cells the page shows. No Django imports.

The figures are the typed results of :mod:`evalapp.compute.table6` (:class:`~evalapp.compute.table6.Table6`,
:class:`~evalapp.compute.table6.Table6Row`), which the services fill; every renderer here, the web page and the
API read them by attribute. CSV and JSON carry the unrounded figures (S5; JSON is the versioned form of
:meth:`~evalapp.compute.table6.Table6.as_dict`); Markdown and LaTeX show them as the paper does (BLEU one
decimal, Human two), the Human row with "-" for what it does not have, and an incomplete system's score marked
with a dagger and explained under the table.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from core.defaults import TEAM_MARKERS
from evalapp.compute.ranks import BLEU_DIGITS, HUMAN_DIGITS, display
from evalapp.compute.table6 import Table6, Table6Row
from evalapp.formats.csvfile import write_csv
from evalapp.formats.latex import escape

FORMATS = ("csv", "json", "markdown", "latex")
MISSING = "-"
INCOMPLETE_MARK = "†"
# Beside a secondary column's dash when it cannot be estimated (explained under the table).
SECONDARY_MISSING_MARK = "‡"
LATEX_SECONDARY_MISSING_MARK = r"$^\ddagger$"
LATEX_INCOMPLETE_MARK = r"$^\dagger$"
# The CSV columns, in the order of the JSON rows' keys.
CSV_KEYS = (
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


def cells(row: Table6Row, mark: str = INCOMPLETE_MARK) -> list[str]:
    """(team, BLEU, BLEU rank, Human, Human rank) as displayed; ``mark`` flags an incomplete score."""
    human = display(row.human, HUMAN_DIGITS, MISSING)
    if not row.complete and row.human is not None:
        human += mark
    return [
        row.label,
        display(row.bleu, BLEU_DIGITS, MISSING),
        _rank(row.bleu_rank),
        human,
        _rank(row.human_rank),
    ]


def interval_cells(row: Table6Row) -> list[str]:
    """(95% CI, cluster) as displayed."""
    ci = row.ci
    interval = (
        MISSING
        if ci is None or ci.low is None
        else f"[{display(ci.low, HUMAN_DIGITS)}, {display(ci.high, HUMAN_DIGITS)}]"
    )
    return [interval, MISSING if row.cluster is None else str(row.cluster)]


def secondary_cells(row: Table6Row, missing: str = MISSING) -> list[str]:
    """(human z, adjusted with its interval) as displayed; ``missing`` stands for an empty figure
    (a dash with the not-estimable mark when the table cannot estimate them)."""
    adjusted = display(row.human_adjusted, HUMAN_DIGITS, missing)
    if row.human_adjusted is not None and row.human_adjusted_low is not None:
        adjusted += (
            f" [{display(row.human_adjusted_low, HUMAN_DIGITS)}, {display(row.human_adjusted_high, HUMAN_DIGITS)}]"
        )
    return [display(row.human_z, Z_DIGITS, missing), adjusted]


def latex_human(row: Table6Row, inline_interval: bool) -> str:
    """The Human cell of LaTeX: with ``inline_interval`` and an interval, ``1.84 {\\small [1.71, 1.97]}``."""
    cell = escape(display(row.human, HUMAN_DIGITS, MISSING))
    if not row.complete and row.human is not None:
        cell += LATEX_INCOMPLETE_MARK
    ci = row.ci
    if inline_interval and ci is not None and ci.low is not None and ci.high is not None:
        cell += _latex_interval(ci.low, ci.high)
    return cell


def latex_secondary(row: Table6Row, inline_interval: bool, mark: str = "") -> list[str]:
    """($z$, Adj.) of LaTeX; with ``inline_interval`` the adjusted score carries its interval; ``mark``
    follows a dash that stands for a figure the table cannot estimate."""
    adjusted = escape(display(row.human_adjusted, HUMAN_DIGITS, MISSING))
    if row.human_adjusted is None:
        adjusted += mark
    if (
        inline_interval
        and row.human_adjusted is not None
        and row.human_adjusted_low is not None
        and row.human_adjusted_high is not None
    ):
        adjusted += _latex_interval(row.human_adjusted_low, row.human_adjusted_high)
    z = escape(display(row.human_z, Z_DIGITS, MISSING)) + (mark if row.human_z is None else "")
    return [z, adjusted]


def csv_cells(row: Table6Row, with_intervals: bool = False) -> list[object]:
    record = row.as_dict()
    values: list[object] = [_blank(record[key]) for key in CSV_KEYS]
    if with_intervals:
        ci = row.ci
        values += [
            _blank(None if ci is None else ci.low),
            _blank(None if ci is None else ci.high),
            _blank(row.cluster),
        ]
    return values


def coverage_text(row: Table6Row) -> str:
    """How much of the system was rated: ``name 200 of 300 (67%)``, the percentage rounded to nearest."""
    return f"{row.team} {row.ratings} of {row.expected_ratings} ({percent_text(row.ratings, row.expected_ratings)})"


def percent_text(part: int, whole: int) -> str:
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


def _latex_interval(low: float, high: float) -> str:
    return f" {{\\small [{display(low, HUMAN_DIGITS)}, {display(high, HUMAN_DIGITS)}]}}"


def secondary_missing(table: Table6) -> str:
    """What an empty secondary figure shows: a dash, marked when the table cannot estimate the columns."""
    if table.rater_effects is not None and table.rater_effects.not_estimable:
        return MISSING + SECONDARY_MISSING_MARK
    return MISSING


def marker_notes(table: Table6) -> list[str]:
    """What the markers used in the table mean (the markers' legend), in the paper's order."""
    used = {row.marker for row in table.rows}
    return [note for marker, note in TEAM_MARKERS.items() if marker in used]


def incomplete_note(table: Table6) -> str | None:
    """One line for every incomplete system (None when all are complete)."""
    incomplete = [coverage_text(row) for row in table.rows if not row.complete]
    if not incomplete:
        return None
    tested = (
        "; the intervals and tests are of these same means and their displayed differences"
        if table.with_intervals
        else ""
    )
    return (
        f"{INCOMPLETE_MARK} incomplete (ratings present of expected): {', '.join(incomplete)}; "
        f"each score is the mean over the ratings present{tested}"
    )


def counted_notes(table: Table6) -> list[str]:
    """What was left out of every figure: excluded raters (and their ratings), control items."""
    counted = table.counted
    if counted is None:
        return []
    lines = []
    if counted.excluded_raters:
        lines.append(
            f"Excluded: {_plural(counted.excluded_raters, 'rater')} excluded by the organizer, "
            f"{_plural(counted.excluded_ratings, 'rating')} not counted"
        )
    if counted.control_items:
        lines.append(
            f"Control items: {_plural(counted.control_items, 'item')} with known answers "
            f"({_plural(counted.control_ratings, 'rating')}) check the raters and are not counted"
        )
    return lines


def retired_note(table: Table6) -> str | None:
    """One line naming the systems a racing campaign stopped rating (None when there are none)."""
    if not table.retired:
        return None
    named = ", ".join(f"{name} after {count} instances" for name, count in table.retired)
    return (
        f"Retired by racing once all its comparisons were decided: {named}; its Human score is formula (1) "
        "over the instances it was rated on"
    )


def retired_instances_note(table: Table6) -> str | None:
    """Which instances the organizer retired (their statement was broken), or None: they count for no system."""
    if not table.retired_instances:
        return None
    listed = ", ".join(f"{instance} ({reason})" if reason else instance for instance, reason in table.retired_instances)
    return f"Retired instances (statement broken; their ratings count for no system and N excludes them): {listed}"


def secondary_notes(table: Table6) -> list[str]:
    """What the secondary columns are, and whether the mixed model could be fitted."""
    effects = table.rater_effects
    if effects is None:
        return []
    fit = effects.fit
    lines = [
        (
            "Secondary columns (rater effects; Human, formula (1), is the headline): Human z = mean of "
            "per-rater z-scores (WMT DA, population SD); Human adjusted = system effect of a linear mixed model "
            "with raters and instances as crossed random effects (REML, the model of statsmodels MixedLM), "
            f"{_percent(fit.level)} Wald interval"
        )
    ]
    if effects.not_estimable:
        lines.append(f"{SECONDARY_MISSING_MARK} Human z and Human adjusted are empty, {effects.not_estimable}")
    elif fit.problem:
        lines.append(f"Human adjusted: {fit.problem}")
    elif not fit.converged:
        lines.append("Human adjusted: the mixed model did not converge; read it with care")
    return lines


def notes(table: Table6) -> list[str]:
    """The lines printed under a text table: markers used, incomplete systems, intervals and test."""
    lines = marker_notes(table)
    incomplete = incomplete_note(table)
    lines += [incomplete] if incomplete else []
    lines += counted_notes(table)
    retired = retired_note(table)
    lines += [retired] if retired else []
    retired_instances = retired_instances_note(table)
    lines += [retired_instances] if retired_instances else []
    if table.intervals is not None:
        lines.append(
            f"95% CI: {table.intervals.method}; {table.intervals.raters} raters, {table.intervals.instances} instances"
        )
    if table.significance is not None:
        lines.append(
            f"Clusters: {table.significance.test}, alpha {table.significance.alpha}; rule "
            f"{table.significance.rule_description}"
        )
    return lines + secondary_notes(table)


def render(table: Table6, fmt: str, halves: bool = False, latex_intervals: bool = False) -> str:
    """The table in format ``fmt`` (one of :data:`FORMATS`); ``halves``: LaTeX in two side-by-side halves;
    ``latex_intervals``: LaTeX with every interval beside its score (``1.84 {\\small [1.71, 1.97]}``)."""
    if fmt not in RENDERERS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "latex":
        return to_latex(table, halves=halves, intervals=latex_intervals)
    return RENDERERS[fmt](table)


def _percent(level: float) -> str:
    return f"{level * 100:g}%"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _rank(rank: int | None) -> str:
    return MISSING if rank is None else str(rank)


def _blank(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def to_json(table: Table6) -> str:
    """The S5 contract: the versioned JSON form (:meth:`evalapp.compute.table6.Table6.as_dict`)."""
    return json.dumps(table.as_dict(), indent=2, ensure_ascii=False) + "\n"


def to_csv(table: Table6) -> str:
    """One row per system with the unrounded figures; empty cells for what a row does not have."""
    header = list(CSV_KEYS) + (["ci_low", "ci_high", "cluster"] if table.with_intervals else [])
    return write_csv([csv_cells(row, table.with_intervals) for row in table.rows], header)


def to_markdown(table: Table6) -> str:
    header = list(HEADER) + (list(INTERVAL_HEADER) if table.with_intervals else []) + list(SECONDARY_HEADER)
    lines = [
        f"Table 6: {_markdown_cell(table.campaign)}",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" + "---:|" * (len(header) - 1),
    ]
    for row in table.rows:
        shown = (
            cells(row, INCOMPLETE_MARK)
            + (interval_cells(row) if table.with_intervals else [])
            + secondary_cells(row, secondary_missing(table))
        )
        lines.append("| " + " | ".join(_markdown_cell(c) for c in shown) + " |")
    footer = ["- " + _markdown_cell(note) for note in notes(table)]
    return "\n".join(lines + ([""] + footer if footer else [])) + "\n"


def _markdown_cell(text: object) -> str:
    """Text that Markdown shows as the text itself, in a cell, a heading or a note: HTML in a name is
    written as entities (a renderer would otherwise run it), emphasis, code, link and table syntax is
    escaped, and a line break becomes a space (it would end the table row or the heading, and start
    a row or a link definition of its own)."""
    text = "".join(" " if ch in "\r\n\u2028\u2029" else ch for ch in str(text))
    for char in "\\`*|~":
        text = text.replace(char, "\\" + char)
    return text.replace("](", "]\\(").replace("<", "&lt;").replace(">", "&gt;")


def _latex_cells(row: Table6Row, with_intervals: bool, inline: bool, mark: str = "") -> list[str]:
    shown = cells(row, LATEX_INCOMPLETE_MARK)
    result = [escape(shown[0]), escape(shown[1]), escape(shown[2]), latex_human(row, inline), escape(shown[4])]
    if with_intervals:
        interval, cluster = interval_cells(row)
        result += [escape(cluster)] if inline else [escape(interval), escape(cluster)]
    return result + latex_secondary(row, inline, mark)


def to_latex(table: Table6, halves: bool = False, intervals: bool = False) -> str:
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
    mark = LATEX_SECONDARY_MISSING_MARK if secondary_missing(table) != MISSING else ""
    table_cells = [_latex_cells(row, table.with_intervals, intervals, mark) for row in table.rows]
    if halves:
        humans = [c for c, row in zip(table_cells, table.rows) if row.is_human]
        teams = [c for c, row in zip(table_cells, table.rows) if not row.is_human]
        split = math.ceil(len(teams) / 2)
        left: list[list[str] | None] = [*humans, *teams[:split]]
        right: list[list[str] | None] = [*([None] * len(humans)), *teams[split:]]
        empty = [""] * width
        padded: list[list[str] | None] = [*right, *([None] * (len(left) - len(right)))]
        body = [(lhs or empty) + (rhs or empty) for lhs, rhs in zip(left, padded)]
        spec = spec + "@{\\hspace{2em}}" + spec
        header = header * 2
        width *= 2
    else:
        body = table_cells
    lines = [
        f"% Table 6: {escape(table.campaign)}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(header) + " \\\\",
        "\\midrule",
    ]
    lines += [" & ".join(row) + " \\\\" for row in body]
    lines.append("\\bottomrule")
    for note in notes(table):
        note = (
            escape(note)
            .replace(INCOMPLETE_MARK, LATEX_INCOMPLETE_MARK)
            .replace(SECONDARY_MISSING_MARK, LATEX_SECONDARY_MISSING_MARK)
        )
        lines.append(f"\\multicolumn{{{width}}}{{l}}{{\\footnotesize {note}}} \\\\")
    lines.append("\\end{tabular}")
    return "\n".join(lines) + "\n"


RENDERERS: dict[str, Callable[[Table6], str]] = {
    "csv": to_csv,
    "json": to_json,
    "markdown": to_markdown,
    "latex": to_latex,
}
