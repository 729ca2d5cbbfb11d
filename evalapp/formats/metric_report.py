"""The metric study's report (S10) as JSON, CSV, LaTeX and HTML with SVG plots. No Django imports.

Every renderer takes the report dict of ``evalapp.services.metric_study.build_report`` (or its
stored JSON), so a stored report is rendered again without recomputing anything.
"""
import html
import io
import json
import math

import numpy as np

from evalapp.formats.csvfile import write_csv
from evalapp.formats.latex import escape as latex_escape

FORMATS = ("json", "csv", "latex", "html")
CONTENT_TYPES = {"json": "application/json", "csv": "text/csv; charset=utf-8",
                 "latex": "application/x-latex; charset=utf-8", "html": "text/html; charset=utf-8"}
EXTENSIONS = {"json": "json", "csv": "csv", "latex": "tex", "html": "html"}
COEFFICIENT_LABELS = {"pearson": "Pearson r", "spearman": "Spearman ρ", "kendall_b": "Kendall τb",
                      "kendall_c": "Kendall τc", "wmt_kendall": "WMT τ"}
LATEX_COEFFICIENT_LABELS = {"pearson": "Pearson $r$", "spearman": r"Spearman $\rho$",
                            "kendall_b": r"Kendall $\tau_b$", "kendall_c": r"Kendall $\tau_c$",
                            "wmt_kendall": r"WMT $\tau$"}
DIGITS = 3
PLOT_SIZE_INCHES = (4.2, 3.4)
HISTOGRAM_COLUMNS = 4
HISTOGRAM_PANEL_INCHES = (2.2, 1.6)
CSV_HEADER = ("table", "subset", "level", "aggregation", "metric", "other", "statistic", "value", "p",
              "ci_low", "ci_high", "n", "epsilon")
# the WMT metrics tasks' statistics: (level, key, label, LaTeX label)
WMT_COLUMNS = (("system_level", "pairwise_accuracy", "Pairwise accuracy", "Pairwise acc."),
               ("system_level", "soft_pairwise_accuracy", "Soft pairwise accuracy", "SPA"),
               ("segment_level", "acc_eq", "acc_eq", r"acc\textsubscript{eq}"),
               ("segment_level", "acc_eq_grouped", "acc_eq grouped", r"acc\textsubscript{eq} grouped"))


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
        rows.append(("system_score", "", "system", "", "human", system["system"], "mean_rating",
                     system.get("human"), "", "", "", system.get("ratings")))
        for metric, value in system["metrics"].items():
            rows.append(("system_score", "", "system", "", metric, system["system"], "score", value, "", "", "", ""))
    for subset, level, aggregation, metric, name, entry in correlation_rows(report):
        ci = entry.get("ci") or [None, None]
        rows.append(("correlation", subset, level, aggregation, metric, "human", name, entry.get("r"),
                     entry.get("p"), ci[0], ci[1], entry.get("n")))
    rows += wmt_csv_rows(report)
    for comparison in report.get("comparisons", []):
        williams = comparison["williams"]
        rows.append(("comparison", "all", comparison["level"], "", comparison["metric_a"], comparison["metric_b"],
                     "williams_t", williams.get("t"), williams.get("p"), "", "", williams.get("n")))
        for name, test in comparison["permutation"].items():
            rows.append(("comparison", "all", comparison["level"], "", comparison["metric_a"],
                         comparison["metric_b"], f"permutation_{name}_delta", test.get("delta"), test.get("p"),
                         "", "", test.get("resamples")))
    width = len(CSV_HEADER)
    return write_csv([[_csv_cell(cell) for cell in row] + [""] * (width - len(row)) for row in rows],
                     header=CSV_HEADER)


def wmt_entries(report):
    """(metric, level, statistic, entry) of every WMT statistic in the report."""
    for level, key, _, _ in WMT_COLUMNS:
        for metric, entries in (report.get(level) or {}).items():
            if key in entries:
                yield metric, level, key, entries[key]


def ranks(report):
    """{statistic: {metric: rank}} of the metric ranking's clusters."""
    statistics = (report.get("metric_ranking") or {}).get("statistics") or {}
    return {statistic: {row["metric"]: row["rank"] for row in ranking.get("metrics", [])}
            for statistic, ranking in statistics.items()}


