"""charts.js's labels in a real chromium, at 1280 and 390 px: no two texts overlap, none leaves the chart,
the levels' and today's labels stand in the right margin within their panel, for a session's charts
(the served store's, a wide-priced one and the crafted worst case, built by the real code) and the
charts page's own specs (a right-hand axis among them); still so after zooming and after the window
narrows. And charts.js's `spread` and `wrap` give what labels.py's give, case for case.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from stockdesk.shared.charts import ChartSpec
from stockdesk.shared.charts.labels import spread, wrap
from tests.browser.chart_text import assert_labels_clear, read, wait_placed
from tests.browser.test_charts_page import all_charts, load
from tests.coordinator.chart_cases import CASES, Case, session_charts

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

CHAR_PX = 7  # the parity test's stand-in for a font: every character 7 px wide


def specs(case: Case | str) -> list[ChartSpec]:
    return all_charts() if case == "page" else session_charts(case)  # type: ignore[arg-type]


@pytest.mark.parametrize("case", [*CASES, "page"])
@pytest.mark.parametrize("viewport", ["page", "phone_page"], ids=["1280px", "390px"])
def test_no_label_overlaps_another_or_leaves_the_chart(
    case: str, viewport: str, request: pytest.FixtureRequest, shots: Callable
) -> None:
    page: Page = request.getfixturevalue(viewport)
    drawn = specs(case)
    load(page, drawn)
    wait_placed(page, len(drawn))
    for spec in drawn:
        assert_labels_clear(page, spec.id)
    shots(page, f"{case}-{viewport}")


def test_labels_are_placed_again_after_a_zoom_and_a_narrower_window(page: Page, shots: Callable) -> None:
    drawn = session_charts("worst")
    load(page, drawn)
    wait_placed(page, len(drawn))
    wide = read(page, "price").grids[0]["w"]
    page.evaluate(
        """() => {
            document.querySelectorAll('[data-spec]').forEach((el) => {
                el.dataset.labels = 'moving';
                echarts.getInstanceByDom(el).dispatchAction({ type: 'dataZoom', start: 85, end: 100 });
            });
        }"""
    )
    wait_placed(page, len(drawn))
    for spec in drawn:
        assert_labels_clear(page, spec.id)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function("() => document.getElementById('price').stockdeskLabels.state.width < 400")
    wait_placed(page, len(drawn))
    for spec in drawn:
        assert_labels_clear(page, spec.id)
    assert read(page, "price").grids[0]["w"] < wide / 2  # really redrawn for the narrow window
    shots(page, "zoomed-then-narrow")


def test_charts_js_spread_and_wrap_are_labels_py(page: Page) -> None:
    load(page, [])
    rng = random.Random(5)
    crowds = []
    for _ in range(200):
        n = rng.randint(1, 7)
        anchors = [round(rng.uniform(-30, 230), 3) for _ in range(n)]
        heights = [rng.choice([14.0, 28.0, 42.0]) for _ in range(n)]
        crowds.append([anchors, heights, 0.0, round(rng.uniform(60, 200), 1), 3.0])
    got = page.evaluate("cases => cases.map((c) => StockdeskCharts.spread(...c))", crowds)
    assert got == [pytest.approx(spread(*c), abs=1e-9) for c in crowds]
    texts = [
        "median 10.51", "2024-06-28: 30.00 (pct 100)", "take-profit 1,332.63", "watch below 18.00",
        "a b c d e f g", "averyveryverylongword here", "reference 20.00 (close of 2024-06-28)",
    ]  # fmt: skip
    cases = [[text, width] for text in texts for width in (40, 70, 90, 120, 400)]
    got = page.evaluate(
        "([cases, px]) => cases.map(([t, w]) => StockdeskCharts.wrap(t, w, (s) => s.length * px))",
        [cases, CHAR_PX],
    )
    assert got == [wrap(text, width, lambda s: len(s) * CHAR_PX) for text, width in cases]
