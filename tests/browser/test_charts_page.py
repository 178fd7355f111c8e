"""charts.js in a real chromium: real ChartSpecs built in Python, drawn by the vendored ECharts.

A throwaway page (page.set_content) carries the specs in data-spec attributes, the vendored
echarts.min.js and charts.js are injected as script tags, and the tests read the drawn chart back
from ECharts itself (getInstanceByDom(el).getOption()), hover it, and screenshot it.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest

from stockdesk.entrypoints.web.assets import VENDOR_DIR
from stockdesk.shared.charts.render import LEVELS
from stockdesk.shared.charts.spec import (
    Band,
    ChartPanel,
    ChartSeries,
    ChartSpec,
    Point,
    ReferenceLine,
    Region,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

CHARTS_JS = Path(__file__).resolve().parents[2] / "src/stockdesk/entrypoints/web/static/charts.js"
DATES = [d.date().isoformat() for d in pd.bdate_range(end="2024-06-28", periods=60)]
CLOSES = [round(20 + 3 * ((i % 17) / 17) + i * 0.05, 2) for i in range(60)]
MA = [None] * 19 + [round(sum(CLOSES[i - 19 : i + 1]) / 20, 3) for i in range(19, 60)]
ECHARTS_DASH = {"--": "dashed", ":": "dotted", "-": "solid"}


def price_chart() -> ChartSpec:
    """A trade plan over prices, with a volume panel whose turnover uses the right-hand axis."""
    return ChartSpec(
        id="price",
        title="600001.SH price and trade plan",
        caption="Close with its 20-day average; the dashed levels are the plan's entry, stop and target.",
        x=DATES,
        panels=[
            ChartPanel(
                y_label="Price (CNY)",
                height=2.0,
                series=[ChartSeries(name="Close", values=CLOSES), ChartSeries(name="MA20", values=MA)],
                lines=[
                    ReferenceLine(label="Entry", value=21.5, style="entry"),
                    ReferenceLine(label="Stop", value=18.2, style="stop"),
                    ReferenceLine(label="Target", value=27.0, style="target"),
                ],
            ),
            ChartPanel(
                y_label="Volume",
                y2_label="Turnover %",
                series=[
                    ChartSeries(name="Volume", kind="bar", values=[1e6 + 5e4 * (i % 9) for i in range(60)]),
                    ChartSeries(
                        name="Turnover %", secondary=True, values=[0.5 + (i % 5) / 10 for i in range(60)]
                    ),
                ],
            ),
        ],
    )


def quarters_chart() -> ChartSpec:
    """Categories (quarters), stacked bars with one missing quarter, a margin line on the right axis."""
    quarters = ["2022Q3", "2022Q4", "2023Q1", "2023Q2", "2023Q3", "2023Q4", "2024Q1", "2024Q2"]
    return ChartSpec(
        id="quarters",
        title="示例银行 quarterly profit",
        caption="Core and one-off profit per quarter (2024Q2 not reported yet); margin on the right.",
        x=quarters,
        x_kind="category",
        panels=[
            ChartPanel(
                y_label="Profit (m CNY)",
                y2_label="Margin %",
                series=[
                    ChartSeries(
                        name="Core", kind="bar", stack="p", values=[500, 800, 300, 600, 900, 1200, 390, None]
                    ),
                    ChartSeries(
                        name="One-off", kind="bar", stack="p", values=[20, -40, 10, 0, 35, -60, 15, None]
                    ),
                    ChartSeries(
                        name="Gross margin",
                        secondary=True,
                        color="#e377c2",
                        values=[30.5, 31.0, 31.5, 32.0, 32.5, 33.0, 33.7, None],
                    ),
                ],
                lines=[ReferenceLine(label="zero", value=0, style="zero")],
            )
        ],
    )


def band_chart() -> ChartSpec:
    """A PE history inside its 10th-90th percentile band, the median, and today's value highlighted."""
    pe = [12 + (i % 11) * 0.8 for i in range(60)]
    return ChartSpec(
        id="pe-band",
        title="PE(TTM) against its own history",
        caption="Today's PE sits in the upper part of its usual range.",
        x=DATES,
        panels=[
            ChartPanel(
                y_label="PE",
                series=[ChartSeries(name="PE(TTM)", values=pe)],
                bands=[Band(label="10th-90th pct", lower=[11.0] * 60, upper=[19.5] * 60)],
                lines=[ReferenceLine(label="Median", value=15.6, style="median")],
                points=[Point(label="Today 19.2", x=DATES[-1], y=19.2)],
            )
        ],
    )


