"""Session pages in a real chromium against a real server process (tests.browser.served_web).

Done-when of issue 18: "open a session and find the trade plan's numbers and a rendered chart", and
"compare two sessions". The sessions are made the way a reader makes them: with the form on `/`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.chart_text import assert_labels_clear, wait_placed
from tests.browser.conftest import WebServer

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

ALL_EXPERTS = (
    "Valuation modeler",
    "Technical analyst",
    "Financial auditor",
    "Macro intelligence",
    "Catalyst detective",
)


def analyze(page: Page, base: str, experts: tuple[str, ...]) -> str:
    """Run an analysis of 600001.SH with `experts` through the form; its session id once it ended."""
    page.goto(f"{base}/")
    page.get_by_label("Symbol").fill("600001.SH")
    page.get_by_label("As of").fill("2024-06-28")
    for name in ALL_EXPERTS:
        page.get_by_label(name).set_checked(name in experts)
    page.get_by_role("button", name="Start the analysis").click()
    expect(page).to_have_url(re.compile(r"/sessions/[0-9a-f]{32}$"), timeout=60_000)
    return page.url.rsplit("/", 1)[1]


CELLS = """() => [...document.querySelectorAll('#nodes-heading + dl.pairs dd')].map((dd) => {
    const range = document.createRange();
    range.selectNodeContents(dd);
    const text = range.getBoundingClientRect();
    const cell = dd.getBoundingClientRect();
    const value = dd.textContent.trim();
    return { value, text: [text.left, text.right], cell: [cell.left, cell.right, cell.top] };
})"""


def assert_readable_session_page(page: Page) -> None:
    """Issue 32: every chart's labels clear of each other and inside the chart, and in "Steps and
    timings" each value (the 32-character session id above all) within its own cell."""
    charts = page.locator(".chart[data-spec]")
    wait_placed(page, charts.count())
    for index in range(charts.count()):
        assert_labels_clear(page, charts.nth(index).get_attribute("data-chart-id") or "")
    cells = page.evaluate(CELLS)
    assert len(cells[0]["value"]) == 32  # the session id
    for cell in cells:
        (left, right), (cell_left, cell_right, _) = cell["text"], cell["cell"]
        assert cell_left - 0.5 <= left and right <= cell_right + 0.5, (
            f"{cell['value']!r} runs out of its cell"
        )
    rows: dict[float, list[list[float]]] = {}
    for cell in cells:
        rows.setdefault(round(cell["cell"][2]), []).append(cell["cell"][:2])
    for row in rows.values():  # cells side by side never overlap
        row.sort()
        assert all(a[1] <= b[0] + 0.5 for a, b in pairwise(row))


def test_open_a_session_and_find_the_trade_plans_numbers_and_a_rendered_chart(
    web_server: WebServer, page: Page, phone_page: Page, shots: Callable
) -> None:
    """Done-when: "open a session and find the trade plan's numbers and a rendered chart (canvas/svg
    present with data points)"."""
    session_id = analyze(page, web_server.url, ("Technical analyst", "Financial auditor"))
    page.goto(f"{web_server.url}/sessions")
    page.get_by_role("link", name="600001.SH").first.click()
    expect(page).to_have_url(f"{web_server.url}/sessions/{session_id}")

    plan = page.locator("#trade-plan")
    expect(plan).to_contain_text("20.00 CNY (close of 2024-06-28)")
    expect(plan.get_by_role("row", name=re.compile("Watch below"))).to_contain_text("18.00 CNY (-10.00%)")
    expect(plan.get_by_role("row", name=re.compile("Watch above"))).to_contain_text("22.00 CNY (+10.00%)")
    charts = page.locator(".chart[data-spec]")
    expect(charts.first).to_have_attribute("data-rendered", "1")
    assert charts.count() >= 3
    for index in range(charts.count()):
        chart = charts.nth(index)
        chart.scroll_into_view_if_needed()
        expect(chart).to_have_attribute("data-rendered", "1")
        assert int(chart.get_attribute("data-points") or 0) > 0
        expect(chart.locator("canvas").first).to_be_attached()
    expect(page.get_by_role("link", name="Markdown")).to_have_attribute(
        "href", f"/sessions/{session_id}/report.md?lang=en"
    )
    assert_readable_session_page(page)
    shots(page, "session-desktop")

    phone_page.goto(f"{web_server.url}/sessions/{session_id}")
    expect(phone_page.locator(".chart[data-spec]").first).to_have_attribute("data-rendered", "1")
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
    assert_readable_session_page(phone_page)
    shots(phone_page, "session-phone")

    # the report read in the browser: framed in the UI, its charts drawn, its downloads beside it
    page.get_by_role("link", name="Read the report").click()
    expect(page).to_have_url(f"{web_server.url}/sessions/{session_id}/report")
    report = page.frame_locator("#report-frame")
    expect(report.locator("svg").first).to_be_visible()
    expect(report.locator("body")).to_contain_text("600001.SH")
    expect(page.get_by_role("link", name="HTML")).to_have_attribute(
        "href", f"/sessions/{session_id}/report.html?lang=en"
    )
    shots(page, "session-report")
    for name, suffix, magic in (("PDF", "pdf", b"%PDF"), ("Word", "docx", b"PK")):  # saved, not shown
        with page.expect_download() as saved:
            page.get_by_role("link", name=name, exact=True).click()
        download = saved.value
        assert download.suggested_filename.startswith("600001.SH-") and download.suggested_filename.endswith(
            f".{suffix}"
        )
        assert Path(download.path()).read_bytes().startswith(magic)


def test_compare_two_sessions(web_server: WebServer, page: Page, phone_page: Page, shots: Callable) -> None:
    """Done-when: "compare two sessions" — two analyses of one symbol, ticked in the list, side by side
    with what changed highlighted."""
    earlier = analyze(page, web_server.url, ("Technical analyst",))
    later = analyze(page, web_server.url, ("Technical analyst", "Valuation modeler"))
    page.goto(f"{web_server.url}/sessions")
    shots(page, "sessions-list")
    page.locator(f'input[name="pick"][value="{earlier}"]').check()
    page.locator(f'input[name="pick"][value="{later}"]').check()
    page.get_by_role("button", name="Compare the two ticked sessions").click()
    expect(page).to_have_url(re.compile(r"/sessions/compare\?"))
    expect(page.get_by_role("heading", name="600001.SH: two sessions compared")).to_be_visible()

    valuation = page.locator('table[data-expert="valuation_modeler"]')
    status = valuation.locator('tr[data-row="status"] td')
    expect(status).to_have_count(2)
    expect(status.nth(0)).to_have_text("missing")
    expect(status.nth(0)).to_have_class("changed")
    technical = page.locator('table[data-expert="technical_analyst"]')
    expect(technical.locator("td.changed")).to_have_count(0)  # the same answer both times
    assert page.locator("td.changed").count() > 0
    shots(page, "compare-desktop")

    phone_page.goto(page.url)
    expect(phone_page.locator("td.changed").first).to_be_attached()
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
    shots(phone_page, "compare-phone")
