"""ChartSpec -> SVG text or PNG bytes with matplotlib's object API (no pyplot: no global figures).

Deterministic: the SVG ids are hashed with a salt named after the chart (so several charts inlined
in one HTML page never share an id) and no date is written into the metadata; the same spec gives
the same bytes. Text is reduced to ASCII so no glyph is ever missing, CJK fonts or not.

No text collides and none leaves the figure, at the usual 9 inches and at a phone's 3.9: the levels'
and today's labels go in the right margin, placed by labels.py's rule after a first layout pass
(`_fit`); the legend takes as many columns as fit, the title wraps to the figure's width, the x axis
shows only as many tick labels as fit, and constrained layout keeps axis titles inside the figure.
"""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import matplotlib
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.legend import Legend
from matplotlib.text import Annotation
from matplotlib.textpath import text_to_path
from matplotlib.transforms import blended_transform_factory

from stockdesk.shared.charts.labels import COLUMN_PAD_PX, LABEL_GAP_PX, MARGIN_SHARE, spread, wrap
from stockdesk.shared.charts.spec import ChartPanel, ChartSeries, ChartSpec, EdgeLabel

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#7f7f7f", "#bcbd22")
LEVELS = {  # reference line style -> (colour, dash)
    "entry": ("#1565c0", "--"),
    "stop": ("#c62828", "--"),
    "target": ("#2e7d32", "--"),
    "median": ("#455a64", ":"),
    "zero": ("#424242", "-"),
    "reference": ("#757575", "-."),
}
WIDTH_IN, PANEL_IN, HEADER_IN = 9.0, 2.5, 0.9
PNG_DPI = 100
MAX_DATE_TICKS = 7
TITLE_PT, LABEL_PT, LEGEND_PT = 12, 8, 8
TICK_GAP_PX = 6  # between two x tick labels; closer ones are thinned out
LEGEND_ROOM_PT = 60  # of the figure's width, what the y axis's labels and title take beside the legend
PT_PER_IN = 72
BAR_SLOT = 0.8  # share of one x step the bars of a category take
LINE_WIDTH = 1.3
POINT_COLOR = "#d62728"
REGION_ALPHA = 0.1
RC = {"svg.fonttype": "path", "font.family": "DejaVu Sans", "axes.titlesize": 10, "font.size": 9}
_LOCK = threading.Lock()  # rc_context swaps process-wide settings: one render at a time


def ascii_text(text: str) -> str:
    """Printable ASCII only ('?' for anything else), '$' escaped so it is never read as mathtext."""
    safe = "".join(c if " " <= c <= "~" else "?" for c in " ".join(text.split()))
    return safe.replace("$", r"\$")


def _array(values: Sequence[float | None]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype="float64")


def _x_ticks(spec: ChartSpec, axis: Axes) -> None:
    n = len(spec.x)
    if spec.x_kind == "category":
        ticks = np.arange(n)
    else:
        ticks = np.unique(np.linspace(0, n - 1, min(n, MAX_DATE_TICKS)).round().astype(int))
    axis.set_xticks(ticks, [ascii_text(spec.x[i]) for i in ticks])
    if spec.x_kind == "category" and n > 8:
        axis.tick_params(axis="x", labelrotation=30)
    axis.set_xlim(-0.5, n - 0.5)


def _thin_x_ticks(axis: Axes) -> bool:
    """Only every k-th x tick label (the last one always kept) when neighbours would touch: a narrow
    figure shows fewer dates or periods rather than overprinted ones. True when it thinned them."""
    ticks = list(axis.get_xticks())
    labels = [t.get_text() for t in axis.get_xticklabels()]
    boxes = [t.get_window_extent() for t in axis.get_xticklabels()]
    step = 1
    while step < len(ticks):
        kept = boxes[len(boxes) - 1 :: -step][::-1]
        if all(a.x1 + TICK_GAP_PX <= b.x0 for a, b in pairwise(kept)):
            break
        step += 1
    if step > 1:
        keep = range(len(ticks) - 1, -1, -step)
        axis.set_xticks([ticks[i] for i in reversed(keep)], [labels[i] for i in reversed(keep)])
    return step > 1


