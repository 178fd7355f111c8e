"""Batch analysis and the strategy lab's backtest form in a real chromium against real server processes.

A batch of the two sample symbols is started from /batches and followed live (SSE) until its page
shows the ranked verdicts, each linking to its session; the backtest form, with its family's fields
switched by app.js, is submitted and shows its metrics and its NAV chart (an ECharts canvas). Both
pages are checked at 390 px: nothing wider than the screen but the tables' own scroll boxes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import WebServer
from tests.browser.served_web import AS_OF, SECOND_SYMBOL, SYMBOL
from tests.browser.test_strategy_browser import serve

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

LONG = 120_000  # ms: the longest a step may take (two analyses with the scripted LLM)
FITS = "document.documentElement.scrollWidth <= 390"


@pytest.fixture(scope="module")
def batch_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """tests.browser.served_batches: two sample symbols, batches on threads with the scripted LLM."""
    yield from serve("tests.browser.served_batches:create", tmp_path_factory.mktemp("batch-home"))


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """tests.browser.served_strategy: six A-shares with known trends (a backtest calls no model)."""
    yield from serve("tests.browser.served_strategy:create", tmp_path_factory.mktemp("lab-home"))


def test_a_batch_of_two_symbols_is_followed_live_to_its_ranked_index(
    batch_server: WebServer, page: Page, phone_page: Page, shots: Callable[[Page, str], Path]
) -> None:
    url = batch_server.url
    page.goto(f"{url}/batches")
    expect(page.get_by_role("link", name="Batches", exact=True)).to_have_attribute("aria-current", "page")
    page.get_by_label("Symbols").fill(f"{SYMBOL}, {SECOND_SYMBOL}")
    page.get_by_label("As of").fill(AS_OF.isoformat())
    shots(page, "01-form")
    page.get_by_role("button", name="Start the batch").click()
    expect(page).to_have_url(re.compile(rf"{url}/batches/[0-9a-f]+$"))

    # no navigation by the test from here: SSE follows the batch, its `done` brings the final page
    expect(page.locator("#batch-index")).to_be_visible(timeout=LONG)
    expect(page.locator("#batch-panel")).to_have_attribute("data-state", "done")
    rows = page.locator("#batch-index tbody tr")
    expect(rows).to_have_count(2)
    assert sorted(rows.nth(i).get_attribute("data-symbol") or "" for i in range(2)) == sorted(
        [SYMBOL, SECOND_SYMBOL]
    )
    for i in range(2):
        expect(rows.nth(i)).to_have_attribute("data-action", re.compile("^(BUY|HOLD|SELL)$"))
        expect(rows.nth(i).locator('a[href^="/sessions/"]').first).to_be_visible()
    shots(page, "02-ranked-index")

    phone_page.goto(page.url)
    expect(phone_page.locator("#batch-index")).to_be_visible()
    assert phone_page.evaluate(FITS), "the batch page is wider than a 390 px screen"
    shots(phone_page, "03-ranked-index-phone")

    first = rows.first.get_attribute("data-symbol") or ""
    rows.first.get_by_role("link", name=first).click()
    expect(page).to_have_url(re.compile(rf"{url}/sessions/[0-9a-f-]+$"))
    expect(page.locator("h1")).to_contain_text(first)

    page.goto(f"{url}/batches")
    expect(page.locator("#batch-list tbody tr")).to_have_count(1)
    phone_page.goto(f"{url}/batches")
    assert phone_page.evaluate(FITS), "the batch form is wider than a 390 px screen"
    shots(phone_page, "04-form-phone")


def test_the_backtest_form_switches_family_fields_and_shows_metrics_and_the_nav_chart(
    lab_server: WebServer, page: Page, phone_page: Page, shots: Callable[[Page, str], Path]
) -> None:
    url = lab_server.url
    page.goto(f"{url}/strategy")
    momentum, reversion = (
        page.locator(f'fieldset[data-family="{f}"]') for f in ("momentum", "mean_reversion")
    )
    expect(momentum).to_be_visible()
    expect(reversion).to_be_hidden()
    page.get_by_label("Strategy family").select_option("mean_reversion")  # app.js shows its fields
    expect(reversion).to_be_visible()
    expect(momentum).to_be_hidden()
    page.get_by_label("Strategy family").select_option("momentum")
    page.get_by_label("Momentum lookback").select_option("20")
    page.get_by_label("Trend moving average").select_option("60")
    page.locator("#bt-start").fill("2023-07-03")
    shots(page, "01-backtest-form")
    page.get_by_role("button", name="Run the backtest").click()

    expect(page).to_have_url(f"{url}/strategy/backtest")
    metrics = page.locator("#backtest-metrics")
    expect(metrics.get_by_role("rowheader", name="Sharpe", exact=True)).to_be_visible(timeout=LONG)
    expect(metrics.locator('tr[data-metric="annual_return"] td').first).to_have_text(
        re.compile(r"^-?\d+\.\d%$")
    )
    equity = page.locator('.chart[data-chart-id="strategy-equity"]')
    expect(equity).to_have_attribute("data-rendered", "1")
    assert int(equity.get_attribute("data-points") or 0) > 100  # strategy and universe over months of days
    expect(equity.locator("canvas").first).to_be_visible()
    expect(page.get_by_label("Momentum lookback")).to_have_value("20")  # the form, as sent, to try again
    shots(page, "02-backtest-result")

    phone_page.goto(f"{url}/strategy")
    phone_page.get_by_label("Momentum lookback").select_option("20")
    phone_page.get_by_label("Trend moving average").select_option("60")
    phone_page.get_by_role("button", name="Run the backtest").click()
    expect(phone_page.locator('.chart[data-chart-id="strategy-equity"]')).to_have_attribute(
        "data-rendered", "1", timeout=LONG
    )
    assert phone_page.evaluate(FITS), "the backtest page is wider than a 390 px screen"
    shots(phone_page, "03-backtest-result-phone")
