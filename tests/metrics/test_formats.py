"""The report in JSON, CSV, LaTeX and HTML; the metric-scores file reader."""

import csv
import dataclasses
import io
import json

import pytest

from core.problems import FormatError
from evalapp.compute.metric_study_report import MetricReport
from evalapp.formats import metric_report
from evalapp.formats.metric_scores import parse_metric_scores
from evalapp.services.metric_study import report as metric_study
from tests.metrics.builders import build_study_campaign


@pytest.fixture
def report(db):
    campaign = build_study_campaign()
    return metric_study.build_report(campaign, ["comve_bleu", "chrf"], bootstrap=20, permutations=20, seed=3)


def test_json_is_strict_and_complete(report):
    parsed = json.loads(metric_report.render(report, "json"))
    assert parsed["system_level"]["chrf"]["kendall_c"]["r"] == pytest.approx(
        report.system_level["chrf"].coefficients.kendall_c.r
    )
    assert "NaN" not in metric_report.render(report, "json")


def test_csv_is_one_tidy_table(report):
    rows = list(csv.DictReader(io.StringIO(metric_report.render(report, "csv"))))
    assert tuple(rows[0]) == metric_report.CSV_HEADER
    tables = {row["table"] for row in rows}
    assert tables == {"system_score", "correlation", "comparison", "wmt", "ranking", "soft_pairwise_p"}
    pearson = next(
        r
        for r in rows
        if r["table"] == "correlation"
        and r["subset"] == "all"
        and r["level"] == "system"
        and r["metric"] == "chrf"
        and r["statistic"] == "pearson"
    )
    assert float(pearson["value"]) == pytest.approx(report.system_level["chrf"].coefficients.pearson.r)
    assert any(r["aggregation"] == "grouped_by_instance" for r in rows)
    assert any(r["statistic"] == "williams_t" for r in rows)
    assert any(r["subset"] == "top_k" for r in rows)
    acc_eq = next(r for r in rows if r["table"] == "wmt" and r["metric"] == "chrf" and r["statistic"] == "acc_eq")
    entry = report.segment_level["chrf"].acc_eq
    assert float(acc_eq["value"]) == pytest.approx(entry.value) and float(acc_eq["epsilon"]) == entry.epsilon
    assert float(acc_eq["ci_low"]) == pytest.approx(entry.ci[0]) and acc_eq["aggregation"] == "flattened"
    ranks = {r["metric"]: r["value"] for r in rows if r["statistic"] == "pairwise_accuracy_rank"}
    assert set(ranks) == {"comve_bleu", "chrf"} and "1" in ranks.values()
    pairs = [r for r in rows if r["table"] == "soft_pairwise_p" and r["metric"] == "human"]
    assert len(pairs) == 5 * 4 // 2 and all(0 <= float(r["p"]) <= 1 for r in pairs)


def test_latex_uses_booktabs_and_escapes(report):
    report = dataclasses.replace(report, campaign="a_b & c")
    text = metric_report.render(report, "latex")
    assert r"\toprule" in text and r"\bottomrule" in text and text.count(r"\begin{table}") == 4
    assert r"acc\textsubscript{eq} grouped" in text and r"$\varepsilon$=" in text
    assert r"a\_b \& c" in text and r"comve\_bleu" in text


def test_html_has_tables_scatter_plots_and_histograms(report):
    text = metric_report.render(report, "html")
    assert text.count('one point per system"><title>') == len(report.metrics)  # one scatter each
    assert (
        text.count('per metric with 95% bootstrap intervals"><title>') == 5
    )  # Pearson, PA, SPA, acc_eq, acc_eq grouped
    assert text.count('class="chart histogram"') == 5  # one per rated system
    assert text.count("<svg") == len(report.metrics) + 5 + 5
    assert " style=" not in text.split("</style>", 1)[1]  # no inline style: classes only
    assert "<table" in text and "Williams" in text and "Rating histograms" in text and text.count("<details>") == 5


