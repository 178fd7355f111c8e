"""Watchlists and holdings in a real chromium against a real server process (tests.browser.served_web:
600001.SH 示例银行 and 000002.SZ 示例地产, closes of 20.00 to 2024-06-28).

Watchlists: a list is made from a code and a name picked from the symbol autocomplete, a symbol is
removed, and a symbol's Analyze link opens the analysis form filled in. Holdings: a holdings file
is uploaded and the table shows each position valued at the close of the date (cost basis, market
value, P&L with units); a damaged file is refused naming its line and the table stays as it was;
the page fits a 390 px screen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import WebServer, page_refused_at
from tests.browser.served_web import AS_OF, SECOND_NAME, SECOND_SYMBOL, SYMBOL

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect
FITS = "document.documentElement.scrollWidth <= 390"


@pytest.fixture
def import_page(browser: Browser) -> Iterator[Page]:
    """A desktop page whose upload to /holdings/import may be answered 400 (the damaged file)."""
    with page_refused_at(browser, "/holdings/import") as page:
        yield page


def test_a_watchlist_is_made_from_the_autocomplete_and_links_to_analyze(
    web_server: WebServer, page: Page, shots: Callable[[Page, str], Path]
) -> None:
    page.goto(f"{web_server.url}/watchlists")
    expect(page.get_by_role("link", name="Watchlists", exact=True)).to_have_attribute("aria-current", "page")
    page.get_by_label("List name").fill("core")
    field = page.get_by_label("Symbols", exact=True)
    field.press_sequentially(f"{SYMBOL}, {SECOND_NAME[:3]}", delay=5)
    option = page.locator("#wl-symbol-options option").first
    expect(option).to_have_attribute("value", f"{SYMBOL}, {SECOND_SYMBOL}")
    field.fill(option.get_attribute("value") or "")
    shots(page, "01-watchlist-form")
    page.get_by_role("button", name="Add", exact=True).click()
    rows = page.locator("#list-core tbody tr")
    expect(rows).to_have_count(2)
    assert [rows.nth(i).get_attribute("data-symbol") for i in range(2)] == [SYMBOL, SECOND_SYMBOL]
    shots(page, "02-watchlist")
    rows.nth(1).get_by_role("button", name="Remove").click()
    expect(page.locator("#list-core tbody tr")).to_have_count(1)
    page.locator("#list-core tbody tr").first.get_by_role("link", name="Analyze").click()
    expect(page.locator("#symbol")).to_have_value(SYMBOL)


def test_a_holdings_file_is_imported_and_valued_and_a_damaged_one_is_refused(
    web_server: WebServer,
    import_page: Page,
    phone_page: Page,
    shots: Callable[[Page, str], Path],
    tmp_path: Path,
) -> None:
    good = tmp_path / "positions.csv"
    good.write_text(
        f"symbol,quantity,cost_price,account,opened_at\n{SYMBOL},1000,18.5,main,2024-03-01\n{SECOND_SYMBOL},200,25,main,\n",
        encoding="utf-8",
    )
    bad = tmp_path / "damaged.csv"
    bad.write_text(f"symbol,quantity,cost_price\n{SYMBOL},1,1\n{SECOND_SYMBOL},1O0,1\n", encoding="utf-8")
    url = web_server.url
    page = import_page
    page.goto(f"{url}/holdings?as_of={AS_OF.isoformat()}")
    expect(page.locator("#holdings-none")).to_be_visible()
    page.get_by_label("File", exact=True).set_input_files(str(good))
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#holdings-imported")).to_contain_text("Imported 2 positions")
    page.goto(f"{url}/holdings?as_of={AS_OF.isoformat()}")
    rows = page.locator("#holdings-table tbody tr")
    expect(rows).to_have_count(2)
    held = page.locator(f'#holdings-table tr[data-symbol="{SYMBOL}"]')
    expect(held.locator('[data-figure="close"]')).to_have_text("20.00 CNY")
    expect(held.locator('[data-figure="cost_basis"]')).to_have_text("18.50K CNY")
    expect(held.locator('[data-figure="market_value"]')).to_have_text("20.00K CNY")
    expect(held.locator('[data-figure="unrealised_pnl_pct"]')).to_have_text("+8.11%")
    expect(held.locator('[data-figure="days_held"]')).to_have_text("119 days")
    shots(page, "03-holdings")

    page.get_by_label("File", exact=True).set_input_files(str(bad))
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#holdings-error")).to_have_attribute("data-line", "3")
    expect(page.locator("#holdings-error")).to_contain_text("line 3")
    expect(page.locator("#holdings-table tbody tr")).to_have_count(2)
    shots(page, "04-holdings-refused")

    phone_page.goto(f"{url}/holdings?as_of={AS_OF.isoformat()}")
    expect(phone_page.locator("#holdings-table")).to_be_visible()
    assert phone_page.evaluate(FITS), "the holdings page is wider than a 390 px screen"
    shots(phone_page, "05-holdings-phone")
