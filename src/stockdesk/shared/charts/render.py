"""ChartSpec -> SVG text or PNG bytes with matplotlib's object API (no pyplot: no global figures).

Deterministic: the SVG ids are hashed with a salt named after the chart (so several charts inlined
in one HTML page never share an id) and no date is written into the metadata; the same spec gives
the same bytes. Text is reduced to ASCII so no glyph is ever missing, CJK fonts or not.
"""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Sequence

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from stockdesk.shared.charts.spec import ChartPanel, ChartSeries, ChartSpec

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
BAR_SLOT = 0.8  # share of one x step the bars of a category take
LINE_WIDTH = 1.3
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


def _draw_marks(spec: ChartSpec, panel: ChartPanel, axis: Axes, gid: str) -> None:
    """Shaded x spans and bands behind the data, reference levels across it, highlighted points on top."""
    xs = np.arange(len(spec.x), dtype="float64")
    _draw_regions(spec, panel, axis, gid)
    for n, band in enumerate(panel.bands):
        axis.fill_between(
            xs, _array(band.lower), _array(band.upper), color=band.color or "#90a4ae", alpha=0.18,
            linewidth=0, label=ascii_text(band.label), zorder=0, gid=f"{gid}-band{n}",
        )  # fmt: skip
    for n, line in enumerate(panel.lines):
        color, dash = LEVELS[line.style]
        axis.axhline(
            line.value, color=color, linestyle=dash, linewidth=1.0 if line.style == "zero" else 1.3,
            label=None if line.style == "zero" else ascii_text(f"{line.label} {line.value:,.2f}"), zorder=1,
            gid=f"{gid}-level{n}",
        )  # fmt: skip
    positions = {x: i for i, x in enumerate(spec.x)}
    for n, point in enumerate(panel.points):
        axis.scatter(
            [positions[point.x]], [point.y], s=70, facecolor="white", edgecolor="#d62728", linewidth=2,
            label=ascii_text(point.label), zorder=5, clip_on=False, gid=f"{gid}-point{n}",
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


def _draw_panel(spec: ChartSpec, panel: ChartPanel, axis: Axes, colors: list[str], gid: str) -> None:
    right = _draw_series(spec, panel, axis, colors, gid)
    _draw_marks(spec, panel, axis, gid)
    axis.set_ylim(panel.y_min, panel.y_max)
    axis.set_ylabel(ascii_text(panel.y_label))
    axis.grid(alpha=0.3, linewidth=0.6)
    handles, labels = axis.get_legend_handles_labels()
    if right is not None:
        right.set_ylabel(ascii_text(panel.y2_label))
        more_handles, more_labels = right.get_legend_handles_labels()
        handles, labels = handles + more_handles, labels + more_labels
    if handles:  # above the plot area, never on the data
        axis.legend(
            handles, labels, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=min(len(handles), 4),
            fontsize=8, frameon=False, borderaxespad=0.2, handlelength=1.8,
        )  # fmt: skip


def build_figure(spec: ChartSpec) -> Figure:
    """The whole chart on a fresh Figure: panels stacked, sharing x, the title on top."""
    heights = [p.height for p in spec.panels]
    figure = Figure(figsize=(WIDTH_IN, HEADER_IN + PANEL_IN * sum(heights)), layout="constrained")
    axes = figure.subplots(
        len(spec.panels), 1, sharex=True, squeeze=False, gridspec_kw={"height_ratios": heights}
    )[:, 0]
    colors = list(PALETTE) * 4
    for n, (panel, axis) in enumerate(zip(spec.panels, axes, strict=True)):
        _draw_panel(spec, panel, axis, colors, gid=f"{spec.id}-panel{n}")
    _x_ticks(spec, axes[-1])
    figure.suptitle(ascii_text(spec.title), fontsize=12, fontweight="bold")
    return figure


def _save(spec: ChartSpec, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    rc = {**RC, "svg.hashsalt": f"stockdesk-{spec.id}", "svg.id": f"chart-{spec.id}"}
    with _LOCK, matplotlib.rc_context(rc):
        build_figure(spec).savefig(buffer, format=fmt, **options)
    return buffer.getvalue()


def render_svg(spec: ChartSpec) -> str:
    """A standalone SVG document (XML prolog included); text drawn as paths, so no font is needed."""
    metadata = {"Date": None, "Title": ascii_text(spec.title)}
    return _save(spec, "svg", metadata=metadata).decode("utf-8")


def render_png(spec: ChartSpec, dpi: int = PNG_DPI) -> bytes:
    return _save(spec, "png", dpi=dpi, metadata={"Software": None})


_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)  # XML declaration and DOCTYPE: not inside HTML


def render_inline_svg(spec: ChartSpec) -> str:
    """The chart as an <svg> element for an HTML page: no prolog, shrinks to the page width."""
    document = render_svg(spec)
    return _PROLOG.sub("", document, count=1).replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
