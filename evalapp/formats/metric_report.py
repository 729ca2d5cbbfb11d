"""The metric study's report (protocol.md#metric-study) as JSON, CSV, LaTeX and HTML with SVG plots. No Django imports.

Every renderer takes the report dict of ``evalapp.services.metric_study.build_report`` (or its
stored JSON), so a stored report is rendered again without recomputing anything.
"""

import html
import json
import math
from pathlib import Path

import numpy as np

from evalapp.formats import metric_report_svg as svg
from evalapp.formats.csvfile import write_csv
from evalapp.formats.latex import escape as latex_escape

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


def jsonable(value):
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


def render(report, fmt):
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return {"json": to_json, "csv": to_csv, "latex": to_latex, "html": to_html}[fmt](report)


def to_json(report):
    return json.dumps(jsonable(report), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


# --- walking the figures ---------------------------------------------------------------------


def correlation_rows(report):
    """Every correlation as (subset, level, aggregation, metric, coefficient, entry)."""
    for subset, figures in (("all", report), ("top_k", report.get("top_k") or {})):
        for metric, by_name in (figures.get("system_level") or {}).items():
            for name, entry in by_name.items():
                if name in COEFFICIENT_LABELS:
                    yield subset, "system", "", metric, name, entry
        for metric, sections in (figures.get("segment_level") or {}).items():
            for aggregation in ("flattened", "grouped_by_instance"):
                for name, entry in sections.get(aggregation, {}).items():
                    yield subset, "segment", aggregation, metric, name, entry
            if "wmt_kendall" in sections:
                yield subset, "segment", "pairs", metric, "wmt_kendall", sections["wmt_kendall"]


def _number(value, digits=DIGITS):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value:.{digits}f}"


def _p_value(value):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value:.3g}" if value >= 0.001 else "<0.001"


def _interval(ci):
    if not ci or any(v is None or (isinstance(v, float) and not math.isfinite(v)) for v in ci):
        return "–"
    return f"[{ci[0]:.{DIGITS}f}, {ci[1]:.{DIGITS}f}]"


# --- CSV -------------------------------------------------------------------------------------


def to_csv(report):
    """One tidy table: system scores, every correlation, every comparison (filter on ``table``)."""
    rows = []
    for system in report["systems"]:
        rows.append(
            (
                "system_score",
                "",
                "system",
                "",
                "human",
                system["system"],
                "mean_rating",
                system.get("human"),
                "",
                "",
                "",
                system.get("ratings"),
            )
        )
        for metric, value in system["metrics"].items():
            rows.append(("system_score", "", "system", "", metric, system["system"], "score", value, "", "", "", ""))
    for subset, level, aggregation, metric, name, entry in correlation_rows(report):
        ci = entry.get("ci") or [None, None]
        rows.append(
            (
                "correlation",
                subset,
                level,
                aggregation,
                metric,
                "human",
                name,
                entry.get("r"),
                entry.get("p"),
                ci[0],
                ci[1],
                entry.get("n"),
            )
        )
    rows += wmt_csv_rows(report)
    for comparison in report.get("comparisons", []):
        williams = comparison["williams"]
        rows.append(
            (
                "comparison",
                "all",
                comparison["level"],
                "",
                comparison["metric_a"],
                comparison["metric_b"],
                "williams_t",
                williams.get("t"),
                williams.get("p"),
                "",
                "",
                williams.get("n"),
            )
        )
        for name, test in comparison["permutation"].items():
            rows.append(
                (
                    "comparison",
                    "all",
                    comparison["level"],
                    "",
                    comparison["metric_a"],
                    comparison["metric_b"],
                    f"permutation_{name}_delta",
                    test.get("delta"),
                    test.get("p"),
                    "",
                    "",
                    test.get("resamples"),
                )
            )
    width = len(CSV_HEADER)
    return write_csv([[_csv_cell(cell) for cell in row] + [""] * (width - len(row)) for row in rows], header=CSV_HEADER)