def _draw_bars(axis: Axes, xs: np.ndarray, bars: list[tuple[ChartSeries, str]]) -> None:
    """Bars of different stacks side by side in one slot per x; bars of one stack on top of each other."""
    groups = list(dict.fromkeys(s.stack or s.name for s, _ in bars))
    width = BAR_SLOT / len(groups)
    bottoms = {g: (np.zeros(len(xs)), np.zeros(len(xs))) for g in groups}
    for series, color in bars:
        group = series.stack or series.name
        offset = (groups.index(group) - (len(groups) - 1) / 2) * width
        values = np.nan_to_num(_array(series.values))
        up, down = bottoms[group]
        bottom = np.where(values >= 0, up, down)
        axis.bar(xs + offset, values, width, bottom=bottom, color=color, label=ascii_text(series.name))
        up += np.clip(values, 0, None)
        down += np.clip(values, None, 0)


def _draw_series(spec: ChartSpec, panel: ChartPanel, axis: Axes, colors: list[str], gid: str) -> Axes | None:
    """Lines, scatters and areas (each with an SVG id `<gid>-series<n>`), then the bars; the right axis."""
    xs = np.arange(len(spec.x), dtype="float64")
    right: Axes | None = None
    bars: list[tuple[ChartSeries, str]] = []
    for n, series in enumerate(panel.series):
        color = series.color or colors.pop(0)
        target = axis
        if series.secondary:
            right = right or axis.twinx()
            target = right
        values, style = _array(series.values), {"color": color, "label": ascii_text(series.name)}
        if series.kind == "bar":
            bars.append((series, color))
        elif series.kind == "scatter":
            target.scatter(xs, values, s=28, zorder=3, gid=f"{gid}-series{n}", **style)
        else:
            if series.kind == "area":
                target.fill_between(xs, 0, values, color=color, alpha=0.25, linewidth=0)
            marker = "o" if spec.x_kind == "category" else None  # a few periods: show each one
            target.plot(
                xs,
                values,
                linewidth=series.width or LINE_WIDTH,
                marker=marker,
                markersize=4,
                zorder=2,
                gid=f"{gid}-series{n}",
                **style,
            )
    if bars:
        _draw_bars(axis, xs, bars)
    return right


def _draw_marks(spec: ChartSpec, panel: ChartPanel, edge: list[EdgeLabel], axis: Axes, gid: str) -> None:
    """Shaded x spans and bands behind the data, reference levels across it, highlighted points on top;
    the legend names neither the levels nor the points that `edge` names in the margin."""
    xs = np.arange(len(spec.x), dtype="float64")
    _draw_regions(spec, panel, axis, gid)
    for n, band in enumerate(panel.bands):
        axis.fill_between(
            xs, _array(band.lower), _array(band.upper), color=band.color or "#90a4ae", alpha=0.18,
            linewidth=0, label=ascii_text(band.label), zorder=0, gid=f"{gid}-band{n}",
        )  # fmt: skip
    for n, line in enumerate(panel.lines):  # named in the right margin (or not at all: zero lines)
        color, dash = LEVELS[line.style]
        axis.axhline(
            line.value, color=color, linestyle=dash, linewidth=1.0 if line.style == "zero" else 1.3,
            zorder=1, gid=f"{gid}-level{n}",
        )  # fmt: skip
    positions = {x: i for i, x in enumerate(spec.x)}
    at_edge = {label.index for label in edge if label.kind == "point"}
    for n, point in enumerate(panel.points):
        axis.scatter(
            [positions[point.x]], [point.y], s=70, facecolor="white", edgecolor=POINT_COLOR, linewidth=2,
            label=None if n in at_edge else ascii_text(point.label), zorder=5, clip_on=False,
            gid=f"{gid}-point{n}",
        )  # fmt: skip


def _draw_regions(spec: ChartSpec, panel: ChartPanel, axis: Axes, gid: str) -> None:
    """Each region from half a step before its first x to half a step after its last, labelled at the top."""
    positions = {x: i for i, x in enumerate(spec.x)}
    top = blended_transform_factory(axis.transData, axis.transAxes)
    for n, region in enumerate(panel.regions):
        color = region.color or PALETTE[n % len(PALETTE)]
        first, last = positions[region.start] - 0.5, positions[region.end] + 0.5
        axis.axvspan(
            first, last, color=color, alpha=REGION_ALPHA, linewidth=0, zorder=0, gid=f"{gid}-region{n}"
        )
        if region.label:
            axis.text(
                (first + last) / 2, 0.97, ascii_text(region.label), transform=top, ha="center", va="top",
                fontsize=8, color=color, clip_on=True,
            )  # fmt: skip


