"""The Track record page in a real chromium against a real server process.

The server's own ledger gets two live BUY entries (each made the evening of its as_of, with a
stated probability) written by the ledger's code into the server's SQLite file; the page then shows
the live headline and the table, and draws the reliability diagram and the equity curve with ECharts.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from stockdesk.ledger.application import LedgerService, VerdictRecord
from stockdesk.ledger.infrastructure.persistence.ledger_store import SqlLedgerStore
from stockdesk.shared.db import Database
from tests.browser.conftest import WebServer
from tests.browser.served_web import SYMBOL

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

LIVE_DAY = date(2024, 3, 1)


@pytest.fixture(scope="module")
def with_entries(web_server: WebServer) -> WebServer:
    database = Database(f"sqlite:///{web_server.home / 'stockdesk.db'}")
    for i, day in enumerate((date(2024, 2, 1), LIVE_DAY)):
        made = datetime.combine(day, time(20), tzinfo=UTC)  # live: made the evening of its as_of
        record = VerdictRecord(
            entry_id=f"browser-live-{i}", symbol=SYMBOL, as_of=day, mode="rules", model="rules",
            action="BUY", confidence=0.6, position_percent=0.1, probability_up=0.6,
            verdict={"action": "BUY"}, inputs_hash="0" * 64,
            experts={"technical_analyst": {"stance": "bullish", "confidence": 0.5}},
        )  # fmt: skip
        LedgerService(SqlLedgerStore(database), clock=lambda made=made: made).append(record)
    database.dispose()
    return web_server


def test_the_track_record_page_shows_the_headline_tables_and_draws_its_charts(
    with_entries: WebServer, page: Page, phone_page: Page, shots: Callable[[Page, str], Path]
) -> None:
    page.goto(f"{with_entries.url}/")
    page.get_by_role("link", name="Track record").click()
    expect(page).to_have_url(f"{with_entries.url}/track")
    expect(page.locator("#track-headline")).to_contain_text("This desk's 2 matured live verdicts at 20 days")
    # the synthetic store's two symbols share one history: no excess return is positive
    headline = page.locator("#track-headline")
    expect(headline).to_contain_text("Brier skill undefined: all 2 calibrated verdicts")
    expect(page.locator("#kind-live table.track-scores tbody tr")).to_have_count(3)  # horizons 5, 20, 60
    charts = page.locator("#track-charts .chart")
    expect(charts).to_have_count(2)
    for i in range(2):
        expect(charts.nth(i).locator("canvas").first).to_be_attached()
    shots(page, "track-desktop")

    page.get_by_label("Horizons (trading days)").fill("5,20")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("#kind-live table.track-scores tbody tr")).to_have_count(2)

    phone_page.goto(f"{with_entries.url}/track")
    expect(phone_page.locator("#track-headline")).to_be_visible()
    shots(phone_page, "track-phone")


@pytest.mark.parametrize("page", ["zh-CN"], indirect=True)
def test_the_track_record_page_in_chinese(with_entries: WebServer, page: Page) -> None:
    page.goto(f"{with_entries.url}/track")
    expect(page.locator("h1")).to_have_text("业绩记录")
    expect(page.locator("#track-headline")).to_contain_text("本研究台 2 个已到期的实时裁决（20 日）")