def wmt_csv_rows(report):
    rows = []
    for metric, level, key, entry in wmt_entries(report):
        ci = entry.get("ci") or [None, None]
        aggregation = {"acc_eq": "flattened", "acc_eq_grouped": "grouped_by_instance"}.get(key, "")
        rows.append(("wmt", "all", level.removesuffix("_level"), aggregation, metric, "human", key, entry.get("value"),
                     "", ci[0], ci[1], entry.get("pairs", entry.get("permutations")), entry.get("epsilon")))
    for statistic, ranking in ((report.get("metric_ranking") or {}).get("statistics") or {}).items():
        for row in ranking.get("metrics", []):
            rows.append(("ranking", "all", ranking.get("level", "").removesuffix("_level"), "", row["metric"], "",
                         f"{statistic}_rank", row["rank"], "", "", "", "", ""))
        for pair, p in ranking.get("p_values", {}).items():
            better, worse = pair.split("|", 1)
            rows.append(("ranking", "all", ranking.get("level", "").removesuffix("_level"), "", better, worse,
                         f"{statistic}_bootstrap_p", "", p, "", "", "", ""))
    for pair in (report.get("soft_pairwise") or {}).get("pairs", []):
        rows.append(("soft_pairwise_p", "all", "system", "", "human", f"{pair['a']} > {pair['b']}", "p_value", "",
                     pair.get("p_human"), "", "", "", ""))
        for metric, p in pair.get("p_metrics", {}).items():
            rows.append(("soft_pairwise_p", "all", "system", "", metric, f"{pair['a']} > {pair['b']}", "p_value", "",
                         p, "", "", "", ""))
    return rows


def _csv_cell(value):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    return value


# --- LaTeX -----------------------------------------------------------------------------------

def _latex_table(caption, header, body):
    columns = "l" + "r" * (len(header) - 1)
    lines = [r"\begin{table}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{{columns}}}", r"\toprule",
             " & ".join(header) + r" \\", r"\midrule"]
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
    for label, figures in (("all systems", report),
                           (f"the top {report.get('top_k', {}).get('k')} systems by human score",
                            report.get("top_k") or {})):
        body = [[latex_escape(metric)] + [_latex_value(by_name[name]) for name in names]
                for metric, by_name in (figures.get("system_level") or {}).items()]
        if body:
            parts.append(_latex_table(
                f"System-level correlation with the human scores of campaign {campaign}, {label} "
                "(95\\% interval: Fisher $z$ for Pearson, bootstrap otherwise).",
                ["Metric"] + [LATEX_COEFFICIENT_LABELS[n] for n in names], body))
    segment_names = ("pearson", "spearman", "kendall_b")
    body = []
    for metric, sections in (report.get("segment_level") or {}).items():
        body.append([latex_escape(metric)]
                    + [_latex_value(sections["flattened"][n]) for n in segment_names]
                    + [_latex_value(sections["grouped_by_instance"][n]) for n in segment_names]
                    + [_latex_value(sections["wmt_kendall"])])
    if body:
        header = (["Metric"] + [f"{LATEX_COEFFICIENT_LABELS[n]} (flat)" for n in segment_names]
                  + [f"{LATEX_COEFFICIENT_LABELS[n]} (grouped)" for n in segment_names]
                  + [LATEX_COEFFICIENT_LABELS["wmt_kendall"]])
        parts.append(_latex_table(f"Segment-level correlation with the human scores of campaign {campaign} "
                                  "(95\\% bootstrap intervals over instances).", header, body))
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
        parts.append(_latex_table(
            f"The WMT metrics tasks' statistics on campaign {campaign}: value, 95\\% bootstrap interval over "
            f"instances, tie threshold $\\varepsilon$ and (rank cluster, paired bootstrap, $\\alpha$={alpha}).",
            ["Metric"] + [latex for _, _, _, latex in WMT_COLUMNS], body))
    return "% requires \\usepackage{booktabs}\n" + "\n".join(parts)


def _metric_names(report):
    return [m["name"] for m in report.get("metrics", [])] or list(report.get("system_level") or {})


# --- plots -----------------------------------------------------------------------------------

def _svg(figure, salt):
    """A matplotlib figure as SVG text: text drawn as paths, no date, ids unique per ``salt``."""
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": salt, "svg.fonttype": "path"}):
        out = io.StringIO()
        figure.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = out.getvalue()
    return text[text.index("<svg"):]