def gaps_chart() -> ChartSpec:
    """Gaps (None) in a line, an area and a scatter: they are left out, never drawn as zero."""
    line = [None if 10 <= i < 20 or i in (0, 45) else 5 + (i % 7) for i in range(60)]
    area = [None if i % 6 == 0 else 1 + (i % 4) for i in range(60)]
    dots = [float(i % 9) if i % 3 == 0 else None for i in range(60)]
    return ChartSpec(
        id="gaps",
        title="Data with holes",
        caption="Suspended days and missing reports are gaps.",
        x=DATES,
        panels=[
            ChartPanel(
                y_label="Value",
                series=[
                    ChartSeries(name="Line", values=line),
                    ChartSeries(name="Area", kind="area", values=area),
                    ChartSeries(name="Dots", kind="scatter", values=dots),
                ],
                y_min=0,
                y_max=15,
            )
        ],
    )


def all_charts() -> list[ChartSpec]:
    return [price_chart(), quarters_chart(), band_chart(), gaps_chart()]


def non_null(spec: ChartSpec) -> int:
    return sum(v is not None for panel in spec.panels for s in panel.series for v in s.values)


def chart_div(spec: ChartSpec) -> str:
    payload = html.escape(json.dumps(spec.model_dump(mode="json"), ensure_ascii=False), quote=True)
    return f'<section><div class="chart" id="{spec.id}" data-spec="{payload}"></div></section>'


def page_html(specs: list[ChartSpec], lang: str = "en") -> str:
    charts = "\n".join(chart_div(spec) for spec in specs)
    return f"""<!doctype html><html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:sans-serif;margin:12px}} .chart{{width:100%}} .chart-caption{{color:#555}}</style>
</head><body><h1>charts.js</h1>{charts}</body></html>"""


def load(page: Page, specs: list[ChartSpec], lang: str = "en") -> None:
    """The throwaway page, then ECharts and charts.js (which draws at once: the DOM is already loaded)."""
    page.set_content(page_html(specs, lang))
    page.add_script_tag(path=str(VENDOR_DIR / "echarts.min.js"))
    page.add_script_tag(path=str(CHARTS_JS))
    page.wait_for_function(
        "n => document.querySelectorAll('[data-spec][data-rendered=\"1\"]').length === n", arg=len(specs)
    )


def option(page: Page, chart_id: str) -> dict[str, Any]:
    """What ECharts holds for the chart, as JSON (functions dropped)."""
    return page.evaluate(
        """id => JSON.parse(JSON.stringify(
            echarts.getInstanceByDom(document.getElementById(id)).getOption()))""",
        chart_id,
    )


def series_by_id(opt: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in opt["series"]}


def test_every_chart_is_drawn_on_a_canvas_with_all_its_values(page: Page, shots: Callable) -> None:
    specs = all_charts()
    load(page, specs)
    for spec in specs:
        el = page.locator(f"#{spec.id}")
        expect(el.locator("canvas")).not_to_have_count(0)
        assert el.get_attribute("data-points") == str(non_null(spec))
        assert el.get_attribute("role") == "img"
        assert el.get_attribute("aria-label") == f"{spec.title}. {spec.caption}"
        expect(page.locator(f"#{spec.id} + p.chart-caption")).to_have_text(spec.caption)
        opt = option(page, spec.id)
        assert opt["title"][0]["text"] == spec.title
        assert len(opt["grid"]) == len(spec.panels)
        names = [s.name for panel in spec.panels for s in panel.series]
        assert [n for n in opt["legend"][0]["data"] if n in names] == names
        el.scroll_into_view_if_needed()
    shots(page, "all-charts")


def test_price_chart_stacks_panels_with_plan_levels_and_a_linked_zoom(page: Page, shots: Callable) -> None:
    spec = price_chart()
    load(page, [spec])
    opt = option(page, "price")
    top, bottom = opt["grid"]
    assert top["height"] == 2 * bottom["height"]  # relative panel heights
    assert top["top"] + top["height"] < bottom["top"]  # stacked top to bottom
    assert [a["gridIndex"] for a in opt["xAxis"]] == [0, 1]
    assert all(a["data"] == DATES for a in opt["xAxis"])
    assert [a["axisLabel"]["show"] for a in opt["xAxis"]] == [False, True]  # shared x: dates once
    assert [(a["gridIndex"], a.get("position")) for a in opt["yAxis"]] == [(0, None), (1, None), (1, "right")]
    assert opt["yAxis"][2]["name"] == "Turnover %"
    series = series_by_id(opt)
    assert series["s1-1"]["yAxisIndex"] == 2 and series["s1-0"]["type"] == "bar"
    assert series["s0-1"]["data"][:19] == [None] * 19  # the average's warm-up is a gap
    levels = series["__marks0"]["markLine"]["data"]
    assert [(d["name"], d["yAxis"]) for d in levels] == [("Entry", 21.5), ("Stop", 18.2), ("Target", 27.0)]
    for line, style in zip(levels, ("entry", "stop", "target"), strict=True):
        color, dash = LEVELS[style]
        assert line["lineStyle"]["color"] == color and line["lineStyle"]["type"] == ECHARTS_DASH[dash]
    zooms = {z["type"]: z for z in opt["dataZoom"]}
    assert set(zooms) == {"inside", "slider"}
    assert all(z["xAxisIndex"] == [0, 1] for z in zooms.values())
    assert opt["axisPointer"][0]["link"] == [{"xAxisIndex": "all"}]
    shots(page, "price")


