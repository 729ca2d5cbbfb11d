"""The metric report's charts as small hand-written SVG. No Django imports.

Every element carries a class and no style attribute, so the page's Content-Security-Policy
(no inline style) holds and static/css/metric-report.css draws them; every text is escaped.
A chart is made only for data it can show: callers get None for an empty one.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

# (metric, value, interval low, interval high, rank cluster) of an interval chart's row
ChartRow = tuple[str, float | None, float | None, float | None, int | None]

WIDTH, HEIGHT = 320, 240
MARGIN = {"left": 46, "right": 12, "top": 26, "bottom": 36}
ROW_HEIGHT = 22
CHART_LABEL_WIDTH = 120
TICKS = 4
# A histogram panel: drawn at about its own size in the page's grid (static/css/metric-report.css),
# so its 11-12 px text is read at 11-12 px; the bars start HISTOGRAM_TOP down, leaving the title's
# line and the count above the tallest bar clear of each other; the y-axis takes HISTOGRAM_LEFT.
HISTOGRAM_WIDTH, HISTOGRAM_HEIGHT = 200, 160
HISTOGRAM_TOP, HISTOGRAM_LEFT = 40, 34
HISTOGRAM_Y_TICKS = 3
HISTOGRAM_TITLE_CHARS = 28  # a longer name is cut with an ellipsis (the full one is in the chart's label)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _f(value: float) -> str:
    return f"{value:.1f}"


def nice_ticks(low: float, high: float, count: int = TICKS) -> list[float]:
    """Round tick values covering [low, high]."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return []
    if high <= low:
        high = low + (abs(low) or 1.0) * 0.1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step) * step
    ticks: list[float] = []
    value = start
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 10))
    return ticks


def _short(text: object, chars: int) -> str:
    text = str(text)
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _tick_label(value: float, ticks: Sequence[float]) -> str:
    return f"{round(value, 6):g}"


def _open(width: float, height: float, label: str, extra_class: str = "") -> str:
    classes = " ".join(["chart", extra_class]).strip()
    return (
        f'<svg class="{classes}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{_e(label)}"><title>{_e(label)}</title>'
    )


