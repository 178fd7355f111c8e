"""The session's charts drawn by matplotlib (reports and files): no two texts overlap and every text
lies inside the figure, at the usual 9 inches and at a phone's 3.9 (390 px at 100 dpi), for the served
store's session, a wide-priced one and the crafted worst case; the margin labels stand clear of the plot.

What is checked is the texts matplotlib really draws (Text.draw calls of visible, non-empty texts), not
every Text object it keeps (tick labels outside the view, a twin axis's unused side)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

import matplotlib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox

from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ReferenceLine
from stockdesk.shared.charts.render import RC, WIDTH_IN, build_figure
from tests.coordinator.chart_cases import CASES, Case, session_charts

PHONE_IN = 3.9
TOUCH = 0.5  # px: boxes that only share an edge do not overlap


@pytest.fixture
def drawn_texts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Text]]:
    """Every Text drawn from now on that shows something (Text.draw: the axis calls it only for the
    ticks in view, the legend for its entries, Annotation.draw for a label it keeps)."""
    seen: list[Text] = []
    original = Text.draw

    def record(self: Text, renderer: RendererAgg) -> None:
        if self.get_visible() and self.get_text().strip() and all(self is not t for t in seen):
            seen.append(self)
        original(self, renderer)

    monkeypatch.setattr(Text, "draw", record)
    yield seen


def draw(spec: ChartSpec, width_in: float, drawn: list[Text]) -> tuple[Figure, RendererAgg]:
    """The figure as a file gets it; `drawn` holds the texts of that final drawing only (building the
    figure lays it out too)."""
    with matplotlib.rc_context(RC):
        figure = build_figure(spec, width_in)
        canvas = FigureCanvasAgg(figure)
        drawn.clear()
        canvas.draw()
    return figure, canvas.get_renderer()


def overlap(a: Bbox, b: Bbox) -> bool:
    return a.x1 - TOUCH > b.x0 and b.x1 - TOUCH > a.x0 and a.y1 - TOUCH > b.y0 and b.y1 - TOUCH > a.y0


def describe(text: Text, box: Bbox) -> str:
    return f"{text.get_text()!r} at x {box.x0:.0f}-{box.x1:.0f}, y {box.y0:.0f}-{box.y1:.0f}"


def assert_clear(spec: ChartSpec, width_in: float, drawn: list[Text]) -> None:
    """No drawn text overlaps another, none leaves the figure."""
    figure, renderer = draw(spec, width_in, drawn)
    boxes = [(t, t.get_window_extent(renderer)) for t in drawn]
    assert len(boxes) > 10, f"{spec.id}: too few texts drawn to mean anything"
    frame = figure.bbox
    outside = [
        describe(t, b)
        for t, b in boxes
        if b.x0 < frame.x0 or b.y0 < frame.y0 or b.x1 > frame.x1 or b.y1 > frame.y1
    ]
    assert not outside, f"{spec.id} at {width_in} in: outside the {frame.width:.0f} px figure: {outside}"
    clashes = [f"{describe(*a)} / {describe(*b)}" for a, b in combinations(boxes, 2) if overlap(a[1], b[1])]
    assert not clashes, f"{spec.id} at {width_in} in: overlapping texts: {clashes}"


@pytest.mark.parametrize("width_in", [WIDTH_IN, PHONE_IN], ids=["900px", "390px"])
@pytest.mark.parametrize("case", CASES)
def test_no_text_overlaps_another_or_leaves_the_figure(
    case: Case, width_in: float, drawn_texts: list[Text]
) -> None:
    for spec in session_charts(case):
        assert_clear(spec, width_in, drawn_texts)


def test_a_long_legend_takes_as_many_rows_as_the_phone_needs(drawn_texts: list[Text]) -> None:
    names = ["deducted profit YoY %", "revenue YoY %", "ROE % (YTD)", "gross margin %"]
    series = [ChartSeries(name=name, values=[float(i + n) for i in range(8)]) for n, name in enumerate(names)]
    spec = ChartSpec(
        id="legend", title="Growth and returns by report period", caption="c",
        x=[f"202{y}Q{q}" for y in (2, 3) for q in (1, 2, 3, 4)], x_kind="category",
        panels=[ChartPanel(y_label="percent", series=series)],
    )  # fmt: skip
    assert_clear(spec, PHONE_IN, drawn_texts)


@pytest.mark.parametrize("width_in", [WIDTH_IN, PHONE_IN], ids=["900px", "390px"])
def test_margin_labels_stand_right_of_the_plot_level_with_the_plot(
    width_in: float, drawn_texts: list[Text]
) -> None:
    """The worst case's plan levels (within 1%) and today's PE on its median: every one named, none on the
    plot area (so none on a line or its last points), none above or below it."""
    price, valuation, *_ = session_charts("worst")
    assert valuation.panels[0].points[0].y == valuation.panels[0].lines[0].value  # really the worst case
    levels = [line.value for line in price.panels[0].lines]
    assert max(levels) / min(levels) - 1 < 0.011
    for spec in (price, valuation):
        figure, renderer = draw(spec, width_in, drawn_texts)
        labels = [t for t in drawn_texts if isinstance(t, Annotation)]
        named = [" ".join(t.get_text().split()) for t in labels]
        assert named == [e.text for panel in spec.edge_labels for e in panel]
        for label in labels:
            box, plot = label.get_window_extent(renderer), label.axes.get_window_extent(renderer)
            assert box.x0 >= plot.x1 + 4, f"{label.get_text()!r} reaches into the plot area"
            assert plot.y0 - TOUCH <= box.y0 and box.y1 <= plot.y1 + TOUCH, (
                f"{label.get_text()!r} leaves its panel"
            )
        assert figure.bbox.width == pytest.approx(width_in * figure.dpi)


@pytest.mark.parametrize("width_in", [WIDTH_IN, PHONE_IN], ids=["900px", "390px"])
def test_a_panel_with_a_right_hand_axis_has_its_margin_labels_past_that_axis(
    width_in: float, drawn_texts: list[Text]
) -> None:
    quarters = [f"202{y}Q{q}" for y in (2, 3) for q in (1, 2, 3, 4)]
    spec = ChartSpec(
        id="margin", title="Profit and margin", caption="c", x=quarters, x_kind="category",
        panels=[
            ChartPanel(
                y_label="profit (m CNY)", y2_label="gross margin %",
                series=[
                    ChartSeries(name="profit", kind="bar", values=[500.0, 800, 300, 600, 900, 1200, 390, 70]),
                    ChartSeries(name="margin", secondary=True, values=[30.5, 31, 31.5, 32, 32.5, 33, 34, 3]),
                ],
                lines=[ReferenceLine(label="plan", value=700.0, style="target")],
            )
        ],
    )  # fmt: skip
    assert_clear(spec, width_in, drawn_texts)
    figure, renderer = draw(spec, width_in, drawn_texts)
    [label] = [t for t in drawn_texts if isinstance(t, Annotation)]
    right_axis = next(a for a in figure.axes if a is not label.axes)
    assert label.get_window_extent(renderer).x0 >= right_axis.get_tightbbox(renderer).x1
