"""The Paper books pages in a real chromium against a real server process: the list links to the
book, whose page shows the figures, positions and trades (a buy refused at limit-up, with its reason)
and draws the equity curve with ECharts; the Chinese page says the same in Chinese."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from stockdesk.paper.infrastructure.persistence.store import SqlPaperStore
from stockdesk.shared.db import Database
from tests.browser.conftest import WebServer
from tests.browser.served_web import SYMBOL
from tests.paper.support import BOOK, seed_book

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect


@pytest.fixture(scope="module")
def with_book(web_server: WebServer) -> WebServer:
    database = Database(f"sqlite:///{web_server.home / 'stockdesk.db'}")
    seed_book(SqlPaperStore(database), SYMBOL)
    database.dispose()
    return web_server


def test_the_book_page_shows_figures_positions_trades_and_draws_the_equity_curve(
    with_book: WebServer, page: Page, phone_page: Page, shots: Callable[[Page, str], Path]
) -> None:
    page.goto(f"{with_book.url}/")
    page.get_by_role("link", name="Paper books").click()
    expect(page).to_have_url(f"{with_book.url}/paper")
    page.get_by_role("link", name=BOOK).click()
    expect(page).to_have_url(f"{with_book.url}/paper/{BOOK}")
    expect(page.locator("#paper-figures")).to_contain_text("1,001,940.00")
    expect(page.locator("#paper-positions tbody tr")).to_have_count(1)
    expect(page.locator("#paper-trades tbody tr")).to_have_count(2)
    expect(page.locator("#paper-trades tr.not-filled")).to_contain_text("limit-up at the open")
    expect(page.locator("#paper-chart .chart canvas").first).to_be_attached()
    shots(page, "paper-desktop")
    phone_page.goto(f"{with_book.url}/paper/{BOOK}")
    expect(phone_page.locator("#paper-figures")).to_be_visible()
    shots(phone_page, "paper-phone")


@pytest.mark.parametrize("page", ["zh-CN"], indirect=True)
def test_the_book_page_in_chinese(with_book: WebServer, page: Page) -> None:
    page.goto(f"{with_book.url}/paper/{BOOK}")
    expect(page.locator("h1")).to_contain_text("模拟账户")
    expect(page.locator("#paper-trades tr.not-filled")).to_contain_text("开盘涨停")
