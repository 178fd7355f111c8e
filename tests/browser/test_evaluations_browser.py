"""The evaluation dashboard in a real chromium against a real server process.

The server answers every LLM call after a delay (STOCKDESK_TEST_LLM_LATENCY), so an evaluation in
experts mode takes seconds per point. The executor runs one evaluation at a time: while such a
slow evaluation runs, a rules-mode evaluation waits in the queue, and its page is followed live
until the test cancels the slow one. Nothing here waits on a clock.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import WebServer
from tests.browser.served_web import SECOND_SYMBOL, SYMBOL
from tests.entrypoints.server_process import free_port, running

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

LLM_LATENCY = "1.0"  # seconds per model answer: an experts-mode point takes at least this
LONG = 60_000  # ms: the longest a step may take (a slow point to cancel, then a whole evaluation)


@pytest.fixture(scope="module")
def slow_llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """tests.browser.served_web in a real uvicorn process, every model answer delayed."""
    home = tmp_path_factory.mktemp("slow-llm-home")
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "tests.browser.served_web:create",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip
    with running(command, home, port, STOCKDESK_TEST_LLM_LATENCY=LLM_LATENCY) as server:
        yield WebServer(url=server.url, home=home, server=server)
        server.stop(timeout=30)


def fill_evaluation(page: Page, *, symbols: str, start: str, end: str, every: str, mode: str) -> None:
    page.get_by_label("Symbols").fill(symbols)
    page.get_by_label("From", exact=True).fill(start)
    page.get_by_label("To", exact=True).fill(end)
    page.get_by_label("Every N trading days").fill(every)
    page.get_by_label("Horizons (trading days)").fill("5,20")
    page.get_by_label("Mode").select_option(mode)
    page.get_by_role("button", name="Start evaluation").click()


def test_start_an_evaluation_in_rules_mode_and_watch_it_progress_and_finish_over_sse(
    slow_llm_server: WebServer,
    open_page: Callable[..., Page],
    phone_page: Page,
    shots: Callable[[Page, str], Path],
) -> None:
    """Done when: "start an evaluation in rules mode" from the form, watch it progress and finish
    (SSE), then see the equity curve drawn (a canvas with data points) and the hit-rate table."""
    url = slow_llm_server.url
    slow, page = open_page(), open_page()

    slow.goto(f"{url}/evaluations")
    fill_evaluation(slow, symbols=SYMBOL, start="2023-07-03", end="2024-06-28", every="1", mode="experts")
    expect(slow.locator("#progress-panel")).to_have_attribute("data-state", "running", timeout=LONG)

    page.goto(f"{url}/evaluations")
    expect(page.get_by_label("Mode")).to_have_value("rules")  # the default mode
    shots(page, "01-start-form")
    fill_evaluation(
        page,
        symbols=f"{SYMBOL}, {SECOND_SYMBOL}",
        start="2023-09-01",
        end="2024-03-29",
        every="5",
        mode="rules",
    )
    expect(page).to_have_url(re.compile(rf"{url}/evaluations/[0-9a-f]{{32}}"))
    live = page.locator("#evaluation-progress[sse-connect]")
    expect(live).to_have_count(1)  # followed live: it waits behind the experts-mode evaluation
    expect(page.locator("#progress-panel")).to_have_attribute("data-state", "queued")
    expect(page.get_by_role("button", name="Cancel")).to_be_visible()
    shots(page, "02-queued-live")

    slow.get_by_role("button", name="Cancel").click()  # frees the executor's evaluation slot
    expect(slow.locator("#resume")).to_be_visible(timeout=LONG)  # stopped early: finished points kept
    shots(slow, "03-cancelled-with-resume")

    # no navigation by the test from here: the SSE stream's `done` brings the finished page
    report = page.locator("#report")
    expect(report).to_be_visible(timeout=LONG)
    expect(page.locator("#progress-panel")).to_have_attribute("data-state", "done")
    equity = page.locator('.chart[data-chart-id="equity"]')
    expect(equity).to_have_attribute("data-rendered", "1")
    assert int(equity.get_attribute("data-points") or 0) > 0
    expect(equity.locator("canvas").first).to_be_visible()
    hit_rates = page.get_by_role("table").filter(has=page.get_by_role("columnheader", name="Hit rate")).first
    expect(hit_rates.get_by_role("row")).to_have_count(1 + 3 * 2)  # header + 3 sets x 2 horizons
    expect(hit_rates.get_by_role("rowheader", name="rules mode").first).to_be_visible()
    expect(hit_rates.get_by_role("columnheader", name="Mean excess (all points)")).to_be_visible()
    by_action = page.locator("#by-action")
    expect(by_action.get_by_role("columnheader", name="Median excess")).to_be_visible()
    assert by_action.locator("tbody tr").count() >= 3  # the actions that occurred, per set and horizon
    expect(page.locator("#portfolio-window")).to_contain_text("trading days after the last")
    shots(page, "04-report")

    verdicts = page.locator("#verdict-list")
    expect(verdicts).to_be_visible()
    rows = verdicts.locator("tbody tr")
    assert rows.count() > 0
    expect(page.get_by_role("heading", name=re.compile(r"Verdicts \(\d+\)"))).to_be_visible()
    verdicts.get_by_role("link", name="Excess").click()  # sorted on the server: a plain link
    expect(page).to_have_url(re.compile(r"sort=excess&dir=asc"))
    expect(page.locator('#verdict-list th[aria-sort="ascending"]')).to_contain_text("Excess")
    page.locator("#verdict-list").get_by_role("link", name=re.compile("Excess")).click()
    expect(page).to_have_url(re.compile(r"sort=excess&dir=desc"))
    expect(page.locator('#verdict-list th[aria-sort="descending"]')).to_be_visible()
    shots(page, "05-verdicts-sorted")

    phone_page.goto(page.url)
    expect(phone_page.locator('.chart[data-chart-id="equity"]')).to_have_attribute("data-rendered", "1")
    expect(phone_page.locator("#verdict-list")).to_be_attached()
    expect(phone_page.locator("#by-action")).to_be_attached()
    fits = "document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1"
    assert phone_page.evaluate(fits)  # wide tables scroll inside their own box, the page does not
    phone_page.locator("#verdict-list").scroll_into_view_if_needed()
    shots(phone_page, "06-report-phone")
