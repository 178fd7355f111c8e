"""The Portfolio page in a real chromium against a real server process (tests.browser.served_web:
600001.SH and 000002.SZ to 2024-06-28): a watchlist made on the Watchlists page, then the form asks
for its view as of the last day; it opens the view's job and goes to the job's page, which shows the
verdicts' progress (server-sent events, a Cancel button) and then turns into the view: the risk
table, the allocation and value charts (ECharts canvases), every name with the reasons for its
weight, in English and in Chinese; holdings when none are held are refused on the form with the
reason in the page's language, no job opened."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import WebServer, page_refused_at
from tests.browser.served_web import AS_OF, SECOND_SYMBOL, SYMBOL

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect
LIST = "pf"


def make_list(page: Page, url: str) -> None:
    """The list `pf` of both symbols, through the Watchlists form (adding twice changes nothing)."""
    page.goto(f"{url}/watchlists")
    page.locator("input[name=name]").fill(LIST)
    page.locator("input[name=symbols]").fill(f"{SYMBOL}, {SECOND_SYMBOL}")
    page.locator("form[action='/watchlists'] button[type=submit]").click()
    expect(page.locator(f"#list-{LIST} tbody tr")).to_have_count(2)


def ask(page: Page, url: str, capital: str = "") -> None:
    page.goto(f"{url}/portfolio")
    page.locator("#p-source-watchlist").check()
    page.locator("#p-watchlist").select_option(LIST)
    page.locator("#p-as-of").fill(AS_OF.isoformat())
    page.locator("#p-capital").fill(capital)
    page.locator("#p-submit").click()
    expect(page).to_have_url(re.compile(r"/portfolio/jobs/[0-9a-f]+$"))


@pytest.fixture
def refused_page(browser: Browser) -> Iterator[Page]:
    with page_refused_at(browser, "/portfolio") as page:
        yield page


def test_the_view_of_a_watchlist_with_its_charts_and_reasons(
    web_server: WebServer, page: Page, shots: Callable[[Page, str], Path]
) -> None:
    make_list(page, web_server.url)
    ask(page, web_server.url, capital="900000")  # a request of its own: a new job, seen running
    panel = page.locator("#progress-panel")
    expect(panel).to_be_visible()
    expect(panel.locator("button.danger")).to_be_visible()  # Cancel while it runs
    expect(panel).to_contain_text("names have their day verdict")
    expect(page.locator("#portfolio-intro")).to_contain_text(LIST, timeout=60_000)  # then the view
    expect(page.locator("#progress-panel")).to_have_count(0)
    expect(page.get_by_role("link", name="Portfolio", exact=True)).to_have_attribute("aria-current", "page")
    expect(page.locator("#risk-table tbody tr")).to_have_count(2)
    expect(page.locator("#risk-table tr[data-book=current]")).to_contain_text("100.0%")  # all cash now
    names = page.locator("#names-table tbody tr")
    expect(names).to_have_count(2)
    for symbol in (SYMBOL, SECOND_SYMBOL):
        row = page.locator(f"#names-table tr[data-symbol='{symbol}']")
        expect(row.locator("ul.reasons li").first).not_to_be_empty()
        expect(row.locator("td[data-figure=target_weight]")).to_contain_text("%")
    expect(page.locator("#portfolio-value-chart .chart canvas").first).to_be_attached()
    expect(page.locator("#portfolio-notes")).to_contain_text("T+1")
    shots(page, "portfolio-desktop")


@pytest.mark.parametrize("page", ["zh-CN"], indirect=True)
def test_the_view_in_chinese(web_server: WebServer, page: Page) -> None:
    make_list(page, web_server.url)
    ask(page, web_server.url)
    expect(page.locator("h1")).to_have_text(f"自选股列表 {LIST} 截至 {AS_OF.isoformat()} 的组合视图")
    expect(page.locator("#portfolio-risk-heading")).to_have_text("当前组合与目标组合的风险")
    expect(page.locator("#portfolio-intro")).to_contain_text("自选股列表")
    expect(page.locator("#portfolio-notes")).to_contain_text("不读取")
    expect(page.locator("#names-table ul.reasons li").first).not_to_have_text(
        "HOLD on a name not held: no new position"
    )


def test_holdings_when_none_are_held_are_refused_with_the_reason(
    web_server: WebServer, refused_page: Page
) -> None:
    page = refused_page
    page.goto(f"{web_server.url}/portfolio")
    page.locator("#p-source-holdings").check()
    page.locator("#p-as-of").fill(AS_OF.isoformat())
    page.locator("#p-submit").click()
    expect(page.locator("#portfolio-error")).to_have_attribute("data-code", "PORTFOLIO_EMPTY")
    expect(page.locator("#portfolio-error")).to_contain_text("Nothing to allocate")
    expect(page.locator("#risk-table")).to_have_count(0)
    expect(page).to_have_url(f"{web_server.url}/portfolio")
