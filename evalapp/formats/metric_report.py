"""The metric study's report (S10) as JSON, CSV, LaTeX and HTML with SVG plots. No Django imports.

Every renderer takes a :class:`~evalapp.compute.metric_study_report.MetricReport` (built by
``evalapp.services.metric_study.report.build_report``, or loaded from a stored run's JSON of any
version) and reads its attributes, so a stored report is rendered again without recomputing anything.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evalapp.compute.metric_study_report import (
    Correlation,
    Figures,
    Interval,
    MetricReport,
    Statistic,
    correlation_entries,
)
from evalapp.formats import csvfile, latex
from evalapp.formats import metric_report_svg as svg

# the shared CSV writer (formula-safe cells) and LaTeX escaping, under the types this module relies on
write_csv: Callable[..., str] = csvfile.write_csv
latex_escape: Callable[[str], str] = latex.escape

Cell = tuple[str, str]  # a table cell after the row header: (value, detail)
Table = tuple[list[str], list[list[Any]]]

FORMATS = ("json", "csv", "latex", "html")
CONTENT_TYPES = {
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "latex": "application/x-latex; charset=utf-8",
    "html": "text/html; charset=utf-8",
}
EXTENSIONS = {"json": "json", "csv": "csv", "latex": "tex", "html": "html"}
COEFFICIENT_LABELS = {
    "pearson": "Pearson r",
    "spearman": "Spearman ρ",
    "kendall_b": "Kendall τb",
    "kendall_c": "Kendall τc",
    "wmt_kendall": "WMT τ",
}
LATEX_COEFFICIENT_LABELS = {
    "pearson": "Pearson $r$",
    "spearman": r"Spearman $\rho$",
    "kendall_b": r"Kendall $\tau_b$",
    "kendall_c": r"Kendall $\tau_c$",
    "wmt_kendall": r"WMT $\tau$",
}
DIGITS = 3
STYLESHEET = Path(__file__).resolve().parents[2] / "static" / "css" / "metric-report.css"
CSV_HEADER = (
    "table",
    "subset",
    "level",
    "aggregation",
    "metric",
    "other",
    "statistic",
    "value",
    "p",
    "ci_low",
    "ci_high",
    "n",
    "epsilon",
)
# the WMT metrics tasks' statistics: (level, key, label, LaTeX label)
WMT_COLUMNS = (
    ("system_level", "pairwise_accuracy", "Pairwise accuracy", "Pairwise acc."),
    ("system_level", "soft_pairwise_accuracy", "Soft pairwise accuracy", "SPA"),
    ("segment_level", "acc_eq", "acc_eq", r"acc\textsubscript{eq}"),
    ("segment_level", "acc_eq_grouped", "acc_eq grouped", r"acc\textsubscript{eq} grouped"),
)


def jsonable(value: Any) -> Any:
    """Plain JSON types, with NaN and infinities as null (strict JSON; PostgreSQL jsonb refuses NaN)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def render(report: MetricReport, fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return {"json": to_json, "csv": to_csv, "latex": to_latex, "html": to_html}[fmt](report)


def to_json(report: MetricReport) -> str:
    """The report's versioned JSON form (``format_version`` first)."""
    return json.dumps(jsonable(report.to_json()), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


# --- walking the figures ---------------------------------------------------------------------


def correlation_rows(report: MetricReport) -> Iterator[tuple[str, str, str, str, str, Correlation]]:
    """Every correlation as (subset, level, aggregation, metric, coefficient, entry)."""
    subsets: list[tuple[str, Figures]] = [("all", report.figures)]
    if report.top_k is not None:
        subsets.append(("top_k", report.top_k.figures))
    for subset, figures in subsets:
        for level, aggregation, metric, entry in correlation_entries(figures):
            yield subset, level, aggregation, metric, entry.coefficient, entry


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def _number(value: float | None, digits: int = DIGITS) -> str:
    if value is None or _missing(value):
        return "–"
    return f"{value:.{digits}f}"


def _p_value(value: float | None) -> str:
    if value is None or _missing(value):
        return "–"
    return f"{value:.3g}" if value >= 0.001 else "<0.001"


def _interval(ci: Interval | None) -> str:
    if not ci or any(_missing(v) for v in ci):
        return "–"
    return f"[{ci[0]:.{DIGITS}f}, {ci[1]:.{DIGITS}f}]"


def _statistic_entry(report: MetricReport, level: str, metric: str, key: str) -> Statistic | None:
    return report.figures.statistic(level, metric, key)


# --- CSV -------------------------------------------------------------------------------------


def to_csv(report: MetricReport) -> str:
    """One tidy table: system scores, every correlation, every comparison (filter on ``table``)."""
    rows: list[tuple[Any, ...]] = []
    for system in report.systems:
        rows.append(
            (
                "system_score",
                "",
                "system",
                "",
                "human",
                system.system,
                "mean_rating",
                system.human,
                "",
                "",
                "",
                system.ratings,
            )
        )
        for metric, value in system.metrics.items():
            rows.append(("system_score", "", "system", "", metric, system.system, "score", value, "", "", "", ""))
    for subset, level, aggregation, metric, name, entry in correlation_rows(report):
        rows.append(
            (
                "correlation",
                subset,
                level,
                aggregation,
                metric,
                "human",
                name,
                entry.r,
                entry.p,
                entry.ci[0],
                entry.ci[1],
                entry.n,
            )
        )
    rows += wmt_csv_rows(report)
    for comparison in report.comparisons:
        williams = comparison.williams
        rows.append(
            (
                "comparison",
                "all",
                comparison.level,
                "",
                comparison.metric_a,
                comparison.metric_b,
                "williams_t",
                williams.t,
                williams.p,
                "",
                "",
                williams.n,
            )
        )
        for name, test in comparison.permutation.items():
            rows.append(
                (
                    "comparison",
                    "all",
                    comparison.level,
                    "",
                    comparison.metric_a,
                    comparison.metric_b,
                    f"permutation_{name}_delta",
                    test.delta,
                    test.p,
                    "",
                    "",
                    test.resamples,
                )
            )
    width = len(CSV_HEADER)
    return write_csv([[_csv_cell(cell) for cell in row] + [""] * (width - len(row)) for row in rows], header=CSV_HEADER)


def wmt_entries(report: MetricReport) -> Iterator[tuple[str, str, str, Statistic]]:
    """(metric, level, statistic, entry) of every WMT statistic in the report."""
    for level, key, _, _ in WMT_COLUMNS:
        metrics = report.system_level if level == "system_level" else report.segment_level
        for metric in metrics:
            entry = _statistic_entry(report, level, metric, key)
            if entry is not None:
                yield metric, level, key, entry


def ranks(report: MetricReport) -> dict[str, dict[str, int]]:
    """{statistic: {metric: rank}} of the metric ranking's clusters."""
    return report.ranks()


def wmt_csv_rows(report: MetricReport) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for metric, level, key, entry in wmt_entries(report):
        aggregation = {"acc_eq": "flattened", "acc_eq_grouped": "grouped_by_instance"}.get(key, "")
        rows.append(
            (
                "wmt",
                "all",
                level.removesuffix("_level"),
                aggregation,
                metric,
                "human",
                key,
                entry.value,
                "",
                entry.ci[0],
                entry.ci[1],
                entry.pairs if entry.pairs is not None else entry.permutations,
                entry.epsilon,
            )
        )
    statistics = report.metric_ranking.statistics if report.metric_ranking is not None else {}
    for statistic, ranking in statistics.items():
        for row in ranking.metrics:
            rows.append(
                (
                    "ranking",
                    "all",
                    ranking.level.removesuffix("_level"),
                    "",
                    row.metric,
                    "",
                    f"{statistic}_rank",
                    row.rank,
                    "",
                    "",
                    "",
                    "",
                    "",
                )
            )
        for pair in ranking.p_values:
            rows.append(
                (
                    "ranking",
                    "all",
                    ranking.level.removesuffix("_level"),
                    "",
                    pair.better,
                    pair.worse,
                    f"{statistic}_bootstrap_p",
                    "",
                    pair.p,
                    "",
                    "",
                    "",
                    "",
                )
            )
    for system_pair in report.soft_pairwise.pairs if report.soft_pairwise is not None else []:
        systems = f"{system_pair.a} > {system_pair.b}"
        rows.append(
            ("soft_pairwise_p", "all", "system", "", "human", systems, "p_value", "", system_pair.p_human)
            + ("", "", "", "")
        )
        for metric, p in system_pair.p_metrics.items():
            rows.append(("soft_pairwise_p", "all", "system", "", metric, systems, "p_value", "", p, "", "", "", ""))
    return rows


def _csv_cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    return value


# --- LaTeX -----------------------------------------------------------------------------------


def _latex_table(caption: str, header: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    columns = "l" + "r" * (len(header) - 1)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{{columns}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(cells) + r" \\" for cells in body]
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{caption}}}", r"\end{table}", ""]
    return "\n".join(lines)


def _latex_value(value: float | None, ci: Interval | None) -> str:
    text = _number(value).replace("–", "--")
    interval = _interval(ci).replace("–", "--")
    return text if interval == "--" else rf"{text} {{\scriptsize {interval}}}"


def _latex_correlation(entry: Correlation | None) -> str:
    return _latex_value(entry.r, entry.ci) if entry is not None else "--"


def to_latex(report: MetricReport) -> str:
    """booktabs tables: system level, segment level (flattened and grouped), top-k system level."""
    campaign = latex_escape(report.campaign)
    names = ("pearson", "spearman", "kendall_b", "kendall_c")
    parts = []
    top = report.top_k
    for label, figures in (
        ("all systems", report.figures),
        (f"the top {top.k if top else None} systems by human score", top.figures if top else Figures()),
    ):
        body = [
            [latex_escape(metric)] + [_latex_correlation(level.coefficients.named(name)) for name in names]
            for metric, level in figures.system_level.items()
        ]
        if body:
            parts.append(
                _latex_table(
                    f"System-level correlation with the human scores of campaign {campaign}, {label} "
                    "(95\\% interval: Fisher $z$ for Pearson, bootstrap otherwise).",
                    ["Metric"] + [LATEX_COEFFICIENT_LABELS[n] for n in names],
                    body,
                )
            )
    segment_names = ("pearson", "spearman", "kendall_b")
    body = []
    for metric, sections in report.segment_level.items():
        body.append(
            [latex_escape(metric)]
            + [_latex_correlation(sections.flattened.named(n)) for n in segment_names]
            + [_latex_correlation(sections.grouped_by_instance.named(n)) for n in segment_names]
            + [_latex_correlation(sections.wmt_kendall)]
        )
    if body:
        header = (
            ["Metric"]
            + [f"{LATEX_COEFFICIENT_LABELS[n]} (flat)" for n in segment_names]
            + [f"{LATEX_COEFFICIENT_LABELS[n]} (grouped)" for n in segment_names]
            + [LATEX_COEFFICIENT_LABELS["wmt_kendall"]]
        )
        parts.append(
            _latex_table(
                f"Segment-level correlation with the human scores of campaign {campaign} "
                "(95\\% bootstrap intervals over instances).",
                header,
                body,
            )
        )
    body = []
    rank_of = ranks(report)
    for metric in report.metric_names():
        cells = [latex_escape(metric)]
        for level, key, _, _ in WMT_COLUMNS:
            entry = _statistic_entry(report, level, metric, key)
            if entry is None or entry.value is None:
                cells.append("--")
                continue
            text = _latex_value(entry.value, entry.ci)
            if entry.epsilon is not None:
                text += rf" {{\scriptsize $\varepsilon$={_number(entry.epsilon)}}}"
            if metric in rank_of.get(key, {}):
                text += rf" ({rank_of[key][metric]})"
            cells.append(text)
        body.append(cells)
    if body:
        alpha = report.metric_ranking.alpha if report.metric_ranking is not None else None
        parts.append(
            _latex_table(
                f"The WMT metrics tasks' statistics on campaign {campaign}: value, 95\\% bootstrap interval over "
                f"instances, tie threshold $\\varepsilon$ and (rank cluster, paired bootstrap, $\\alpha$={alpha}).",
                ["Metric"] + [latex for _, _, _, latex in WMT_COLUMNS],
                body,
            )
        )
    return "% requires \\usepackage{booktabs}\n" + "\n".join(parts)


# --- plots -----------------------------------------------------------------------------------

HUMAN_AXIS = "human score (0-3)"
CHART_STATISTICS = (
    ("system_level", "pearson", "System-level Pearson r"),
    ("system_level", "pairwise_accuracy", "Pairwise accuracy"),
    ("system_level", "soft_pairwise_accuracy", "Soft pairwise accuracy"),
    ("segment_level", "acc_eq", "acc_eq (flattened)"),
    ("segment_level", "acc_eq_grouped", "acc_eq grouped by instance"),
)


def _pearson(report: MetricReport, metric: str) -> Correlation | None:
    level = report.system_level.get(metric)
    return level.coefficients.pearson if level is not None else None


def scatter_svg(report: MetricReport, metric: str) -> str | None:
    """Metric (x) against human score (y), one labelled point per system in the correlations,
    Pearson r in the title; None when no system has both scores."""
    points = [
        (s.metrics.get(metric), s.human, s.system)
        for s in report.systems
        if s.in_correlations and s.metrics.get(metric) is not None and s.human is not None
    ]
    pearson = _pearson(report, metric)
    r = pearson.r if pearson is not None else None
    return svg.scatter_svg(f"{metric}: Pearson r = {_number(r)}", points, metric, HUMAN_AXIS)


def scatter_plots(report: MetricReport) -> list[tuple[str, str]]:
    """[(metric, svg)] of the metrics that have points."""
    plots = [(m.name, scatter_svg(report, m.name)) for m in report.metrics]
    return [(name, plot) for name, plot in plots if plot is not None]


def _chart_entry(report: MetricReport, level: str, metric: str, key: str) -> tuple[float | None, Interval] | None:
    """(value, interval) of a charted statistic of a metric, or None when it has none."""
    if key == "pearson":
        pearson = _pearson(report, metric)
        return (pearson.r, pearson.ci) if pearson is not None else None
    entry = _statistic_entry(report, level, metric, key)
    return (entry.value, entry.ci) if entry is not None else None


def statistic_charts(report: MetricReport) -> list[tuple[str, str]]:
    """[(title, svg)]: each statistic per metric with its interval (and rank cluster); empty ones left out."""
    rank_of = ranks(report)
    charts = []
    for level, key, title in CHART_STATISTICS:
        rows = []
        for metric in report.metric_names():
            found = _chart_entry(report, level, metric, key)
            if found is None:
                continue
            value, ci = found
            rows.append((metric, value, ci[0], ci[1], rank_of.get(key, {}).get(metric)))
        chart = svg.interval_chart_svg(title, rows)
        if chart is not None:
            charts.append((title, chart))
    return charts


def histogram_plots(report: MetricReport) -> list[tuple[str, str]]:
    """[(system, svg)] of the systems that received ratings, all on one y-axis (the highest count of any)."""
    histograms = report.rating_histograms
    y_max = max((max(counts) for counts in histograms.values() if counts), default=0)
    plots = [(name, svg.histogram_svg(name, counts, y_max)) for name, counts in histograms.items()]
    return [(name, plot) for name, plot in plots if plot is not None]


# --- HTML ------------------------------------------------------------------------------------
# Table cells after the row header are (value, detail) pairs: the value never wraps, the detail
# (p-value, interval) goes on its own line in a smaller type.


def system_table(report: MetricReport) -> Table:
    """Header and rows of the system scores table (used by the HTML export and the app page)."""
    metrics = [m.name for m in report.metrics]
    header = ["System", "Human", "Ratings"] + metrics
    rows = []
    for s in report.systems:
        label = s.system + ("" if s.complete else " (incomplete)")
        rows.append(
            [label, (_number(s.human), ""), (f"{s.ratings}/{s.expected_ratings}", "")]
            + [(_number(s.metrics.get(m)), "") for m in metrics]
        )
    return header, rows


def correlation_table(figures: Figures | None, level: str) -> Table:
    """Header and rows of the system-level or segment-level correlations of ``figures`` (all systems'
    or the top k's; none without a top-k analysis)."""
    figures = figures if figures is not None else Figures()
    if level == "system":
        names = ("pearson", "spearman", "kendall_b", "kendall_c")
        header = ["Metric"] + [COEFFICIENT_LABELS[n] for n in names]
        rows = [
            [metric] + [_cell(system.coefficients.named(n)) for n in names]
            for metric, system in figures.system_level.items()
        ]
        return header, rows
    segment_names = ("pearson", "spearman", "kendall_b")
    header = (
        ["Metric"]
        + [f"{COEFFICIENT_LABELS[n]} flattened" for n in segment_names]
        + [f"{COEFFICIENT_LABELS[n]} grouped" for n in segment_names]
        + [COEFFICIENT_LABELS["wmt_kendall"]]
    )
    rows = [
        [metric]
        + [_cell(sections.flattened.named(n)) for n in segment_names]
        + [_cell(sections.grouped_by_instance.named(n)) for n in segment_names]
        + [_cell(sections.wmt_kendall)]
        for metric, sections in figures.segment_level.items()
    ]
    return header, rows


def comparison_table(report: MetricReport) -> Table:
    header = [
        "Level",
        "Metric A",
        "Metric B",
        "r(A)",
        "r(B)",
        "Williams t",
        "p (A > B)",
        "perm. Δr Pearson",
        "p",
        "perm. Δτb",
        "p",
    ]
    rows = []
    for c in report.comparisons:
        w = c.williams
        pearson, kendall = c.permutation.get("pearson"), c.permutation.get("kendall_b")
        rows.append(
            [c.level]
            + [(c.metric_a, ""), (c.metric_b, "")]
            + [
                (text, "")
                for text in (
                    _number(w.r_a),
                    _number(w.r_b),
                    _number(w.t),
                    _p_value(w.p),
                    _number(pearson.delta if pearson else None),
                    _p_value(pearson.p if pearson else None),
                    _number(kendall.delta if kendall else None),
                    _p_value(kendall.p if kendall else None),
                )
            ]
        )
    return header, rows


def pair_p_value_table(report: MetricReport) -> Table:
    """Soft pairwise accuracy's per-pair p-values: human and each metric."""
    pairs = report.soft_pairwise.pairs if report.soft_pairwise is not None else []
    metrics = list(pairs[0].p_metrics) if pairs else []
    header = ["Systems (a > b)", "p human"] + [f"p {m}" for m in metrics]
    rows = [
        [f"{pair.a} > {pair.b}", (_p_value(pair.p_human), "")]
        + [(_p_value(pair.p_metrics.get(m)), "") for m in metrics]
        for pair in pairs
    ]
    return header, rows


def ranking_p_value_table(report: MetricReport) -> Table:
    """The metric ranking's paired bootstrap p-values (a above b)."""
    header = ["Statistic", "Metric above", "Metric below", "p (below at least as good)"]
    rows: list[list[Any]] = []
    statistics = report.metric_ranking.statistics if report.metric_ranking is not None else {}
    for statistic, ranking in statistics.items():
        for pair in ranking.p_values:
            rows.append([statistic, (pair.better, ""), (pair.worse, ""), (_p_value(pair.p), "")])
    return header, rows


def ranking_alpha(report: MetricReport) -> float | str:
    """The metric ranking's significance level ("" without a ranking)."""
    alpha = report.metric_ranking.alpha if report.metric_ranking is not None else None
    return "" if alpha is None else alpha


def _cell(entry: Correlation | None) -> Cell:
    if entry is None:
        return "–", ""
    detail = []
    if entry.p is not None:
        detail.append(f"p {_p_value(entry.p)}")
    ci = _interval(entry.ci)
    if ci != "–":
        detail.append(ci)
    return _number(entry.r), " ".join(detail)


def summary_table(report: MetricReport) -> Table:
    """Header and rows of the summary: per metric, system-level Pearson and the WMT statistics,
    each as value and rank cluster (#), with the interval and epsilon below."""
    rank_of = ranks(report)
    header = ["Metric", "Pearson r (system)"] + [label for _, _, label, _ in WMT_COLUMNS]
    rows = []
    for metric in report.metric_names():
        pearson = _pearson(report, metric)
        row: list[Any] = [
            metric,
            _summary_cell(pearson.r if pearson else None, pearson.ci if pearson else None, None, None),
        ]
        for level, key, _, _ in WMT_COLUMNS:
            entry = _statistic_entry(report, level, metric, key)
            row.append(
                _summary_cell(
                    entry.value if entry else None,
                    entry.ci if entry else None,
                    entry.epsilon if entry else None,
                    rank_of.get(key, {}).get(metric),
                )
            )
        rows.append(row)
    return header, rows


def _summary_cell(value: float | None, ci: Interval | None, epsilon: float | None, rank: int | None) -> Cell:
    if value is None or _missing(value):
        return "–", ""
    text = _number(value) + (f" #{rank}" if rank is not None else "")
    detail = [] if _interval(ci) == "–" else [_interval(ci)]
    if epsilon is not None:
        detail.append(f"ε {_number(epsilon)}")
    return text, " ".join(detail)


def _html_table(caption: str, header: Sequence[str], rows: Sequence[Sequence[Any]], css_class: str = "") -> str:
    escape = html.escape
    numeric = ' class="num"'
    head = "".join(f'<th scope="col"{"" if i == 0 else numeric}>{escape(str(h))}</th>' for i, h in enumerate(header))
    body = []
    for cells in rows:
        parts = [f'<th scope="row">{escape(str(cells[0]))}</th>']
        for cell in cells[1:]:
            value, detail = cell if isinstance(cell, tuple) else (cell, "")
            parts.append(
                f'<td class="num"><span class="value">{escape(str(value))}</span>'
                + (f'<span class="detail">{escape(str(detail))}</span>' if detail else "")
                + "</td>"
            )
        body.append("<tr>" + "".join(parts) + "</tr>")
    if not rows:
        body.append(f'<tr><td colspan="{len(header)}">No figures.</td></tr>')
    table_class = f' class="{css_class}"' if css_class else ""
    return (
        f'<div class="table-wrap"><table{table_class}><caption>{escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def _figures(items: Sequence[tuple[str, str]], css_class: str) -> str:
    return (
        f'<div class="{css_class}">' + "".join(f"<figure>{plot}</figure>" for _, plot in items) + "</div>"
        if items
        else '<p class="muted">No data to plot.</p>'
    )


def export_css() -> str:
    """The report's stylesheet (static/css/metric-report.css), inlined in the downloadable page."""
    try:
        return STYLESHEET.read_text(encoding="utf-8")
    except OSError:
        return ""


def to_html(report: MetricReport) -> str:
    """A standalone page laid out as the app's report: summary, plots, charts, tables, folded details."""
    escape = html.escape
    top = report.top_k
    signatures = "".join(
        f'<li><code>{escape(name)}</code>: <code class="wrap">{escape(sig or "")}</code></li>'
        for name, sig in report.signatures.items()
    )
    versions = ", ".join(f"{escape(k)} {escape(str(v))}" for k, v in report.versions.items())
    notes = "".join(f"<li>{escape(note)}</li>" for note in report.notes)
    boot = report.bootstrap
    spa_permutations = report.soft_pairwise.permutations if report.soft_pairwise is not None else None
    title = f"Metric study: {report.campaign}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>body{{font-family:system-ui,sans-serif;margin:1rem auto;max-width:78rem;padding:0 1rem}}
table{{border-collapse:collapse;width:100%}}th,td{{border-bottom:1px solid #ccc;padding:.25rem .4rem}}
th[scope=row]{{text-align:left}}caption{{text-align:left;font-weight:600}}td.num,th.num{{text-align:right}}
{export_css()}</style></head>
<body><main class="metric-report"><h1>{escape(title)}</h1>
<p>Dataset {escape(report.dataset)}; {report.instances.campaign} sampled instances;
seed {escape(str(report.seed))}; {boot.resamples} bootstrap resamples.</p>
<h2>Summary</h2>
{
        _html_table(
            "Per metric: value #rank cluster, with the 95% bootstrap interval and ε below",
            *summary_table(report),
            css_class="summary",
        )
    }
<h2>Metric against human score</h2>{_figures(scatter_plots(report), "plot-grid")}
<h2>Statistics per metric</h2>{_figures(statistic_charts(report), "plot-grid")}
<h2>System scores</h2>{
        _html_table("Human score (mean rating, 0-3) and metric scores per system", *system_table(report))
    }
<h2>Correlations</h2>
{
        _html_table(
            "System-level correlation with the human scores (all systems)", *correlation_table(report.figures, "system")
        )
    }
{
        _html_table(
            f"System-level correlation, top {top.k if top else None} systems by human score "
            f"({', '.join(top.systems if top else [])})",
            *correlation_table(top.figures if top else None, "system"),
        )
    }
{_html_table("Segment-level correlation with the human scores", *correlation_table(report.figures, "segment"))}
<h2>Rating histograms</h2><p>Every panel has the same y-axis: the same height is the same number of ratings.</p>{
        _figures(histogram_plots(report), "histogram-grid")
    }
<h2>Details</h2>
<details><summary>Metric comparisons: Williams' test and paired permutation tests</summary>
{_html_table("Metric comparisons: Williams' test and paired permutation tests", *comparison_table(report))}</details>
<details><summary>Soft pairwise accuracy: per-pair p-values ({spa_permutations} permutations)</summary>
{_html_table("One-sided paired permutation test: p(a better than b)", *pair_p_value_table(report))}</details>
<details><summary>Metric ranking: paired bootstrap p-values</summary>
{_html_table("p that the lower metric is at least as good", *ranking_p_value_table(report))}</details>
<details><summary>Bootstrap settings and notes</summary><p>{escape(boot.method)};
{boot.resamples} resamples, seed {escape(str(boot.seed))}, confidence {boot.confidence}.</p>
<ul>{notes}</ul></details>
<details><summary>Signatures and package versions</summary><ul>{signatures}</ul><p>{versions}</p></details>
</main></body></html>
"""
