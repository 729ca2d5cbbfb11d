"""The Table 6 page: intervals, clusters with the test named, secondary columns, three SVG charts, merged
footnotes, the LaTeX form; and the charts' geometry."""

import re

import pytest
from django.urls import reverse

from evalapp.compute.rater_uncertainty import TInterval
from evalapp.compute.table6 import Table6Row
from evalapp.formats import table6_charts
from evalapp.services import results
from tests.results.factories import rated_campaign

# Clearly separated groups of teams over 12 instances: {good, fine} above {half, also half} above {poor};
# "half" and "also half" are incomplete.
BASE = {
    "good": [[3, 3, 3], [3, 3, 2], [3, 3, 3], [3, 2, 3], [3, 3, 3], [3, 3, 3], [2, 3, 3], [3, 3, 3]],
    "fine": [[3, 2, 3], [3, 3, 3], [3, 3, 2], [3, 3, 3], [2, 3, 3], [3, 3, 3], [3, 3, 2], [3, 3, 3]],
    "poor": [[0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0], [1, 0, 0], [0, 0, 1]],
    "half": [[2, None, None], [2, 1, None], [1, 2, 2], [2, 2, 1], [1, 1, 2], [2, 2, 2], [None, 2, 1], [2, 2, 2]],
    "also half": [[1, None, None], [2, 1, 1], [1, 2, 2], [2, 2, 1], [1, 1, 2], [2, 2, 2], [1, 2, 1], [2, 2, 2]],
}
SCORES = {team: rows + rows[:4] for team, rows in BASE.items()}


def _count(team, score=None):
    return sum(1 for row in SCORES[team] for value in row if value is not None and (score is None or value == score))


@pytest.fixture
def campaign(db):
    campaign, _ = rated_campaign(
        SCORES,
        name="page",
        markers={"poor": "*", "fine": "+"},
        bleu={"good": 20.0, "fine": 14.2, "poor": 3.1, "also half": 9.0},
        partial={"half"},
        human=[[3, 3, 3]] * 12,
    )
    return campaign


@pytest.mark.postgres
def test_page_shows_intervals_clusters_and_the_test(client, organizer, campaign):
    client.force_login(organizer)
    response = client.get(reverse("results:table6_page", args=[campaign.pk]))
    assert response.status_code == 200
    body = response.content.decode()
    table = response.context["table"]
    clusters = {row.team: row.cluster for row in table.rows}
    assert clusters["good"] == clusters["fine"] == 1 and clusters["poor"] > clusters["half"] > 1
    assert clusters["half"] == clusters["also half"]
    assert "t test of the difference of formula (1) means" in body and "Holm" in body
    assert "raters not accounted for: 3 raters, fewer than 5" in body  # three raters: the visible fallback
    rows = {entry["row"].team: entry for entry in response.context["rows"]}
    ci = rows["good"]["row"].ci
    assert (
        rows["good"]["interval"][0] == f"[{ci.low:.2f}, {ci.high:.2f}]" and ci.low < rows["good"]["row"].human < ci.high
    )
    assert "Human z" in body and "(secondary)" in body


def test_footnotes_are_merged_and_the_markers_explained(client, organizer, campaign):
    client.force_login(organizer)
    notes = client.get(reverse("results:table6_page", args=[campaign.pk])).context["notes"]
    incomplete = [note for note in notes if "incomplete" in note]
    assert len(incomplete) == 1
    assert f"half {_count('half')} of 36" in incomplete[0] and f"also half {_count('also half')} of 36" in incomplete[0]
    assert any(note.startswith("* no system description paper") for note in notes)
    assert any(note.startswith("+ the system description paper") for note in notes)


def test_charts_are_svg_without_inline_style_or_script(client, organizer, campaign):
    client.force_login(organizer)
    body = client.get(reverse("results:table6_page", args=[campaign.pk])).content.decode()
    assert body.count("<svg") == 6  # three charts, each drawn wide and narrow
    assert body.count('class="chart-svg chart-wide') == body.count('class="chart-svg chart-narrow') == 3
    assert "style=" not in body and "<script" not in body.replace('<script src="', "")
    assert re.search(r'<text[^>]*class="cluster-label"[^>]*>C2</text>', body)
    assert re.search(r'<text[^>]*class="point-label"[^>]*>(<title>[^<]*</title>)?poor\*</text>', body)


def test_latex_form_gives_intervals_beside_scores(client, organizer, campaign):
    client.force_login(organizer)
    body = client.get(reverse("results:table6_page", args=[campaign.pk])).content.decode()
    assert 'name="latex_intervals"' in body
    latex = client.get(
        reverse("results:table6", args=[campaign.pk, "latex"]), {"bootstrap": "200", "latex_intervals": "1"}
    ).content.decode()
    human = (_count("good", 3) * 3 + _count("good", 2) * 2) / 36  # 103 / 36 = 2.86
    pattern = rf"^good & 20\.0 & 1 & {human:.2f} \{{\\small \[\d\.\d\d, \d\.\d\d\]\}} & 1 & 1 &"
    assert re.search(pattern, latex, re.M), latex


