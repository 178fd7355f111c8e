"""ChartSpec (JSON-safe, aligned) and its matplotlib rendering: valid SVG and PNG, byte-identical reruns."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET

import matplotlib.image
import pytest
from pydantic import ValidationError

from stockdesk.shared.charts import (
    Band,
    ChartPanel,
    ChartSeries,
    ChartSpec,
    Point,
    ReferenceLine,
    render_png,
    render_svg,
)
from stockdesk.shared.charts.render import HEADER_IN, PANEL_IN, PNG_DPI, WIDTH_IN, ascii_text

SVG = "{http://www.w3.org/2000/svg}"
DAYS = [f"2024-01-{d:02d}" for d in range(1, 11)]


def spec(**changes: object) -> ChartSpec:
    """Two panels: two lines, a band, two levels and a point over bars."""
    base: dict[str, object] = dict(
        id="demo",
        title="600001.SH demo chart",
        caption="Close above its moving average.\n  Read the dashed levels.",
        x=DAYS,
        panels=[
            ChartPanel(
                y_label="price",
                height=2.0,
                series=[
                    ChartSeries(
                        name="close", values=[10.0, 10.5, None, 11.0, 11.2, 11.1, 11.4, 11.8, 12.0, 12.2]
                    ),
                    ChartSeries(
                        name="MA3", values=[None, None, 10.4, 10.7, 11.0, 11.1, 11.2, 11.4, 11.7, 12.0]
                    ),
                ],
                bands=[Band(label="10th-90th pct", lower=[10.2] * 10, upper=[11.9] * 10)],
                lines=[
                    ReferenceLine(label="entry", value=12.2, style="entry"),
                    ReferenceLine(label="stop-loss", value=11.0, style="stop"),
                ],
                points=[Point(label="today 12.20", x=DAYS[-1], y=12.2)],
            ),
            ChartPanel(
                y_label="volume",
                series=[ChartSeries(name="volume", kind="bar", values=[1.0, 2, 3, 2, 1, 2, 3, 4, 3, 2])],
            ),
        ],
    )
    base.update(changes)
    return ChartSpec(**base)  # type: ignore[arg-type]


def test_a_spec_is_json_safe_and_survives_a_round_trip() -> None:
    chart = spec(
        panels=[
            ChartPanel(series=[ChartSeries(name="x", values=[1.0, float("nan"), float("inf")] + [2.0] * 7)])
        ]
    )
    assert chart.panels[0].series[0].values[:3] == [1.0, None, None]  # never NaN: JSON cannot carry it
    assert chart.caption == "Close above its moving average. Read the dashed levels."  # one line
    dumped = json.dumps(chart.model_dump(mode="json"), allow_nan=False)
    assert ChartSpec.model_validate(json.loads(dumped)) == chart


@pytest.mark.parametrize(
    ("panel", "problem"),
    [
        (ChartPanel(series=[ChartSeries(name="short", values=[1.0, 2.0])]), "has 2 values for 10 x"),
        (ChartPanel(bands=[Band(label="b", lower=[1.0], upper=[2.0])]), "does not have 10"),
        (ChartPanel(points=[Point(label="p", x="2030-01-01", y=1.0)]), "is not an x value"),
    ],
)
def test_misaligned_specs_are_rejected(panel: ChartPanel, problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        spec(panels=[panel])


def test_svg_is_valid_xml_with_the_title_and_one_element_per_series_level_band_and_point() -> None:
    root = ET.fromstring(render_svg(spec()))
    assert root.tag == f"{SVG}svg" and root.get("id") == "chart-demo"
    assert root.findtext(f"{SVG}title") == "600001.SH demo chart"
    ids = [g.get("id") or "" for g in root.iter(f"{SVG}g")]
    assert sorted(i for i in ids if i.startswith("demo-")) == [
        "demo-panel0-band0", "demo-panel0-level0", "demo-panel0-level1", "demo-panel0-point0",
        "demo-panel0-series0", "demo-panel0-series1",
    ]  # fmt: skip
    # the close line: one path through the 9 drawn values, broken at the gap (two "M" moves)
    [close] = [g for g in root.iter(f"{SVG}g") if g.get("id") == "demo-panel0-series0"]
    path = close.find(f"{SVG}path")
    assert path is not None and path.get("d", "").count("M") == 2 and path.get("d", "").count("L") == 7
    bars = [g for g in root.iter(f"{SVG}g") if (g.get("id") or "").startswith("patch_")]
    assert len(bars) >= 10  # the volume bars (plus the axes backgrounds)


def test_png_is_a_png_of_the_expected_size_that_decodes() -> None:
    png = render_png(spec())
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])  # IHDR
    assert (width, height) == (round(WIDTH_IN * PNG_DPI), round((HEADER_IN + PANEL_IN * 3.0) * PNG_DPI))
    pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
    assert pixels.shape[:2] == (height, width) and pixels.std() > 0.05  # not a blank image


def test_rendering_is_deterministic_and_ids_differ_between_charts() -> None:
    assert render_svg(spec()) == render_svg(spec())
    assert render_png(spec()) == render_png(spec())
    other = render_svg(spec(id="other"))
    clips = {e.get("id") for e in ET.fromstring(render_svg(spec())).iter(f"{SVG}clipPath")}
    other_clips = {e.get("id") for e in ET.fromstring(other).iter(f"{SVG}clipPath")}
    assert clips and not clips & other_clips  # two charts inlined in one page never share an id


def test_any_text_draws_without_a_missing_glyph() -> None:
    assert ascii_text("示例银行 PE\n  $5") == "???? PE \\$5"
    chinese = ChartPanel(y_label="价格", series=[ChartSeries(name="收盘价", values=[1.0] * 10)])
    chart = spec(title="示例银行 600001.SH", x=[f"{d} 日" for d in DAYS], panels=[chinese])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
        assert render_png(chart)[:4] == b"\x89PNG"
        assert "<svg" in render_svg(chart)


def test_stacked_bars_share_a_slot_and_a_secondary_axis_is_drawn() -> None:
    chart = ChartSpec(
        id="stack",
        title="stack",
        caption="c",
        x=["a", "b", "c"],
        x_kind="category",
        panels=[
            ChartPanel(
                y_label="left",
                y2_label="right",
                series=[
                    ChartSeries(name="up", kind="bar", stack="s", values=[0.5, None, None]),
                    ChartSeries(name="down", kind="bar", stack="s", values=[None, -0.4, None]),
                    ChartSeries(name="dot", kind="scatter", values=[None, None, 0.0]),
                    ChartSeries(name="ratio", secondary=True, values=[1.0, 2.0, 3.0]),
                ],
                y_min=-1,
                y_max=1,
            )
        ],
    )
    root = ET.fromstring(render_svg(chart))
    ids = {g.get("id") for g in root.iter(f"{SVG}g")}
    assert {"stack-panel0-series2", "stack-panel0-series3", "axes_1", "axes_2"} <= ids  # twin axis


def test_building_specs_does_not_load_matplotlib() -> None:
    code = "import sys, stockdesk.shared.charts; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
