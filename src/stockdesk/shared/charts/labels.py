"""Where a chart's labels go so none collides: one rule for matplotlib (render.py) and ECharts (charts.js).

What is labelled, and in which words, is decided once, in the spec: `ChartSpec.edge_labels` names
every reference level but the zero lines ("median 10.51", "stop-loss 18.20") and every highlighted
point on the last x (today's value). Those labels go in the panel's right margin, in a column that
starts COLUMN_PAD_PX past the plot area (past the right-hand axis and its title when the panel has
one), each level with its value: never on the plot, so never on a line or on a line's last points,
and never on each other, because `spread` moves them apart, as little as it can, keeping at least
LABEL_GAP_PX between two labels and every label within the plot area's height (so a margin label
never reaches the x-axis labels below it or the legend above it). A label wider than MARGIN_SHARE of
the chart's width is broken into lines at spaces (`wrap`): at 390 px the plot keeps most of the width.

Why the renderers place the labels, not the spec: the pixel a value lands on is the renderer's. The
y range is chosen by the renderer (ECharts rescales it when the reader zooms into a date range,
matplotlib autoscales) and so is the panel's height in pixels (fixed per panel in a page, in inches
in a file). So each renderer runs the same rule after its own layout: render.py calls `spread` and
`wrap` here, charts.js has the same two functions line for line (`StockdeskCharts.spread` and
`wrap`), pinned to these by tests/browser/test_chart_labels.py, which runs both on the same cases.

The rest of the "nothing collides, nothing clipped" rule is each renderer's own layout, checked by the
same tests: matplotlib uses constrained layout (axis titles, margin labels and the legend all inside
the figure), fits its legend's columns and wraps its title to the figure's width, and shows only as
many x tick labels as fit; ECharts keeps axis titles inside its outer bounds and hides tick labels
that would overlap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

LABEL_GAP_PX = 3.0  # between two margin labels, at 100 dpi (matplotlib scales it with the dpi)
COLUMN_PAD_PX = (
    9.0  # from the plot area (or the right-hand axis) to the margin labels: clear of a point marker
)
MARGIN_SHARE = 0.25  # the margin labels never take more than this share of the chart's width
LABEL_FONT_PX = 11.0  # ECharts' margin label size; matplotlib uses 8 pt (11 px at 100 dpi)


def _block_top(members: list[int], anchors: Sequence[float], offsets: list[float], height: float,
               low: float, high: float) -> float:  # fmt: skip
    """Where a block of stacked labels starts: as close as it can be to its members' values (their mean
    shift, least squares), kept inside [low, high]; a block taller than the room starts at `low`."""
    ideal = sum(anchors[i] - offsets[i] for i in members) / len(members)
    return max(min(ideal, high - height), low)


def spread(
    anchors: Sequence[float], heights: Sequence[float], low: float, high: float, gap: float
) -> list[float]:
    """The centres of labels whose wanted centres are `anchors` (in pixels, on one axis, any direction)
    so that two labels are at least `gap` apart and all lie within [low, high] when they fit.

    Labels keep their order. Overlapping labels are stacked into a block centred on what they name
    (the mean of their wanted positions), and blocks that then touch merge, until none does.
    """
    order = sorted(range(len(anchors)), key=lambda i: (anchors[i], i))
    offsets = [0.0] * len(anchors)  # a label's centre below its block's top
    blocks: list[tuple[list[int], float, float]] = []  # (members, top, height)
    for i in order:
        offsets[i] = heights[i] / 2
        members, height = [i], heights[i]
        top = _block_top(members, anchors, offsets, height, low, high)
        while blocks and blocks[-1][1] + blocks[-1][2] + gap > top:
            before, _, before_height = blocks.pop()
            for j in members:
                offsets[j] += before_height + gap
            members, height = before + members, before_height + gap + height
            top = _block_top(members, anchors, offsets, height, low, high)
        blocks.append((members, top, height))
    centres = [0.0] * len(anchors)
    for members, top, _ in blocks:
        for i in members:
            centres[i] = top + offsets[i]
    return centres


def _greedy(words: list[str], width: float, measure: Callable[[str], float]) -> list[str]:
    lines: list[str] = []
    for word in words:
        candidate = f"{lines[-1]} {word}" if lines else word
        if lines and measure(candidate) <= width:
            lines[-1] = candidate
        else:
            lines.append(word)
    return lines


def wrap(text: str, max_width: float, measure: Callable[[str], float]) -> list[str]:
    """`text` in as few lines no wider than `max_width` (as `measure` tells) as it can be, broken at
    spaces, and of those the narrowest ("2024-06-28:" over "30.00 (pct 100)", not a lone "100)"): the
    margin then takes no more width than it needs. A word wider than that stays whole on its own line."""
    words = text.split()
    if not words:
        return [text]
    known: dict[str, float] = {}

    def width(part: str) -> float:
        if part not in known:
            known[part] = measure(part)
        return known[part]

    fewest = len(_greedy(words, max_width, width))
    spans = sorted(
        {width(" ".join(words[i:j])) for i in range(len(words)) for j in range(i + 1, len(words) + 1)}
    )
    for span in spans:
        lines = _greedy(words, span, width)
        if len(lines) <= fewest:
            return lines
    return _greedy(words, max_width, width)