@dataclass
class _Drawn:
    """One drawn panel and what `_fit` moves after the first layout: its margin labels and legend."""

    axis: Axes
    right: Axes | None
    legend: tuple[list[Artist], list[str]]  # its handles and their names
    columns: int  # the legend's
    labels: list[Annotation] = field(default_factory=list)


def _margin_width_pt(width_in: float) -> float:
    return MARGIN_SHARE * width_in * PT_PER_IN


def _text_width_pt(text: str, size: float, weight: str = "normal") -> float:
    """How wide `text` is drawn, in points (the renderer's own metrics, before any figure exists)."""
    prop = FontProperties(family=RC["font.family"], size=size, weight=weight)
    return text_to_path.get_text_width_height_descent(text, prop, ismath=False)[0]


def _edge_labels(panel: ChartPanel, edge: list[EdgeLabel], axis: Axes, width_in: float) -> list[Annotation]:
    """The margin labels at the axes' right edge, level with their values (nudged apart later by `_fit`)."""
    at_right = blended_transform_factory(axis.transAxes, axis.transData)
    drawn = []
    for label in edge:
        color = LEVELS[panel.lines[label.index].style][0] if label.kind == "line" else POINT_COLOR
        lines = wrap(
            ascii_text(label.text), _margin_width_pt(width_in), lambda t: _text_width_pt(t, LABEL_PT)
        )
        style = {"ha": "left", "va": "center", "fontsize": LABEL_PT, "color": color, "annotation_clip": False}
        at = {"xy": (1.0, label.y), "xycoords": at_right, "xytext": (0, 0), "textcoords": "offset points"}
        drawn.append(axis.annotate("\n".join(lines), **at, **style))  # moved into the margin by _fit
    return drawn


def _draw_panel(spec: ChartSpec, n: int, axis: Axes, colors: list[str], width_in: float) -> _Drawn:
    """Series, marks, axis titles, the legend above the plot and the margin labels of panel `n`."""
    panel, edge, gid = spec.panels[n], spec.edge_labels[n], f"{spec.id}-panel{n}"
    right = _draw_series(spec, panel, axis, colors, gid)
    _draw_marks(spec, panel, edge, axis, gid)
    axis.set_ylim(panel.y_min, panel.y_max)
    axis.set_ylabel(ascii_text(panel.y_label))
    axis.grid(alpha=0.3, linewidth=0.6)
    handles, labels = axis.get_legend_handles_labels()
    if right is not None:
        right.set_ylabel(ascii_text(panel.y2_label))
        more_handles, more_labels = right.get_legend_handles_labels()
        handles, labels = handles + more_handles, labels + more_labels
    columns = _legend_columns(labels, width_in)
    if handles:
        _legend(axis, handles, labels, columns)
    return _Drawn(axis, right, (handles, labels), columns, _edge_labels(panel, edge, axis, width_in))


def _legend(axis: Axes, handles: list[Artist], labels: list[str], columns: int) -> Legend:
    """Above the plot area, never on the data; a new one replaces the axes' legend."""
    return axis.legend(
        handles, labels, loc="lower left", bbox_to_anchor=(0, 1.0), ncols=columns, fontsize=LEGEND_PT,
        frameon=False, borderaxespad=0.2, handlelength=1.8,
    )  # fmt: skip


def _legend_columns(labels: list[str], width_in: float) -> int:
    """As many columns (at most 4) as the names' widths let fit beside the y axis: a first guess that
    keeps constrained layout from collapsing a narrow figure's axes; `_fit_legend` checks it drawn."""
    entry = (1.8 + 0.8 + 2.0) * LEGEND_PT  # handle, pad to the name, space to the next column (em)
    widths = [_text_width_pt(label, LEGEND_PT) + entry for label in labels]
    room = width_in * PT_PER_IN - LEGEND_ROOM_PT
    for columns in range(min(len(labels), 4), 1, -1):
        if sum(max(widths[c::columns]) for c in range(columns)) <= room:
            return columns
    return 1


