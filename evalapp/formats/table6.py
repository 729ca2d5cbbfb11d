"""Table 6 of the task paper as CSV, JSON, Markdown and LaTeX. No Django imports.

Input is a table with ``campaign``, ``rows`` (dicts: team, marker, bleu, bleu_rank, human,
human_rank, ratings, expected_ratings, complete, is_human, optional ci and cluster),
``intervals`` and ``significance`` (None unless computed). CSV and JSON carry the unrounded
figures (S5); Markdown and LaTeX show them as the paper does (BLEU one decimal, Human two),
the Human row with "-" for what it does not have, and an incomplete system's score marked
with a dagger and explained under the table.
"""
import json
import math

from evalapp.compute.ranks import BLEU_DIGITS, HUMAN_DIGITS, display
from evalapp.formats.csvfile import write_csv
from evalapp.formats.latex import escape

FORMATS = ("csv", "json", "markdown", "latex")
MISSING = "-"
INCOMPLETE_MARK = "†"
LATEX_INCOMPLETE_MARK = r"$^\dagger$"
JSON_KEYS = ("team", "marker", "bleu", "bleu_rank", "human", "human_rank", "ratings", "expected_ratings", "complete")
MARKER_NOTES = {"*": "* no system description paper", "+": "+ the system description paper does not describe Subtask C"}
HEADER = ("Team", "BLEU", "BLEU rank", "Human", "Human rank")
LATEX_HEADER = ("Team", "BLEU", "Rank", "Human", "Rank")


def _has_intervals(table):
    return table.intervals is not None


def to_json(table):
    """The S5 contract: ``{"campaign", "rows": [...]}`` plus intervals and the significance test when computed."""
    rows = []
    for row in table.rows:
        entry = {key: row[key] for key in JSON_KEYS}
        if _has_intervals(table):
            entry["ci"] = row.get("ci")
            entry["cluster"] = row.get("cluster")
        rows.append(entry)
    document = {"campaign": table.campaign, "instances": table.instances, "raters_per_item": table.raters_per_item,
                "rows": rows}
    if _has_intervals(table):
        document["intervals"] = table.intervals
        document["significance"] = table.significance
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def to_csv(table):
    """One row per system with the unrounded figures; empty cells for what a row does not have."""
    header = list(JSON_KEYS)
    if _has_intervals(table):
        header += ["ci_low", "ci_high", "cluster"]
    rows = []
    for row in table.rows:
        cells = [_blank(row[key]) for key in JSON_KEYS]
        if _has_intervals(table):
            ci = row.get("ci") or {}
            cells += [_blank(ci.get("low")), _blank(ci.get("high")), _blank(row.get("cluster"))]
        rows.append(cells)
    return write_csv(rows, header)


def _blank(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def shown(row, mark):
    """(team, BLEU, BLEU rank, Human, Human rank) as displayed; ``mark`` flags an incomplete score."""
    human = display(row["human"], HUMAN_DIGITS, MISSING)
    if not row["complete"] and row["human"] is not None:
        human += mark
    rank = (lambda r: MISSING if r is None else str(r))
    return [f"{row['team']}{row['marker']}", display(row["bleu"], BLEU_DIGITS, MISSING), rank(row["bleu_rank"]),
            human, rank(row["human_rank"])]


def _extra(row):
    ci = row.get("ci")
    interval = MISSING if not ci or ci["low"] is None else (
        f"[{display(ci['low'], HUMAN_DIGITS)}, {display(ci['high'], HUMAN_DIGITS)}]")
    return [interval, MISSING if row.get("cluster") is None else str(row["cluster"])]


def notes(table):
    """The lines printed under a text table: markers used, incomplete systems, intervals and test."""
    lines = [MARKER_NOTES[m] for m in MARKER_NOTES if any(row["marker"] == m for row in table.rows)]
    for row in table.rows:
        if not row["complete"]:
            share = row["ratings"] / row["expected_ratings"] if row["expected_ratings"] else 0.0
            lines.append(f"{INCOMPLETE_MARK} {row['team']}: incomplete, {row['ratings']} of {row['expected_ratings']} "
                         f"ratings ({math.floor(share * 100)}%); the score is the mean over the ratings present")
    if _has_intervals(table):
        lines.append(f"95% CI: {table.intervals['method']}, {table.intervals['resamples']} resamples, "
                     f"seed {table.intervals['seed']}")
        lines.append(f"Clusters: {table.significance['test']}, alpha {table.significance['alpha']}; "
                     "a new cluster starts where every system above is significantly better than every system below")
    return lines


def to_markdown(table):
    header = list(HEADER) + (["95% CI", "Cluster"] if _has_intervals(table) else [])
    lines = [f"Table 6: {table.campaign}", "", "| " + " | ".join(header) + " |",
             "|" + "---|" + "---:|" * (len(header) - 1)]
    for row in table.rows:
        cells = shown(row, INCOMPLETE_MARK) + (_extra(row) if _has_intervals(table) else [])
        lines.append("| " + " | ".join(_markdown_cell(c) for c in cells) + " |")
    footer = ["- " + _markdown_cell(note) for note in notes(table)]
    return "\n".join(lines + ([""] + footer if footer else [])) + "\n"


def _markdown_cell(text):
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")


def _latex_cells(row, with_intervals):
    cells = shown(row, LATEX_INCOMPLETE_MARK)
    cells = [escape(cells[0])] + [c if c.endswith(LATEX_INCOMPLETE_MARK) else escape(c) for c in cells[1:]]
    if with_intervals:
        cells += [escape(c) for c in _extra(row)]
    return cells


def to_latex(table, halves=False):
    """A booktabs tabular; ``halves`` puts the rows in two side-by-side halves as the paper does.

    In halves the Human row opens the left half alone, then the teams fill the left half
    (the larger one when their number is odd) and the right half.
    """
    with_intervals = _has_intervals(table)
    header = list(LATEX_HEADER) + (["95\\% CI", "Cluster"] if with_intervals else [])
    width = len(header)
    spec = "l" + "r" * (width - 1)
    cells = [_latex_cells(row, with_intervals) for row in table.rows]
    if halves:
        humans = [c for c, row in zip(cells, table.rows) if row["is_human"]]
        teams = [c for c, row in zip(cells, table.rows) if not row["is_human"]]
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
    for note in notes(table):
        note = escape(note).replace(INCOMPLETE_MARK, LATEX_INCOMPLETE_MARK)
        lines.append(f"\\multicolumn{{{width}}}{{l}}{{\\footnotesize {note}}} \\\\")
    lines.append("\\end{tabular}")
    return "\n".join(lines) + "\n"


def render(table, fmt, halves=False):
    """``table`` in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "csv":
        return to_csv(table)
    if fmt == "json":
        return to_json(table)
    if fmt == "markdown":
        return to_markdown(table)
    if fmt == "latex":
        return to_latex(table, halves=halves)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