def scatter_svg(report, metric):
    """Metric (x) against human score (y), one labelled point per system in the correlations."""
    from matplotlib.figure import Figure

    points = [(s["metrics"].get(metric), s["human"], s["system"]) for s in report["systems"]
              if s.get("in_correlations") and s["metrics"].get(metric) is not None and s.get("human") is not None]
    figure = Figure(figsize=PLOT_SIZE_INCHES)
    axes = figure.add_subplot()
    if points:
        xs, ys, labels = zip(*points)
        axes.scatter(xs, ys, s=18, color="#1f5fa8")
        for x, y, label in points:
            axes.annotate(label, (x, y), textcoords="offset points", xytext=(3, 3), fontsize=6)
    r = (report.get("system_level", {}).get(metric, {}).get("pearson") or {}).get("r")
    axes.set_title(f"{metric} vs human (Pearson r = {_number(r)})", fontsize=9)
    axes.set_xlabel(metric, fontsize=8)
    axes.set_ylabel("human score (0-3)", fontsize=8)
    axes.tick_params(labelsize=7)
    return _svg(figure, f"scatter-{metric}")


def histograms_svg(report):
    """One bar chart per system: how many ratings of each score it received."""
    from matplotlib.figure import Figure

    histograms = report.get("rating_histograms") or {}
    names = list(histograms)
    rows = max(1, math.ceil(len(names) / HISTOGRAM_COLUMNS))
    columns = min(HISTOGRAM_COLUMNS, max(1, len(names)))
    figure = Figure(figsize=(HISTOGRAM_PANEL_INCHES[0] * columns, HISTOGRAM_PANEL_INCHES[1] * rows))
    for position, name in enumerate(names, 1):
        axes = figure.add_subplot(rows, columns, position)
        counts = histograms[name]
        axes.bar(range(len(counts)), counts, color="#6a8f3a")
        axes.set_xticks(range(len(counts)))
        axes.set_title(name, fontsize=7)
        axes.tick_params(labelsize=6)
    figure.tight_layout()
    return _svg(figure, "histograms")


# --- HTML ------------------------------------------------------------------------------------

def system_table(report):
    """Header and rows of the system scores table (used by the HTML export and the app page)."""
    metrics = [m["name"] for m in report.get("metrics", [])]
    header = ["System", "Human", "Ratings"] + metrics
    rows = []
    for s in report["systems"]:
        label = s["system"] + ("" if s.get("complete", True) else " (incomplete)")
        rows.append([label, _number(s.get("human")), f"{s.get('ratings', 0)}/{s.get('expected_ratings', 0)}"]
                    + [_number(s["metrics"].get(m)) for m in metrics])
    return header, rows


def correlation_table(figures, level):
    """Header and rows of the system-level or segment-level correlations of ``figures``."""
    if level == "system":
        names = ("pearson", "spearman", "kendall_b", "kendall_c")
        header = ["Metric"] + [COEFFICIENT_LABELS[n] for n in names]
        rows = [[metric] + [_cell(by_name[n]) for n in names]
                for metric, by_name in (figures.get("system_level") or {}).items()]
        return header, rows
    names = ("pearson", "spearman", "kendall_b")
    header = (["Metric"] + [f"{COEFFICIENT_LABELS[n]} flattened" for n in names]
              + [f"{COEFFICIENT_LABELS[n]} grouped" for n in names] + [COEFFICIENT_LABELS["wmt_kendall"]])
    rows = [[metric] + [_cell(sections["flattened"][n]) for n in names]
            + [_cell(sections["grouped_by_instance"][n]) for n in names] + [_cell(sections["wmt_kendall"])]
            for metric, sections in (figures.get("segment_level") or {}).items()]
    return header, rows


def summary_table(report):
    """Header and rows of the summary: per metric, system-level Pearson and the WMT statistics,
    each as value, interval and rank cluster (the number after #)."""
    rank_of = ranks(report)
    header = ["Metric", "Pearson r (system)"] + [label for _, _, label, _ in WMT_COLUMNS]
    rows = []
    for metric in _metric_names(report):
        pearson = (report.get("system_level") or {}).get(metric, {}).get("pearson") or {}
        row = [metric, _summary_cell(pearson.get("r"), pearson.get("ci"), None, None)]
        for level, key, _, _ in WMT_COLUMNS:
            entry = (report.get(level) or {}).get(metric, {}).get(key) or {}
            row.append(_summary_cell(entry.get("value"), entry.get("ci"), entry.get("epsilon"),
                                     rank_of.get(key, {}).get(metric)))
        rows.append(row)
    return header, rows