def test_html_escapes_system_names(report):
    report.systems[0].system = "<script>alert(1)</script>"
    report.rating_histograms["<script>alert(1)</script>"] = [1, 2, 3, 4]
    text = metric_report.render(report, "html")
    assert "<script>" not in text


def test_unknown_format():
    with pytest.raises(ValueError, match="json, csv, latex, html"):
        metric_report.render(None, "pdf")  # type: ignore[arg-type]  # the format is checked first


def test_jsonable_turns_nan_into_null():
    import numpy as np

    assert metric_report.jsonable({"a": float("nan"), "b": np.float64(2.5), "c": [np.inf, np.int64(3)]}) == {
        "a": None,
        "b": 2.5,
        "c": [None, 3],
    }


def test_metric_scores_reader():
    records = parse_metric_scores(b"\xef\xbb\xbfinstance,system,bleurt\r\n1,A,0.5\r\n2,A,-1e-2\r\n", "f.csv", "segment")
    assert [(r.instance_id, r.system, r.score, r.line) for r in records] == [("1", "A", 0.5, 2), ("2", "A", -0.01, 3)]
    assert [r.score for r in parse_metric_scores("A,1\nB,2\n", "f.csv", "system")] == [1.0, 2.0]
    with pytest.raises(FormatError) as error:
        parse_metric_scores("A,1\nB\n,3\nC,nan\n", "f.csv", "system")
    assert [str(p) for p in error.value.problems] == [
        "f.csv, line 2: expected 2 columns (system,score) for system-level scores, found 1",
        "f.csv, line 3, column 1: system is empty",
        "f.csv, line 4, column 2: score is not a finite number",
    ]
    with pytest.raises(FormatError, match="no scores found"):
        parse_metric_scores("system,score\n", "f.csv", "system")


def test_histograms_share_one_y_axis_and_their_counts_stay_clear_of_the_titles():
    """Issue 20: each panel had its own scale, no y-axis, counts over the titles and 8 px text."""
    import re

    from evalapp.formats import metric_report_svg as svg

    report = MetricReport.from_json(
        {"systems": [], "rating_histograms": {"tall": [30, 2, 0, 7], "short": [1, 2, 3, 4], "a" * 40: [0, 0, 0, 1]}}
    )
    plots = dict(metric_report.histogram_plots(report))
    assert len(plots) == 3
    tops = set()
    for plot in plots.values():
        y_labels = re.findall(r'class="tick tick-y"[^>]*>([^<]+)<', plot)
        assert y_labels[0] == "0" and len(y_labels) >= 3, "a y-axis with ticks"
        tops.add(y_labels[-1])
        title_y = float(re.search(r'class="chart-title" x="[^"]+" y="([^"]+)"', plot).group(1))
        counts = [float(y) for y in re.findall(r'class="bar-count" x="[^"]+" y="([^"]+)"', plot)]
        assert min(counts) - 11 >= title_y + 2, "the count above the tallest bar is below the title's line"
        heights = [float(h) for h in re.findall(r'<rect class="bar"[^>]* height="([^"]+)"', plot)]
        assert max(heights) <= svg.HISTOGRAM_HEIGHT
    assert tops == {"30"}, "one scale for every panel"
    # the same count is the same height in every panel: 2 ratings in "tall" and in "short"
    two = {
        name: float(re.findall(r'<rect class="bar"[^>]* height="([^"]+)"', plot)[1])
        for name, plot in plots.items()
        if name in ("tall", "short")
    }
    assert two["tall"] == two["short"] > 0
    assert "…</text>" in plots["a" * 40] and 'aria-label="' + "a" * 40 in plots["a" * 40]
    css = metric_report.STYLESHEET.read_text()
    sizes = re.findall(r"svg\.chart\.histogram [^{]*\{ font-size: (\d+)px; \}", css)
    assert sizes and min(int(size) for size in sizes) >= 11