def wmt_entries(report):
    """(metric, level, statistic, entry) of every WMT statistic in the report."""
    for level, key, _, _ in WMT_COLUMNS:
        for metric, entries in (report.get(level) or {}).items():
            if key in entries:
                yield metric, level, key, entries[key]


def ranks(report):
    """{statistic: {metric: rank}} of the metric ranking's clusters."""
    statistics = (report.get("metric_ranking") or {}).get("statistics") or {}
    return {
        statistic: {row["metric"]: row["rank"] for row in ranking.get("metrics", [])}
        for statistic, ranking in statistics.items()
    }


def wmt_csv_rows(report):
    rows = []
    for metric, level, key, entry in wmt_entries(report):
        ci = entry.get("ci") or [None, None]
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
                entry.get("value"),
                "",
                ci[0],
                ci[1],
                entry.get("pairs", entry.get("permutations")),
                entry.get("epsilon"),
            )
        )
    for statistic, ranking in ((report.get("metric_ranking") or {}).get("statistics") or {}).items():
        for row in ranking.get("metrics", []):
            rows.append(
                (
                    "ranking",
                    "all",
                    ranking.get("level", "").removesuffix("_level"),
                    "",
                    row["metric"],
                    "",
                    f"{statistic}_rank",
                    row["rank"],
                    "",
                    "",
                    "",
                    "",
                    "",
                )
            )
        for pair, p in ranking.get("p_values", {}).items():
            better, worse = pair.split("|", 1)
            rows.append(
                (
                    "ranking",
                    "all",
                    ranking.get("level", "").removesuffix("_level"),
                    "",
                    better,
                    worse,
                    f"{statistic}_bootstrap_p",
                    "",
                    p,
                    "",
                    "",
                    "",
                    "",
                )
            )
    for pair in (report.get("soft_pairwise") or {}).get("pairs", []):
        rows.append(
            (
                "soft_pairwise_p",
                "all",
                "system",
                "",
                "human",
                f"{pair['a']} > {pair['b']}",
                "p_value",
                "",
                pair.get("p_human"),
                "",
                "",
                "",
                "",
            )
        )
        for metric, p in pair.get("p_metrics", {}).items():
            rows.append(
                (
                    "soft_pairwise_p",
                    "all",
                    "system",
                    "",
                    metric,
                    f"{pair['a']} > {pair['b']}",
                    "p_value",
                    "",
                    p,
                    "",
                    "",
                    "",
                    "",
                )
            )
    return rows


def _csv_cell(value):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    return value


# --- LaTeX -----------------------------------------------------------------------------------


def _latex_table(caption, header, body):
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


def _latex_value(entry):
    text = _number(entry.get("r")).replace("–", "--")
    ci = _interval(entry.get("ci")).replace("–", "--")
    return text if ci == "--" else rf"{text} {{\scriptsize {ci}}}"


