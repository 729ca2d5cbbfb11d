"""The Table 6 page's charts as geometry: numbers a template draws as server-rendered SVG. No Django imports.

Three charts, each a plain record of shapes in a fixed ``viewBox`` (the SVG scales to its box):

- :func:`interval_chart`: every rated system's human score (a dot) with its 95% interval (a bar),
  ordered by score, the significance clusters as alternating shaded bands with their number;
- :func:`scatter_chart`: BLEU against human score, one labelled point per team with a BLEU;
- :func:`distribution_chart`: each system's share of 0, 1, 2 and 3 scores as a small stacked bar.

No style is computed here: every shape carries class names that ``static/css/app.css`` styles
(the Content-Security-Policy forbids inline styles). Text is returned as is; the template escapes it.
"""
import math
from dataclasses import dataclass, field

from evalapp.compute.ranks import HUMAN_DIGITS, display

WIDTH = 640
ROW = 26             # height of one system's row
LABEL_WIDTH = 180    # room for the system's name at the left
RIGHT = 56           # room for the cluster number at the right
TOP, BOTTOM = 10, 34
SCALE_MAX = 3.0      # the rubric's highest score
TICKS = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)
LABEL_CHARS = 26     # a longer name is shortened with an ellipsis (the full name is in the title)
SCATTER_HEIGHT = 380
SCATTER_LEFT, SCATTER_RIGHT = 48, 24
SCORES = (0, 1, 2, 3)


def _f(value):
    """A coordinate as the SVG gets it (one decimal)."""
    return f"{value:.1f}"


def short(name):
    return name if len(name) <= LABEL_CHARS else name[:LABEL_CHARS - 1] + "…"


@dataclass
class Chart:
    width: int
    height: int
    title: str
    shapes: list = field(default_factory=list)   # dicts: kind (line, rect, circle, text) and attributes
    ticks: list = field(default_factory=list)    # axis ticks: dicts x, y, label
    missing: list = field(default_factory=list)  # labels of the systems the chart cannot place

    @property
    def view_box(self):
        return f"0 0 {self.width} {self.height}"


def _x_score(value, left=LABEL_WIDTH, right=WIDTH - RIGHT):
    return left + (right - left) * max(0.0, min(SCALE_MAX, value)) / SCALE_MAX


def interval_chart(rows):
    """Dots and interval bars of the rows that have a human score, best first; bands mark the clusters.

    ``rows``: Table 6 rows (anything with ``label``, ``human``, ``ci``, ``cluster``, ``is_human``).
    """
    rated = sorted((row for row in rows if row.human is not None), key=lambda row: (-row.human, row.label))
    height = TOP + ROW * len(rated) + BOTTOM
    chart = Chart(WIDTH, height, "Human scores (formula (1)) with 95% intervals, best first; shaded bands: "
                                 "significance clusters")
    for position, row in enumerate(rated):
        top = TOP + ROW * position
        middle = top + ROW / 2
        if row.cluster is not None:
            chart.shapes.append({"kind": "rect", "x": _f(0), "y": _f(top), "width": _f(WIDTH), "height": _f(ROW),
                                 "cls": f"band band-{'odd' if row.cluster % 2 else 'even'}"})
            chart.shapes.append({"kind": "text", "x": _f(WIDTH - 6), "y": _f(middle + 4), "cls": "cluster-label",
                                 "text": f"C{row.cluster}", "anchor": "end"})
        chart.shapes.append({"kind": "text", "x": _f(LABEL_WIDTH - 8), "y": _f(middle + 4), "anchor": "end",
                             "cls": "row-label" + (" human" if row.is_human else ""), "text": short(row.label),
                             "title": row.label})
        ci = row.ci or {}
        if ci.get("low") is not None:
            chart.shapes.append({"kind": "line", "x1": _f(_x_score(ci["low"])), "x2": _f(_x_score(ci["high"])),
                                 "y1": _f(middle), "y2": _f(middle), "cls": "interval",
                                 "title": f"{row.label}: 95% interval [{display(ci['low'], HUMAN_DIGITS)}, "
                                          f"{display(ci['high'], HUMAN_DIGITS)}]"})
        chart.shapes.append({"kind": "circle", "cx": _f(_x_score(row.human)), "cy": _f(middle), "r": "4.5",
                             "cls": "point" + (" human" if row.is_human else ""),
                             "title": f"{row.label}: {display(row.human, HUMAN_DIGITS)}"})
    axis = TOP + ROW * len(rated)
    for tick in TICKS:
        x = _x_score(tick)
        chart.shapes.append({"kind": "line", "x1": _f(x), "x2": _f(x), "y1": _f(TOP), "y2": _f(axis), "cls": "grid"})
        chart.ticks.append({"x": _f(x), "y": _f(axis + 16), "label": f"{tick:g}"})
    chart.ticks.append({"x": _f(_x_score(SCALE_MAX / 2)), "y": _f(axis + 30), "label": "human score (0-3)"})
    return chart