def _fit_legend(figure: Figure, drawn: _Drawn) -> bool:
    """Fewer legend columns (more rows) until the legend fits the figure's width (matplotlib lays a
    legend's columns out when it is made, so each try is a new legend). True when it changed it."""
    legend, columns = drawn.axis.get_legend(), drawn.columns
    while legend is not None and drawn.columns > 1 and legend.get_window_extent().x1 > figure.bbox.x1 - 2:
        drawn.columns -= 1
        legend = _legend(drawn.axis, *drawn.legend, drawn.columns)
    return drawn.columns != columns


def _place_labels(figure: Figure, drawn: _Drawn) -> None:
    """labels.py's rule: the margin column past the plot (and past the right-hand axis and its title), each
    label level with its value, nudged apart by `spread` within the plot area's height."""
    if not drawn.labels:
        return
    box = drawn.axis.get_window_extent()
    column = box.x1
    if drawn.right is not None:
        column = max(column, drawn.right.get_tightbbox().x1)
    to_pt = PT_PER_IN / figure.dpi
    x = (column - box.x1 + COLUMN_PAD_PX * figure.dpi / 100) * to_pt
    anchors = [float(drawn.axis.transData.transform((0, a.xy[1]))[1]) for a in drawn.labels]
    heights = [a.get_window_extent().height for a in drawn.labels]
    centres = spread(anchors, heights, box.y0, box.y1, LABEL_GAP_PX * figure.dpi / 100)
    for label, anchor, centre in zip(drawn.labels, anchors, centres, strict=True):
        label.xyann = (x, (centre - anchor) * to_pt)


def _fit(figure: Figure, panels: list[_Drawn], bottom: Axes) -> None:
    """After a first layout: legends to the width, x tick labels thinned, then the margin labels placed
    on the plot areas as they will be drawn (laid out again first when the legends or ticks changed)."""
    figure.draw_without_rendering()
    changed = [_fit_legend(figure, drawn) for drawn in panels]
    if _thin_x_ticks(bottom) or any(changed):
        figure.draw_without_rendering()
    for drawn in panels:
        _place_labels(figure, drawn)


def build_figure(spec: ChartSpec, width_in: float = WIDTH_IN) -> Figure:
    """The whole chart on a fresh Figure `width_in` inches wide: panels stacked, sharing x, the title on top
    (wrapped to the width), every label placed (see the module docstring)."""
    heights = [p.height for p in spec.panels]
    figure = Figure(figsize=(width_in, HEADER_IN + PANEL_IN * sum(heights)), layout="constrained")
    axes = figure.subplots(
        len(spec.panels), 1, sharex=True, squeeze=False, gridspec_kw={"height_ratios": heights}
    )[:, 0]
    colors = list(PALETTE) * 4
    panels = [_draw_panel(spec, n, axis, colors, width_in) for n, axis in enumerate(axes)]
    _x_ticks(spec, axes[-1])
    title = wrap(
        ascii_text(spec.title), width_in * PT_PER_IN - 12, lambda t: _text_width_pt(t, TITLE_PT, "bold")
    )
    figure.suptitle("\n".join(title), fontsize=TITLE_PT, fontweight="bold")
    _fit(figure, panels, axes[-1])
    return figure


def _save(spec: ChartSpec, fmt: str, width_in: float, **options: object) -> bytes:
    buffer = io.BytesIO()
    rc = {**RC, "svg.hashsalt": f"stockdesk-{spec.id}", "svg.id": f"chart-{spec.id}"}
    with _LOCK, matplotlib.rc_context(rc):
        build_figure(spec, width_in).savefig(buffer, format=fmt, **options)
    return buffer.getvalue()


def render_svg(spec: ChartSpec, width_in: float = WIDTH_IN) -> str:
    """A standalone SVG document (XML prolog included); text drawn as paths, so no font is needed."""
    metadata = {"Date": None, "Title": ascii_text(spec.title)}
    return _save(spec, "svg", width_in, metadata=metadata).decode("utf-8")


def render_png(spec: ChartSpec, dpi: int = PNG_DPI, width_in: float = WIDTH_IN) -> bytes:
    return _save(spec, "png", width_in, dpi=dpi, metadata={"Software": None})


_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)  # XML declaration and DOCTYPE: not inside HTML


def render_inline_svg(spec: ChartSpec) -> str:
    """The chart as an <svg> element for an HTML page: no prolog, shrinks to the page width."""
    document = render_svg(spec)
    return _PROLOG.sub("", document, count=1).replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