def test_hovering_the_price_chart_shows_the_values_of_that_day(page: Page, shots: Callable) -> None:
    spec = price_chart()
    load(page, [spec])
    day = 40
    x, y = page.evaluate(
        """([day, value]) => {
            const el = document.getElementById('price');
            const [px, py] = echarts.getInstanceByDom(el).convertToPixel({gridIndex: 0}, [day, value]);
            const box = el.getBoundingClientRect();
            return [box.left + px, box.top + py];
        }""",
        [day, CLOSES[day]],
    )
    page.mouse.move(x, y)
    tooltip = page.locator("#price .chart-tooltip")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text(DATES[day])
    expect(tooltip).to_contain_text(f"Close: {CLOSES[day]:,.2f}".rstrip("0").rstrip("."))
    expect(tooltip).to_contain_text("MA20")
    shots(page, "hover")


def test_category_chart_stacks_bars_and_has_no_zoom(page: Page, shots: Callable) -> None:
    spec = quarters_chart()
    load(page, [spec])
    opt = option(page, "quarters")
    series = series_by_id(opt)
    assert series["s0-0"]["stack"] == series["s0-1"]["stack"]
    assert series["s0-2"]["yAxisIndex"] == 1 and series["s0-2"]["itemStyle"]["color"] == "#e377c2"
    assert series["s0-0"]["data"][-1] is None
    assert opt["xAxis"][0]["data"] == spec.x and opt["xAxis"][0]["boundaryGap"] is True
    assert "dataZoom" not in opt or opt["dataZoom"] == []
    zero = series["__marks0"]["markLine"]["data"][0]
    assert zero["yAxis"] == 0 and zero["lineStyle"]["color"] == LEVELS["zero"][0]
    shots(page, "quarters")


def test_band_is_a_shaded_range_and_the_point_is_marked(page: Page, shots: Callable) -> None:
    spec = band_chart()
    load(page, [spec])
    opt = option(page, "pe-band")
    series = series_by_id(opt)
    lower, upper = series["__band0-0-lower"], series["__band0-0"]
    assert lower["stack"] == upper["stack"]
    assert "areaStyle" not in lower or lower["areaStyle"] is None
    assert upper["areaStyle"]["opacity"] == pytest.approx(0.18)
    assert lower["data"] == [11.0] * 60 and upper["data"] == [pytest.approx(8.5)] * 60
    assert upper["name"] == "10th-90th pct"
    marks = series["__marks0"]
    assert marks["markPoint"]["data"][0]["coord"] == [59, 19.2]
    assert marks["markPoint"]["data"][0]["name"] == "Today 19.2"
    assert marks["markLine"]["data"][0]["lineStyle"]["type"] == "dotted"  # median
    shots(page, "band")


def test_gaps_stay_gaps(page: Page, shots: Callable) -> None:
    spec = gaps_chart()
    load(page, [spec])
    opt = option(page, "gaps")
    series = series_by_id(opt)
    line, area, dots = series["s0-0"], series["s0-1"], series["s0-2"]
    assert line["data"][10:20] == [None] * 10 and line["connectNulls"] is False
    assert area["areaStyle"] and area["data"][0] is None
    assert dots["type"] == "scatter" and dots["data"][1] is None
    assert (opt["yAxis"][0]["min"], opt["yAxis"][0]["max"]) == (0, 15)
    assert page.locator("#gaps").get_attribute("data-points") == str(non_null(spec))
    shots(page, "gaps")


def test_charts_fit_a_phone_and_follow_the_window_width(phone_page: Page, shots: Callable) -> None:
    load(phone_page, all_charts())
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
    width = phone_page.evaluate("document.querySelector('#price canvas').getBoundingClientRect().width")
    assert 300 <= width <= 390
    shots(phone_page, "phone")
    phone_page.set_viewport_size({"width": 700, "height": 844})
    phone_page.wait_for_function(
        "w => document.querySelector('#price canvas').getBoundingClientRect().width > w", arg=width + 100
    )


def test_motion_is_off_only_when_the_reader_asks_for_less(page: Page, open_page: Callable) -> None:
    load(page, [band_chart()])
    assert option(page, "pe-band")["animation"] is False  # the page fixture prefers reduced motion
    moving = open_page(reduced_motion="no-preference")
    load(moving, [band_chart()])
    assert option(moving, "pe-band")["animation"] is True