def _summary_cell(value, ci, epsilon, rank):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    text = _number(value)
    if rank is not None:
        text += f" #{rank}"
    interval = _interval(ci)
    if interval != "–":
        text += f" {interval}"
    if epsilon is not None:
        text += f" ε={_number(epsilon)}"
    return text


def comparison_table(report):
    header = ["Level", "Metric A", "Metric B", "r(A)", "r(B)", "Williams t", "p (A > B)",
              "perm. Δr Pearson", "p", "perm. Δτb", "p"]
    rows = []
    for c in report.get("comparisons", []):
        w, perm = c["williams"], c["permutation"]
        rows.append([c["level"], c["metric_a"], c["metric_b"], _number(w.get("r_a")), _number(w.get("r_b")),
                     _number(w.get("t")), _p_value(w.get("p")),
                     _number(perm.get("pearson", {}).get("delta")), _p_value(perm.get("pearson", {}).get("p")),
                     _number(perm.get("kendall_b", {}).get("delta")), _p_value(perm.get("kendall_b", {}).get("p"))])
    return header, rows


def _cell(entry):
    text = _number(entry.get("r"))
    if entry.get("p") is not None:
        text += f" (p {_p_value(entry.get('p'))})"
    ci = _interval(entry.get("ci"))
    return text if ci == "–" else f"{text} {ci}"


def _html_table(caption, header, rows):
    escape = html.escape
    head = "".join(f'<th scope="col">{escape(str(h))}</th>' for h in header)
    body = "".join("<tr>" + "".join((f'<th scope="row">{escape(str(cells[0]))}</th>' if i == 0 else
                                     f"<td>{escape(str(cell))}</td>") for i, cell in enumerate(cells)) + "</tr>"
                   for cells in rows)
    return (f'<div class="table-scroll"><table><caption>{escape(caption)}</caption><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def to_html(report):
    """A standalone page: tables, one scatter plot per metric, the rating histograms."""
    escape = html.escape
    top = report.get("top_k") or {}
    sections = [
        _html_table("Summary: value #rank cluster [95% bootstrap interval] ε tie threshold", *summary_table(report)),
        _html_table("System scores", *system_table(report)),
        _html_table("System-level correlation with the human scores (all systems)",
                    *correlation_table(report, "system")),
        _html_table(f"System-level correlation, top {top.get('k')} systems by human score "
                    f"({', '.join(top.get('systems', []))})", *correlation_table(top, "system")),
        _html_table("Segment-level correlation with the human scores", *correlation_table(report, "segment")),
        _html_table("Metric comparisons: Williams' test and paired permutation tests", *comparison_table(report)),
    ]
    plots = "".join(f'<figure role="img" aria-label="{escape(m["name"])} against human score">'
                    f"{scatter_svg(report, m['name'])}</figure>" for m in report.get("metrics", []))
    signatures = "".join(f"<li><code>{escape(name)}</code>: <code>{escape(sig or '')}</code></li>"
                         for name, sig in report.get("signatures", {}).items())
    versions = ", ".join(f"{escape(k)} {escape(str(v))}" for k, v in report.get("versions", {}).items())
    notes = "".join(f"<li>{escape(note)}</li>" for note in report.get("notes", []))
    title = f"Metric study: {report.get('campaign', '')}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>body{{font-family:system-ui,sans-serif;margin:1rem;max-width:70rem}}table{{border-collapse:collapse;margin:1rem 0}}
th,td{{border-bottom:1px solid #ccc;padding:.25rem .5rem;text-align:right;font-size:.85rem}}th[scope=row]{{text-align:left}}
caption{{text-align:left;font-weight:600}}.table-scroll{{overflow-x:auto}}figure{{display:inline-block;margin:.5rem;max-width:100%}}
svg{{max-width:100%;height:auto}}</style></head>
<body><main><h1>{escape(title)}</h1>
<p>Dataset {escape(str(report.get('dataset', '')))}; {report.get('instances', {}).get('campaign')} sampled instances;
seed {escape(str(report.get('seed')))}; {report.get('bootstrap', {}).get('resamples')} bootstrap resamples.</p>
<ul>{notes}</ul>
{''.join(sections)}
<h2>Metric against human score</h2>{plots}
<h2>Rating histograms</h2><figure role="img" aria-label="Rating histograms per system">{histograms_svg(report)}</figure>
<h2>Signatures</h2><ul>{signatures}</ul><p>Versions: {versions}</p>
</main></body></html>
"""