def _nice_max(value):
    """The axis end above ``value``: the next multiple of 5 (at least 5)."""
    return max(5.0, math.ceil(value / 5.0) * 5.0)


def scatter_chart(rows):
    """One labelled point per team with both a BLEU and a human score: BLEU across, human score up."""
    teams = [row for row in rows if not row.is_human and row.bleu is not None and row.human is not None]
    chart = Chart(WIDTH, SCATTER_HEIGHT, "Official BLEU against human score, one point per team")
    left, right, top, bottom = SCATTER_LEFT, WIDTH - SCATTER_RIGHT, TOP + 10, SCATTER_HEIGHT - 44
    x_max = _nice_max(max((row.bleu for row in teams), default=0.0))

    def x_of(bleu):
        return left + (right - left) * bleu / x_max

    def y_of(score):
        return bottom - (bottom - top) * max(0.0, min(SCALE_MAX, score)) / SCALE_MAX

    for tick in TICKS:
        y = y_of(tick)
        chart.shapes.append({"kind": "line", "x1": _f(left), "x2": _f(right), "y1": _f(y), "y2": _f(y), "cls": "grid"})
        chart.ticks.append({"x": _f(left - 6), "y": _f(y + 4), "label": f"{tick:g}", "anchor": "end"})
    steps = 5
    for k in range(steps + 1):
        value = x_max * k / steps
        chart.shapes.append({"kind": "line", "x1": _f(x_of(value)), "x2": _f(x_of(value)), "y1": _f(top),
                             "y2": _f(bottom), "cls": "grid"})
        chart.ticks.append({"x": _f(x_of(value)), "y": _f(bottom + 16), "label": f"{value:g}"})
    chart.ticks.append({"x": _f((left + right) / 2), "y": _f(bottom + 34), "label": "official BLEU"})
    for row in sorted(teams, key=lambda row: (row.bleu, row.human)):
        x, y = x_of(row.bleu), y_of(row.human)
        chart.shapes.append({"kind": "circle", "cx": _f(x), "cy": _f(y), "r": "4.5", "cls": "point",
                             "title": f"{row.label}: BLEU {row.bleu:.1f}, human {display(row.human, HUMAN_DIGITS)}"})
        anchor = "end" if x > (left + right) / 2 else "start"
        chart.shapes.append({"kind": "text", "x": _f(x - 7 if anchor == "end" else x + 7), "y": _f(y - 6),
                             "anchor": anchor, "cls": "point-label", "text": short(row.label), "title": row.label})
    chart.missing += [row.label for row in rows if not row.is_human and row.bleu is None and row.human is not None]
    return chart


def distribution_chart(rows, distribution):
    """A 100% stacked bar per system: the shares of its counted 0, 1, 2 and 3 scores.

    ``distribution``: ``{system name: [count of 0, of 1, of 2, of 3]}``.
    """
    shown = [row for row in rows if sum(distribution.get(row.team, ())) > 0]
    height = TOP + ROW * len(shown) + BOTTOM
    chart = Chart(WIDTH, height, "Share of each score (0-3) in every system's counted ratings")
    left, right = LABEL_WIDTH, WIDTH - RIGHT
    for position, row in enumerate(shown):
        counts = distribution[row.team]
        total = sum(counts)
        top = TOP + ROW * position
        chart.shapes.append({"kind": "text", "x": _f(left - 8), "y": _f(top + ROW / 2 + 4), "anchor": "end",
                             "cls": "row-label" + (" human" if row.is_human else ""), "text": short(row.label),
                             "title": row.label})
        x = left
        for score, count in zip(SCORES, counts):
            width = (right - left) * count / total
            if count:
                chart.shapes.append({"kind": "rect", "x": _f(x), "y": _f(top + 4), "width": _f(width),
                                     "height": _f(ROW - 8), "cls": f"segment score-{score}",
                                     "title": f"{row.label}: {count} of {total} ratings scored {score} "
                                              f"({100 * count / total:.0f}%)"})
            x += width
        chart.shapes.append({"kind": "text", "x": _f(right + 6), "y": _f(top + ROW / 2 + 4), "cls": "count-label",
                             "text": str(total), "anchor": "start"})
    axis = TOP + ROW * len(shown)
    for share in (0, 25, 50, 75, 100):
        x = left + (right - left) * share / 100
        chart.ticks.append({"x": _f(x), "y": _f(axis + 16), "label": f"{share}%"})
    return chart