def to_latex(report):
    """booktabs tables: system level, segment level (flattened and grouped), top-k system level."""
    campaign = latex_escape(report.get("campaign", ""))
    names = ("pearson", "spearman", "kendall_b", "kendall_c")
    parts = []
    for label, figures in (
        ("all systems", report),
        (f"the top {report.get('top_k', {}).get('k')} systems by human score", report.get("top_k") or {}),
    ):
        body = [
            [latex_escape(metric)] + [_latex_value(by_name[name]) for name in names]
            for metric, by_name in (figures.get("system_level") or {}).items()
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
    for metric, sections in (report.get("segment_level") or {}).items():
        body.append(
            [latex_escape(metric)]
            + [_latex_value(sections["flattened"][n]) for n in segment_names]
            + [_latex_value(sections["grouped_by_instance"][n]) for n in segment_names]
            + [_latex_value(sections["wmt_kendall"])]
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
    for metric in _metric_names(report):
        cells = [latex_escape(metric)]
        for level, key, _, _ in WMT_COLUMNS:
            entry = (report.get(level) or {}).get(metric, {}).get(key)
            if entry is None or entry.get("value") is None:
                cells.append("--")
                continue
            text = _latex_value({"r": entry.get("value"), "ci": entry.get("ci")})
            if entry.get("epsilon") is not None:
                text += rf" {{\scriptsize $\varepsilon$={_number(entry['epsilon'])}}}"
            if metric in rank_of.get(key, {}):
                text += rf" ({rank_of[key][metric]})"
            cells.append(text)
        body.append(cells)
    if body:
        alpha = (report.get("metric_ranking") or {}).get("alpha")
        parts.append(
            _latex_table(
                f"The WMT metrics tasks' statistics on campaign {campaign}: value, 95\\% bootstrap interval over "
                f"instances, tie threshold $\\varepsilon$ and (rank cluster, paired bootstrap, $\\alpha$={alpha}).",
                ["Metric"] + [latex for _, _, _, latex in WMT_COLUMNS],
                body,
            )
        )
    return "% requires \\usepackage{booktabs}\n" + "\n".join(parts)


def _metric_names(report):
    return [m["name"] for m in report.get("metrics", [])] or list(report.get("system_level") or {})


# --- plots -----------------------------------------------------------------------------------

HUMAN_AXIS = "human score (0-3)"
CHART_STATISTICS = (
    ("system_level", "pearson", "System-level Pearson r"),
    ("system_level", "pairwise_accuracy", "Pairwise accuracy"),
    ("system_level", "soft_pairwise_accuracy", "Soft pairwise accuracy"),
    ("segment_level", "acc_eq", "acc_eq (flattened)"),
    ("segment_level", "acc_eq_grouped", "acc_eq grouped by instance"),
)


def scatter_svg(report, metric):
    """Metric (x) against human score (y), one labelled point per system in the correlations,
    Pearson r in the title; None when no system has both scores."""
    points = [
        (s["metrics"].get(metric), s["human"], s["system"])
        for s in report["systems"]
        if s.get("in_correlations") and s["metrics"].get(metric) is not None and s.get("human") is not None
    ]
    r = (report.get("system_level", {}).get(metric, {}).get("pearson") or {}).get("r")
    return svg.scatter_svg(f"{metric}: Pearson r = {_number(r)}", points, metric, HUMAN_AXIS)


def scatter_plots(report):
    """[(metric, svg)] of the metrics that have points."""
    plots = [(m["name"], scatter_svg(report, m["name"])) for m in report.get("metrics", [])]
    return [(name, plot) for name, plot in plots if plot is not None]


def statistic_charts(report):
    """[(title, svg)]: each statistic per metric with its interval (and rank cluster); empty ones left out."""
    rank_of = ranks(report)
    charts = []
    for level, key, title in CHART_STATISTICS:
        rows = []
        for metric in _metric_names(report):
            entry = (report.get(level) or {}).get(metric, {}).get(key)
            if not entry:
                continue
            value = entry.get("value", entry.get("r"))
            ci = entry.get("ci") or [None, None]
            rows.append((metric, value, ci[0], ci[1], rank_of.get(key, {}).get(metric)))
        chart = svg.interval_chart_svg(title, rows)
        if chart is not None:
            charts.append((title, chart))
    return charts


def histogram_plots(report):
    """[(system, svg)] of the systems that received ratings, all on one y-axis (the highest count of any)."""
    histograms = report.get("rating_histograms") or {}
    y_max = max((max(counts) for counts in histograms.values() if counts), default=0)
    plots = [(name, svg.histogram_svg(name, counts, y_max)) for name, counts in histograms.items()]
    return [(name, plot) for name, plot in plots if plot is not None]


# --- HTML ------------------------------------------------------------------------------------
# Table cells after the row header are (value, detail) pairs: the value never wraps, the detail
# (p-value, interval) goes on its own line in a smaller type.


def system_table(report):
    """Header and rows of the system scores table (used by the HTML export and the app page)."""
    metrics = [m["name"] for m in report.get("metrics", [])]
    header = ["System", "Human", "Ratings"] + metrics
    rows = []
    for s in report["systems"]:
        label = s["system"] + ("" if s.get("complete", True) else " (incomplete)")
        rows.append(
            [label, (_number(s.get("human")), ""), (f"{s.get('ratings', 0)}/{s.get('expected_ratings', 0)}", "")]
            + [(_number(s["metrics"].get(m)), "") for m in metrics]
        )
    return header, rows


def correlation_table(figures, level):
    """Header and rows of the system-level or segment-level correlations of ``figures``."""
    if level == "system":
        names = ("pearson", "spearman", "kendall_b", "kendall_c")
        header = ["Metric"] + [COEFFICIENT_LABELS[n] for n in names]
        rows = [
            [metric] + [_cell(by_name[n]) for n in names]
            for metric, by_name in (figures.get("system_level") or {}).items()
            if "pearson" in by_name
        ]
        return header, rows
    names = ("pearson", "spearman", "kendall_b")
    header = (
        ["Metric"]
        + [f"{COEFFICIENT_LABELS[n]} flattened" for n in names]
        + [f"{COEFFICIENT_LABELS[n]} grouped" for n in names]
        + [COEFFICIENT_LABELS["wmt_kendall"]]
    )
    rows = [
        [metric]
        + [_cell(sections["flattened"][n]) for n in names]
        + [_cell(sections["grouped_by_instance"][n]) for n in names]
        + [_cell(sections["wmt_kendall"])]
        for metric, sections in (figures.get("segment_level") or {}).items()
        if "flattened" in sections
    ]
    return header, rows


def comparison_table(report):
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
    for c in report.get("comparisons", []):
        w, perm = c["williams"], c["permutation"]
        rows.append(
            [c["level"]]
            + [(c["metric_a"], ""), (c["metric_b"], "")]
            + [
                (text, "")
                for text in (
                    _number(w.get("r_a")),
                    _number(w.get("r_b")),
                    _number(w.get("t")),
                    _p_value(w.get("p")),
                    _number(perm.get("pearson", {}).get("delta")),
                    _p_value(perm.get("pearson", {}).get("p")),
                    _number(perm.get("kendall_b", {}).get("delta")),
                    _p_value(perm.get("kendall_b", {}).get("p")),
                )
            ]
        )
    return header, rows


def pair_p_value_table(report):
    """Soft pairwise accuracy's per-pair p-values: human and each metric."""
    pairs = (report.get("soft_pairwise") or {}).get("pairs", [])
    metrics = list(pairs[0]["p_metrics"]) if pairs else []
    header = ["Systems (a > b)", "p human"] + [f"p {m}" for m in metrics]
    rows = [
        [f"{pair['a']} > {pair['b']}", (_p_value(pair.get("p_human")), "")]
        + [(_p_value(pair["p_metrics"].get(m)), "") for m in metrics]
        for pair in pairs
    ]
    return header, rows


def ranking_p_value_table(report):
    """The metric ranking's paired bootstrap p-values (a above b)."""
    header = ["Statistic", "Metric above", "Metric below", "p (below at least as good)"]
    rows = []
    for statistic, ranking in ((report.get("metric_ranking") or {}).get("statistics") or {}).items():
        for pair, p in ranking.get("p_values", {}).items():
            better, worse = pair.split("|", 1)
            rows.append([statistic, (better, ""), (worse, ""), (_p_value(p), "")])
    return header, rows


def _cell(entry):
    detail = []
    if entry.get("p") is not None:
        detail.append(f"p {_p_value(entry.get('p'))}")
    ci = _interval(entry.get("ci"))
    if ci != "–":
        detail.append(ci)
    return _number(entry.get("r")), " ".join(detail)


def summary_table(report):
    """Header and rows of the summary: per metric, system-level Pearson and the WMT statistics,
    each as value and rank cluster (#), with the interval and epsilon below."""
    rank_of = ranks(report)
    header = ["Metric", "Pearson r (system)"] + [label for _, _, label, _ in WMT_COLUMNS]
    rows = []
    for metric in _metric_names(report):
        pearson = (report.get("system_level") or {}).get(metric, {}).get("pearson") or {}
        row = [metric, _summary_cell(pearson.get("r"), pearson.get("ci"), None, None)]
        for level, key, _, _ in WMT_COLUMNS:
            entry = (report.get(level) or {}).get(metric, {}).get(key) or {}
            row.append(
                _summary_cell(
                    entry.get("value"), entry.get("ci"), entry.get("epsilon"), rank_of.get(key, {}).get(metric)
                )
            )
        rows.append(row)
    return header, rows


def _summary_cell(value, ci, epsilon, rank):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–", ""
    text = _number(value) + (f" #{rank}" if rank is not None else "")
    detail = [] if _interval(ci) == "–" else [_interval(ci)]
    if epsilon is not None:
        detail.append(f"ε {_number(epsilon)}")
    return text, " ".join(detail)


def _html_table(caption, header, rows, css_class=""):
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


def _figures(items, css_class):
    return (
        f'<div class="{css_class}">' + "".join(f"<figure>{plot}</figure>" for _, plot in items) + "</div>"
        if items
        else '<p class="muted">No data to plot.</p>'
    )


def export_css():
    """The report's stylesheet (static/css/metric-report.css), inlined in the downloadable page."""
    try:
        return STYLESHEET.read_text(encoding="utf-8")
    except OSError:
        return ""


def to_html(report):
    """A standalone page laid out as the app's report: summary, plots, charts, tables, folded details."""
    escape = html.escape
    top = report.get("top_k") or {}
    signatures = "".join(
        f'<li><code>{escape(name)}</code>: <code class="wrap">{escape(sig or "")}</code></li>'
        for name, sig in report.get("signatures", {}).items()
    )
    versions = ", ".join(f"{escape(k)} {escape(str(v))}" for k, v in report.get("versions", {}).items())
    notes = "".join(f"<li>{escape(note)}</li>" for note in report.get("notes", []))
    boot = report.get("bootstrap") or {}
    spa = report.get("soft_pairwise") or {}
    title = f"Metric study: {report.get('campaign', '')}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>body{{font-family:system-ui,sans-serif;margin:1rem auto;max-width:78rem;padding:0 1rem}}
table{{border-collapse:collapse;width:100%}}th,td{{border-bottom:1px solid #ccc;padding:.25rem .4rem}}
th[scope=row]{{text-align:left}}caption{{text-align:left;font-weight:600}}td.num,th.num{{text-align:right}}
{export_css()}</style></head>
<body><main class="metric-report"><h1>{escape(title)}</h1>
<p>Dataset {escape(str(report.get("dataset", "")))}; {report.get("instances", {}).get("campaign")} sampled instances;
seed {escape(str(report.get("seed")))}; {boot.get("resamples")} bootstrap resamples.</p>
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
{_html_table("System-level correlation with the human scores (all systems)", *correlation_table(report, "system"))}
{
        _html_table(
            f"System-level correlation, top {top.get('k')} systems by human score "
            f"({', '.join(top.get('systems', []))})",
            *correlation_table(top, "system"),
        )
    }
{_html_table("Segment-level correlation with the human scores", *correlation_table(report, "segment"))}
<h2>Rating histograms</h2><p>Every panel has the same y-axis: the same height is the same number of ratings.</p>{
        _figures(histogram_plots(report), "histogram-grid")
    }
<h2>Details</h2>
<details><summary>Metric comparisons: Williams' test and paired permutation tests</summary>
{_html_table("Metric comparisons: Williams' test and paired permutation tests", *comparison_table(report))}</details>
<details><summary>Soft pairwise accuracy: per-pair p-values ({spa.get("permutations")} permutations)</summary>
{_html_table("One-sided paired permutation test: p(a better than b)", *pair_p_value_table(report))}</details>
<details><summary>Metric ranking: paired bootstrap p-values</summary>
{_html_table("p that the lower metric is at least as good", *ranking_p_value_table(report))}</details>
<details><summary>Bootstrap settings and notes</summary><p>{escape(str(boot.get("method", "")))};
{boot.get("resamples")} resamples, seed {escape(str(boot.get("seed")))}, confidence {boot.get("confidence")}.</p>
<ul>{notes}</ul></details>
<details><summary>Signatures and package versions</summary><ul>{signatures}</ul><p>{versions}</p></details>
</main></body></html>
"""