def test_chinese_text_is_drawn_in_a_zh_page(page: Page, shots: Callable) -> None:
    spec = quarters_chart()
    load(page, [spec], lang="zh-CN")
    assert option(page, "quarters")["title"][0]["text"].startswith("示例银行")
    shots(page, "zh")


SITE = "http://charts.test"


def test_charts_in_a_fragment_swapped_in_by_htmx_are_drawn(page: Page, shots: Callable) -> None:
    """A real htmx swap (requests answered by page.route): the new chart renders after settling."""
    files = {
        "/": page_html([]).replace(
            "<h1>charts.js</h1>",
            '<h1>charts.js</h1><button hx-get="/fragment" hx-target="#slot">load</button>'
            '<div id="slot"></div>'
            '<script src="/echarts.min.js"></script><script src="/htmx.min.js"></script>'
            '<script src="/charts.js"></script>',
        ),
        "/fragment": chart_div(band_chart()),
        "/echarts.min.js": (VENDOR_DIR / "echarts.min.js").read_text(encoding="utf-8"),
        "/htmx.min.js": (VENDOR_DIR / "htmx.min.js").read_text(encoding="utf-8"),
        "/charts.js": CHARTS_JS.read_text(encoding="utf-8"),
    }

    def answer(route: Route) -> None:
        path = route.request.url.removeprefix(SITE)
        if path not in files:
            route.fulfill(status=404, body="")
            return
        kind = "text/javascript" if path.endswith(".js") else "text/html"
        route.fulfill(status=200, body=files[path], content_type=f"{kind}; charset=utf-8")

    page.route(f"{SITE}/**", answer)
    page.goto(f"{SITE}/")
    assert page.locator("[data-spec]").count() == 0
    page.get_by_role("button", name="load").click()
    chart = page.locator("#slot #pe-band")
    expect(chart).to_have_attribute("data-rendered", "1")
    expect(chart.locator("canvas")).not_to_have_count(0)
    assert chart.get_attribute("data-points") == str(non_null(band_chart()))
    shots(page, "htmx")


def test_the_served_app_answers_the_browser_for_both_stored_symbols(web_server: Any, page: Page) -> None:
    """The harness itself: a real uvicorn process over its own SQLite file, reached by chromium."""
    assert list(web_server.home.glob("**/*.db"))  # a real SQLite file in the server's own home
    for symbol, name in (("600001.SH", "示例银行"), ("000002.SZ", "示例地产")):
        response = page.goto(f"{web_server.url}/api/v1/stocks/{symbol}")
        assert response is not None and response.status == 200
        stock = response.json()
        assert stock["security"]["name"] == name
        assert stock["bars"]["last"] == "2024-06-28"


def test_regions_shade_their_spans_in_every_panel_and_a_thin_line_stays_thin(
    page: Page, shots: Callable
) -> None:
    """A backtest's in-sample / validation / holdout periods: markArea spans on the category x values."""
    periods = [
        Region(label="in-sample", start=DATES[0], end=DATES[35], color="#5c6bc0"),
        Region(label="holdout", start=DATES[50], end=DATES[59]),
    ]
    spec = ChartSpec(
        id="periods",
        title="Equity with split periods",
        caption="Shaded: in-sample and holdout.",
        x=DATES,
        panels=[
            ChartPanel(
                series=[
                    ChartSeries(name="NAV", values=CLOSES),
                    ChartSeries(name="gross", values=MA, width=0.7),
                ],
                regions=periods,
            ),
            ChartPanel(
                series=[ChartSeries(name="DD", kind="area", values=[-1.0] * 60)],
                regions=[Region(start=DATES[0], end=DATES[35])],
            ),
        ],
    )
    load(page, [spec])
    series = series_by_id(option(page, "periods"))
    top = series["__marks0"]["markArea"]["data"]
    assert [(a["name"], a["xAxis"], b["xAxis"]) for a, b in top] == [
        ("in-sample", DATES[0], DATES[35]),
        ("holdout", DATES[50], DATES[59]),
    ]
    style = top[0][0]["itemStyle"]
    assert style["color"] == "#5c6bc0" and style["opacity"] == pytest.approx(0.1)
    assert top[1][0]["itemStyle"]["color"] == "#ff7f0e"  # no colour given: the palette's second
    assert top[0][0]["label"]["show"] is True
    bottom = series["__marks1"]["markArea"]["data"]
    assert len(bottom) == 1 and bottom[0][0]["label"]["show"] is False  # unlabelled: shaded only
    assert (
        series["s0-1"]["lineStyle"]["width"] == pytest.approx(0.7)
        and series["s0-0"]["lineStyle"]["width"] == 1.3
    )
    shots(page, "regions")