def test_raters_get_403(client, rater_user, campaign):
    client.force_login(rater_user)
    assert client.get(reverse("results:table6_page", args=[campaign.pk])).status_code == 403


@pytest.mark.postgres
def test_score_distribution_counts_counted_ratings(campaign):
    distribution = results.score_distribution(campaign)
    assert distribution["poor"] == [_count("poor", score) for score in range(4)]
    assert distribution["half"] == [_count("half", score) for score in range(4)]
    assert sum(distribution["half"]) == _count("half") < 36


def _row(team, human, low=None, high=None, cluster=None, bleu=None, is_human=False):
    return Table6Row(
        team,
        "",
        bleu,
        None,
        human,
        None,
        3,
        3,
        True,
        is_human=is_human,
        ci=None if low is None else TInterval(low, high, None, None, 0.95),
        cluster=cluster,
    )


def test_interval_chart_orders_by_score_and_places_bars():
    rows = [
        _row("b", 1.5, 1.2, 1.8, 2),
        _row("a", 2.4, 2.1, 2.7, 1),
        _row("Human", 2.9, is_human=True),
        _row("never rated", None),
    ]
    chart = table6_charts.interval_chart(rows)
    labels = [s["text"] for s in chart.shapes if s["kind"] == "text" and "row-label" in s["cls"]]
    assert labels == ["Human", "a", "b"]
    bars = [s for s in chart.shapes if s["cls"] == "interval"]
    span = table6_charts.WIDTH - table6_charts.RIGHT - table6_charts.LABEL_WIDTH
    assert float(bars[0]["x1"]) == pytest.approx(table6_charts.LABEL_WIDTH + span * 2.1 / 3, abs=0.05)
    assert [s["cls"] for s in chart.shapes if s["kind"] == "rect"] == ["band band-odd", "band band-even"]


def test_scatter_places_teams_with_bleu_and_lists_the_rest():
    rows = [_row("a", 2.0, bleu=10.0), _row("b", 1.0, bleu=22.5), _row("c", 1.5), _row("Human", 2.9, is_human=True)]
    chart = table6_charts.scatter_chart(rows)
    points = [s for s in chart.shapes if s["kind"] == "circle"]
    assert len(points) == 2 and chart.missing == ["c"]
    left, right = table6_charts.SCATTER_LEFT, table6_charts.WIDTH - table6_charts.SCATTER_RIGHT
    assert float(points[1]["cx"]) == pytest.approx(left + (right - left) * 22.5 / 25, abs=0.05)  # axis ends at 25


def test_distribution_bars_are_proportional():
    chart = table6_charts.distribution_chart([_row("a", 2.0)], {"a": [1, 0, 1, 2]})
    widths = [float(s["width"]) for s in chart.shapes if s["kind"] == "rect"]
    span = table6_charts.WIDTH - table6_charts.RIGHT - table6_charts.LABEL_WIDTH
    assert widths == pytest.approx([span / 4, span / 4, span / 2], abs=0.05)


@pytest.mark.parametrize("layout", [table6_charts.WIDE, table6_charts.NARROW], ids=["wide", "narrow"])
def test_every_chart_keeps_its_data_and_labels_inside_its_drawing_at_every_width(layout):
    """Issue 20: at 360 px the interval chart showed 0-1.5 only and the scatter lost a team. Each layout
    spans the whole data range: every dot, bar and label is inside the drawing, the ticks reach 3."""
    rows = [
        _row("a-long-team-name-of-thirty-chars", 2.95, 2.7, 3.0, 1, bleu=26.4),
        _row("b", 0.05, 0.0, 0.3, 2, bleu=0.0),
        _row("Human", 2.9, 2.8, 3.0, is_human=True),
        _row("c", 1.1, 0.9, 1.4, 2, bleu=6.3),
    ]
    charts = [
        table6_charts.interval_chart(rows, layout),
        table6_charts.scatter_chart(rows, layout),
        table6_charts.distribution_chart(
            rows, {"a-long-team-name-of-thirty-chars": [1, 2, 3, 4], "b": [4, 0, 0, 0]}, layout
        ),
    ]
    for chart in charts:
        assert chart.width == layout.width
        for shape in chart.shapes:
            xs = [float(shape[key]) for key in ("x", "x1", "x2", "cx") if key in shape]
            assert all(0 <= x <= layout.width for x in xs), shape
            if shape["kind"] == "text" and shape.get("anchor") == "end":
                assert float(shape["x"]) - 6.5 * len(shape["text"]) >= 0, shape  # ~6.5 px a character at 12 px
            if shape["kind"] == "text" and shape.get("anchor") == "start":
                assert float(shape["x"]) + 6.5 * len(shape["text"]) <= layout.width, shape
    intervals = charts[0]
    assert {t["label"] for t in intervals.ticks} >= {"0", "3"}
    assert len([s for s in intervals.shapes if s["kind"] == "circle"]) == 4
    assert len([s for s in charts[1].shapes if s["kind"] == "circle"]) == 3