def scatter_svg(
    title: str, points: Sequence[tuple[float | None, float | None, str]], x_label: str, y_label: str
) -> str | None:
    """Metric (x) against human score (y), one labelled point per system; None without points."""
    plotted = [
        (float(x), float(y), label)
        for x, y, label in points
        if x is not None and y is not None and math.isfinite(x) and math.isfinite(y)
    ]
    if not plotted:
        return None
    xs, ys = [p[0] for p in plotted], [p[1] for p in plotted]
    x_ticks, y_ticks = nice_ticks(min(xs), max(xs)), nice_ticks(min(ys), max(ys))
    left, right = MARGIN["left"], WIDTH - MARGIN["right"]
    top, bottom = MARGIN["top"], HEIGHT - MARGIN["bottom"]

    def sx(x: float) -> float:
        return left + (x - x_ticks[0]) / ((x_ticks[-1] - x_ticks[0]) or 1) * (right - left)

    def sy(y: float) -> float:
        return bottom - (y - y_ticks[0]) / ((y_ticks[-1] - y_ticks[0]) or 1) * (bottom - top)

    parts = [
        _open(WIDTH, HEIGHT, f"{title}: {x_label} against {y_label}, one point per system"),
        f'<text class="chart-title" x="{WIDTH / 2:.1f}" y="16">{_e(title)}</text>',
    ]
    for tick in x_ticks:
        parts.append(
            f'<line class="grid" x1="{_f(sx(tick))}" y1="{top}" x2="{_f(sx(tick))}" y2="{bottom}"/>'
            f'<text class="tick tick-x" x="{_f(sx(tick))}" y="{bottom + 13}">{_tick_label(tick, x_ticks)}</text>'
        )
    for tick in y_ticks:
        parts.append(
            f'<line class="grid" x1="{left}" y1="{_f(sy(tick))}" x2="{right}" y2="{_f(sy(tick))}"/>'
            f'<text class="tick tick-y" x="{left - 4}" y="{_f(sy(tick) + 3)}">{_tick_label(tick, y_ticks)}</text>'
        )
    parts.append(
        f'<line class="axis" x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>'
        f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{bottom}"/>'
    )
    parts.append(f'<text class="axis-label" x="{(left + right) / 2:.1f}" y="{HEIGHT - 6}">{_e(x_label)}</text>')
    parts.append(
        f'<text class="axis-label axis-label-y" transform="translate(11 {(top + bottom) / 2:.1f}) rotate(-90)">'
        f"{_e(y_label)}</text>"
    )
    for x, y, label in plotted:
        anchor = "end" if sx(x) > (left + right) / 2 else "start"
        dx = -5 if anchor == "end" else 5
        parts.append(
            f'<circle class="point" cx="{_f(sx(x))}" cy="{_f(sy(y))}" r="3.5"><title>{_e(label)}: '
            f"{x:.3f}, {y:.3f}</title></circle>"
            f'<text class="point-label point-label-{anchor}" x="{_f(sx(x) + dx)}" y="{_f(sy(y) - 4)}">'
            f"{_e(label)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def interval_chart_svg(title: str, rows: Sequence[ChartRow]) -> str | None:
    """One row per metric: the value as a dot, its 95% interval as a bar, the rank cluster in the
    label. ``rows``: (metric, value, low, high, rank). None when no value is defined."""
    charted = [
        (name, value, low, high, rank)
        for name, value, low, high, rank in rows
        if value is not None and math.isfinite(value)
    ]
    if not charted:
        return None
    bounds = [v for _, value, low, high, _ in charted for v in (value, low, high) if v is not None and math.isfinite(v)]
    ticks = nice_ticks(min(bounds), max(bounds))
    height = MARGIN["top"] + ROW_HEIGHT * len(charted) + MARGIN["bottom"]
    left, right = CHART_LABEL_WIDTH, WIDTH - MARGIN["right"]
    top, bottom = MARGIN["top"], height - MARGIN["bottom"]

    def sx(x: float) -> float:
        return left + (x - ticks[0]) / ((ticks[-1] - ticks[0]) or 1) * (right - left)

    parts = [
        _open(WIDTH, height, f"{title} per metric with 95% bootstrap intervals"),
        f'<text class="chart-title" x="{WIDTH / 2:.1f}" y="16">{_e(title)}</text>',
    ]
    for tick in ticks:
        parts.append(
            f'<line class="grid" x1="{_f(sx(tick))}" y1="{top}" x2="{_f(sx(tick))}" y2="{bottom}"/>'
            f'<text class="tick tick-x" x="{_f(sx(tick))}" y="{bottom + 13}">{_tick_label(tick, ticks)}</text>'
        )
    parts.append(f'<line class="axis" x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>')
    for position, (name, value, low, high, rank) in enumerate(charted):
        y = top + ROW_HEIGHT * position + ROW_HEIGHT / 2
        label = f"{name} (#{rank})" if rank is not None else name
        parts.append(f'<text class="row-label" x="{left - 6}" y="{_f(y + 4)}">{_e(label)}</text>')
        if low is not None and high is not None and math.isfinite(low) and math.isfinite(high):
            parts.append(
                f'<line class="interval" x1="{_f(sx(low))}" y1="{_f(y)}" x2="{_f(sx(high))}" y2="{_f(y)}"/>'
                f'<line class="interval-end" x1="{_f(sx(low))}" y1="{_f(y - 4)}" x2="{_f(sx(low))}" '
                f'y2="{_f(y + 4)}"/><line class="interval-end" x1="{_f(sx(high))}" y1="{_f(y - 4)}" '
                f'x2="{_f(sx(high))}" y2="{_f(y + 4)}"/>'
            )
        rank_class = f" rank-{min(rank, 4)}" if rank is not None else ""
        parts.append(
            f'<circle class="point{rank_class}" cx="{_f(sx(value))}" cy="{_f(y)}" r="4"><title>{_e(name)}: '
            f"{value:.3f}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def histogram_svg(name: str, counts: Sequence[int], y_max: int | None = None) -> str | None:
    """Bars of how many ratings of each score (0-3) a system received; None without ratings.

    ``y_max``: the highest count of any system's histogram, so that all of them share one y-axis
    (the same height means the same count in every panel); this one's own highest by default.
    The count above each bar sits below the title's line, so the two never overlap.
    """
    if not counts or not sum(counts):
        return None
    width, height = HISTOGRAM_WIDTH, HISTOGRAM_HEIGHT
    top, bottom, left, right = HISTOGRAM_TOP, height - 22, HISTOGRAM_LEFT, width - 6
    y_ticks = nice_ticks(0, max(y_max or 0, max(counts)), HISTOGRAM_Y_TICKS)
    scale = (bottom - top) / y_ticks[-1]
    bar_width = (right - left) / len(counts)
    parts = [
        _open(
            width,
            height,
            f"{name}: ratings per score " + ", ".join(f"{score}: {count}" for score, count in enumerate(counts)),
            "histogram",
        ),
        f'<text class="chart-title" x="{width / 2:.1f}" y="15">{_e(_short(name, HISTOGRAM_TITLE_CHARS))}</text>',
    ]
    for tick in y_ticks:
        y = bottom - tick * scale
        parts.append(
            f'<line class="grid" x1="{left}" y1="{_f(y)}" x2="{right}" y2="{_f(y)}"/>'
            f'<text class="tick tick-y" x="{left - 4}" y="{_f(y + 4)}">{_tick_label(tick, y_ticks)}</text>'
        )
    for score, count in enumerate(counts):
        bar = count * scale
        x = left + score * bar_width
        parts.append(
            f'<rect class="bar" x="{_f(x + 3)}" y="{_f(bottom - bar)}" width="{_f(bar_width - 6)}" '
            f'height="{_f(bar)}"/><text class="tick tick-x" x="{_f(x + bar_width / 2)}" y="{bottom + 15}">{score}'
            f'</text><text class="bar-count" x="{_f(x + bar_width / 2)}" y="{_f(bottom - bar - 4)}">{count}</text>'
        )
    parts.append(
        f'<line class="axis" x1="{left}" y1="{top - 6}" x2="{left}" y2="{bottom}"/>'
        f'<line class="axis" x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>'
    )
    parts.append("</svg>")
    return "".join(parts)
