"""The Table 6 page's charts as geometry: numbers a template draws as server-rendered SVG. No Django imports.

Three charts, each a plain record of shapes in a fixed ``viewBox`` (the SVG scales to its box), each
drawn for a wide screen (``WIDE``) and for a phone (``NARROW``); the page shows the one that fits:

- :func:`interval_chart`: every rated system's human score (a dot) with its 95% interval (a bar),
  ordered by score, the significance clusters as alternating shaded bands with their number;
- :func:`scatter_chart`: BLEU against human score, one labelled point per team with a BLEU;
- :func:`distribution_chart`: each system's share of 0, 1, 2 and 3 scores as a small stacked bar.

No style is computed here: every shape carries class names that ``static/css/app.css`` styles
(the Content-Security-Policy forbids inline styles). Text is returned as is; the template escapes it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from evalapp.compute.ranks import HUMAN_DIGITS, display
from evalapp.compute.table6 import Table6Row

# One drawn shape (kind: line, rect, circle, text; and its attributes as the SVG gets them).
Shape = dict[str, str]

WIDTH = 640
ROW = 26  # height of one system's row
LABEL_WIDTH = 180  # room for the system's name at the left
RIGHT = 56  # room for the cluster number at the right
TOP, BOTTOM = 10, 34
SCALE_MAX = 3.0  # the rubric's highest score
TICKS = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)
LABEL_CHARS = 26  # a longer name is shortened with an ellipsis (the full name is in the title)
SCATTER_HEIGHT = 380
SCATTER_LEFT, SCATTER_RIGHT = 48, 24
SCORES = (0, 1, 2, 3)
CHAR_WIDTH = 6.5  # the width of a label's character at the charts' 12 px, about (for placing labels)
LABEL_HEIGHT = 12


@dataclass(frozen=True)
class Layout:
    """The geometry of one screen size. Each chart is drawn for a wide screen and again for a phone, and
    the page shows the one that fits (static/css/app.css), so that every axis spans the whole data range
    at a readable text size: one wide drawing shrunk to a phone made its 12 px text 7 px, and one cut
    by a scrolling box hid the systems beyond 1.5."""

    width: int
    label_width: int
    right: int
    label_chars: int
    ticks: tuple[float, ...]
    scatter_height: int
    scatter_left: int
    scatter_right: int
    bleu_steps: int


WIDE = Layout(WIDTH, LABEL_WIDTH, RIGHT, LABEL_CHARS, TICKS, SCATTER_HEIGHT, SCATTER_LEFT, SCATTER_RIGHT, 5)
# A 360 px phone: about 336 px of content, so the drawing is shown at its own size.
NARROW = Layout(336, 118, 34, 13, (0.0, 1.0, 2.0, 3.0), 300, 36, 14, 5)


def _f(value: float) -> str:
    """A coordinate as the SVG gets it (one decimal)."""
    return f"{value:.1f}"


def short(name: str, chars: int = LABEL_CHARS) -> str:
    return name if len(name) <= chars else name[: chars - 1] + "…"


@dataclass
class Chart:
    width: int
    height: int
    title: str
    shapes: list[Shape] = field(default_factory=list)  # dicts: kind (line, rect, circle, text) and attributes
    ticks: list[Shape] = field(default_factory=list)  # axis ticks: dicts x, y, label
    missing: list[str] = field(default_factory=list)  # labels of the systems the chart cannot place
    unlabelled: list[str] = field(default_factory=list)  # placed, but no room for the name beside the point

    @property
    def view_box(self) -> str:
        return f"0 0 {self.width} {self.height}"


def _x_score(value: float, layout: Layout = WIDE) -> float:
    left, right = layout.label_width, layout.width - layout.right
    return left + (right - left) * max(0.0, min(SCALE_MAX, value)) / SCALE_MAX


def interval_chart(rows: Sequence[Table6Row], layout: Layout = WIDE) -> Chart:
    """Dots and interval bars of the rows that have a human score, best first; bands mark the clusters.

    ``rows``: Table 6 rows (anything with ``label``, ``human``, ``ci``, ``cluster``, ``is_human``).
    The axis is the rubric's whole 0-3 range, at every ``layout``, so every dot and bar is on it.
    """
    rated = sorted((row for row in rows if row.human is not None), key=lambda row: (-(row.human or 0.0), row.label))
    height = TOP + ROW * len(rated) + BOTTOM
    width = layout.width
    x_score = partial(_x_score, layout=layout)
    chart = Chart(
        width, height, "Human scores (formula (1)) with 95% intervals, best first; shaded bands: significance clusters"
    )
    for position, row in enumerate(rated):
        top = TOP + ROW * position
        middle = top + ROW / 2
        if row.cluster is not None:
            chart.shapes.append(
                {
                    "kind": "rect",
                    "x": _f(0),
                    "y": _f(top),
                    "width": _f(width),
                    "height": _f(ROW),
                    "cls": f"band band-{'odd' if row.cluster % 2 else 'even'}",
                }
            )
            chart.shapes.append(
                {
                    "kind": "text",
                    "x": _f(width - 6),
                    "y": _f(middle + 4),
                    "cls": "cluster-label",
                    "text": f"C{row.cluster}",
                    "anchor": "end",
                }
            )
        chart.shapes.append(
            {
                "kind": "text",
                "x": _f(layout.label_width - 8),
                "y": _f(middle + 4),
                "anchor": "end",
                "cls": "row-label" + (" human" if row.is_human else ""),
                "text": short(row.label, layout.label_chars),
                "title": row.label,
            }
        )
        ci = row.ci
        if ci is not None and ci.low is not None and ci.high is not None:
            chart.shapes.append(
                {
                    "kind": "line",
                    "x1": _f(x_score(ci.low)),
                    "x2": _f(x_score(ci.high)),
                    "y1": _f(middle),
                    "y2": _f(middle),
                    "cls": "interval",
                    "title": f"{row.label}: 95% interval [{display(ci.low, HUMAN_DIGITS)}, "
                    f"{display(ci.high, HUMAN_DIGITS)}]",
                }
            )
        chart.shapes.append(
            {
                "kind": "circle",
                "cx": _f(x_score(row.human or 0.0)),
                "cy": _f(middle),
                "r": "4.5",
                "cls": "point" + (" human" if row.is_human else ""),
                "title": f"{row.label}: {display(row.human, HUMAN_DIGITS)}",
            }
        )
    axis = TOP + ROW * len(rated)
    for tick in layout.ticks:
        x = x_score(tick)
        chart.shapes.append({"kind": "line", "x1": _f(x), "x2": _f(x), "y1": _f(TOP), "y2": _f(axis), "cls": "grid"})
        chart.ticks.append({"x": _f(x), "y": _f(axis + 16), "label": f"{tick:g}"})
    chart.ticks.append({"x": _f(x_score(SCALE_MAX / 2)), "y": _f(axis + 30), "label": "human score (0-3)"})
    return chart


def _nice_max(value: float) -> float:
    """The axis end above ``value``: the next multiple of 5 (at least 5)."""
    return max(5.0, math.ceil(value / 5.0) * 5.0)


def scatter_chart(rows: Sequence[Table6Row], layout: Layout = WIDE) -> Chart:
    """One labelled point per team with both a BLEU and a human score: BLEU across, human score up.

    BLEU runs from 0 to the next multiple of 5 above the highest, human score over 0-3: every team is inside.
    """
    teams = [row for row in rows if not row.is_human and row.bleu is not None and row.human is not None]
    chart = Chart(layout.width, layout.scatter_height, "Official BLEU against human score, one point per team")
    left, right = layout.scatter_left, layout.width - layout.scatter_right
    top, bottom = TOP + 10, layout.scatter_height - 44
    x_max = _nice_max(max((row.bleu or 0.0 for row in teams), default=0.0))

    def x_of(bleu: float) -> float:
        return left + (right - left) * bleu / x_max

    def y_of(score: float) -> float:
        return bottom - (bottom - top) * max(0.0, min(SCALE_MAX, score)) / SCALE_MAX

    for tick in layout.ticks:
        y = y_of(tick)
        chart.shapes.append({"kind": "line", "x1": _f(left), "x2": _f(right), "y1": _f(y), "y2": _f(y), "cls": "grid"})
        chart.ticks.append({"x": _f(left - 6), "y": _f(y + 4), "label": f"{tick:g}", "anchor": "end"})
    steps = layout.bleu_steps
    for k in range(steps + 1):
        value = x_max * k / steps
        chart.shapes.append(
            {
                "kind": "line",
                "x1": _f(x_of(value)),
                "x2": _f(x_of(value)),
                "y1": _f(top),
                "y2": _f(bottom),
                "cls": "grid",
            }
        )
        chart.ticks.append({"x": _f(x_of(value)), "y": _f(bottom + 16), "label": f"{value:g}"})
    chart.ticks.append({"x": _f((left + right) / 2), "y": _f(bottom + 34), "label": "official BLEU"})
    placed: list[tuple[float, float, float, float]] = []  # the boxes of the labels drawn so far: (x0, y0, x1, y1)
    for row in sorted(teams, key=lambda row: (row.bleu or 0.0, row.human or 0.0)):
        bleu, human = row.bleu or 0.0, row.human or 0.0  # every team here has both
        x, y = x_of(bleu), y_of(human)
        chart.shapes.append(
            {
                "kind": "circle",
                "cx": _f(x),
                "cy": _f(y),
                "r": "4.5",
                "cls": "point",
                "title": f"{row.label}: BLEU {bleu:.1f}, human {display(human, HUMAN_DIGITS)}",
            }
        )
        text = short(row.label, layout.label_chars)
        label = _free_label_place(x, y, text, (x > (left + right) / 2), placed, layout.width)
        if label is None:
            chart.unlabelled.append(row.label)
            continue
        label_x, label_y, anchor = label
        chart.shapes.append(
            {
                "kind": "text",
                "x": _f(label_x),
                "y": _f(label_y),
                "anchor": anchor,
                "cls": "point-label",
                "text": text,
                "title": row.label,
            }
        )
    chart.missing += [row.label for row in rows if not row.is_human and row.bleu is None and row.human is not None]
    return chart


def _label_box(x: float, y: float, text: str, anchor: str) -> tuple[float, float, float, float]:
    width = CHAR_WIDTH * len(text)
    x0 = x - width if anchor == "end" else x
    return x0, y - LABEL_HEIGHT + 2, x0 + width, y + 2


def _free_label_place(
    x: float,
    y: float,
    text: str,
    prefer_left: bool,
    placed: list[tuple[float, float, float, float]],
    width: float,
) -> tuple[float, float, str] | None:
    """Where a point's label goes: above or below it, on its preferred side first, then the other; None
    when every place would overlap a label already drawn or leave the drawing (the label is then left
    out and the team named under the chart, rather than two names printed over each other)."""
    sides = [("end", x - 7), ("start", x + 7)]
    if not prefer_left:
        sides.reverse()
    for anchor, label_x in sides:
        for label_y in (y - 6, y + 15):
            box = _label_box(label_x, label_y, text, anchor)
            inside = box[0] >= 0 and box[2] <= width and box[1] >= 0
            if inside and not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed):
                placed.append(box)
                return label_x, label_y, anchor
    return None


def distribution_chart(
    rows: Sequence[Table6Row], distribution: Mapping[str, Sequence[int]], layout: Layout = WIDE
) -> Chart:
    """A 100% stacked bar per system: the shares of its counted 0, 1, 2 and 3 scores.

    ``distribution``: ``{system name: [count of 0, of 1, of 2, of 3]}``.
    """
    shown = [row for row in rows if sum(distribution.get(row.team, ())) > 0]
    height = TOP + ROW * len(shown) + BOTTOM
    chart = Chart(layout.width, height, "Share of each score (0-3) in every system's counted ratings")
    left, right = layout.label_width, layout.width - layout.right
    for position, row in enumerate(shown):
        counts = distribution[row.team]
        total = sum(counts)
        top = TOP + ROW * position
        chart.shapes.append(
            {
                "kind": "text",
                "x": _f(left - 8),
                "y": _f(top + ROW / 2 + 4),
                "anchor": "end",
                "cls": "row-label" + (" human" if row.is_human else ""),
                "text": short(row.label, layout.label_chars),
                "title": row.label,
            }
        )
        x: float = left
        for score, count in zip(SCORES, counts):
            width = (right - left) * count / total
            if count:
                chart.shapes.append(
                    {
                        "kind": "rect",
                        "x": _f(x),
                        "y": _f(top + 4),
                        "width": _f(width),
                        "height": _f(ROW - 8),
                        "cls": f"segment score-{score}",
                        "title": f"{row.label}: {count} of {total} ratings scored {score} ({100 * count / total:.0f}%)",
                    }
                )
            x += width
        chart.shapes.append(
            {
                "kind": "text",
                "x": _f(right + 6),
                "y": _f(top + ROW / 2 + 4),
                "cls": "count-label",
                "text": str(total),
                "anchor": "start",
            }
        )
    axis = TOP + ROW * len(shown)
    for share in (0, 25, 50, 75, 100):
        x = left + (right - left) * share / 100
        chart.ticks.append({"x": _f(x), "y": _f(axis + 16), "label": f"{share}%"})
    return chart
