"""The data pages in a real chromium against a real server process (tests.browser.served_web's store:
600001.SH and 000002.SZ, 300 business days to 2024-06-28).

Issue 18: "upload a malformed CSV and see a clear error with nothing imported" — the file is set on
the form's file input, submitted, the error names the line, and the data page and the REST API show
that nothing of it was stored; then a good CSV imports. A sync runs against the real providers,
which cannot be reached here: each dataset's failure shows on the run's page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

from tests.browser.conftest import WebServer, page_refused_at
from tests.browser.served_web import SECOND_SYMBOL, SYMBOL

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

ACME = (
    Path(__file__).resolve().parents[1]
    / "data_engineering"
    / "fixtures"
    / "yfinance"
    / "ACME_historical_data.csv"
)
LONG = 120_000  # ms: a sync against unreachable providers retries each call before it gives up


@pytest.fixture
def refusal_page(browser: Browser) -> Iterator[Page]:
    """A desktop page whose upload to /data/import may be answered 400 (tests.browser.conftest)."""
    with page_refused_at(browser, "/data/import") as page:
        yield page


def malformed_copy(folder: Path) -> Path:
    """The ACME history with a negative low price on data row 4 (line 5 of the file)."""
    frame = pd.read_csv(ACME, dtype=str)
    frame.loc[3, "Low"] = "-25.1"
    path = folder / "ACME_malformed.csv"
    frame.to_csv(path, index=False)
    return path


def submit_upload(page: Page, url: str, file: Path) -> None:
    page.goto(f"{url}/data/import")
    page.get_by_label("What the file is").select_option("yfinance-csv")
    page.get_by_label("Symbol", exact=True).fill("ACME")
    page.set_input_files("#imp-file", str(file))
    page.get_by_role("button", name="Import", exact=True).click()


def test_upload_a_malformed_csv_and_see_a_clear_error_with_nothing_imported(
    web_server: WebServer, refusal_page: Page, shots: Callable[[Page, str], Path], tmp_path: Path
) -> None:
    """Issue 18: a CSV with one bad row is refused with its line number, and nothing is imported."""
    page = refusal_page
    submit_upload(page, web_server.url, malformed_copy(tmp_path))
    error = page.locator("#import-rejected")
    expect(error).to_be_visible()
    expect(error).to_contain_text("ACME_malformed.csv")
    expect(error).to_contain_text("Nothing was imported.")
    expect(error.locator('tr[data-line="5"]')).to_contain_text("line 5")
    expect(error.locator('tr[data-line="5"]')).to_contain_text("price must be positive")
    expect(page.get_by_label("Symbol", exact=True)).to_have_value("ACME")  # the form kept what was typed
    shots(page, "1-malformed-refused")

    page.goto(f"{web_server.url}/data")
    expect(page.locator(f'tr[data-symbol="{SYMBOL}"]')).to_be_visible()
    expect(page.locator('tr[data-symbol="ACME"]')).to_have_count(0)
    assert page.request.get(f"{web_server.url}/api/v1/stocks/ACME").status == 404
    shots(page, "2-data-page-unchanged")


def test_a_good_csv_upload_imports_and_the_data_pages_show_it(
    web_server: WebServer, page: Page, phone_page: Page, shots: Callable[[Page, str], Path]
) -> None:
    submit_upload(page, web_server.url, ACME)
    result = page.locator("#import-result")
    expect(result).to_be_visible()
    expect(result.locator('tr[data-table="bars"] td').first).not_to_have_text("0")
    shots(page, "1-imported")

    page.goto(f"{web_server.url}/data")
    row = page.locator('tr[data-symbol="ACME"]')
    expect(row).to_be_visible()
    expect(row.locator('td[data-dataset="bars"]')).to_contain_text("2024-10-22")
    expect(page.locator(f'tr[data-symbol="{SYMBOL}"] td[data-gaps="0"]')).to_have_count(1)
    page.get_by_label("Symbol or name").fill("地产")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#coverage-table tbody tr")).to_have_count(1)
    expect(page.locator(f'tr[data-symbol="{SECOND_SYMBOL}"]')).to_be_visible()
    shots(page, "2-data-filtered")

    page.goto(f"{web_server.url}/data/ACME")
    expect(page.get_by_role("heading", name="ACME", exact=True)).to_be_visible()
    expect(page.locator('#symbol-coverage tr[data-dataset="bars"]')).to_contain_text("2024-10-22")
    shots(page, "3-symbol-detail")

    phone_page.goto(f"{web_server.url}/data")
    expect(phone_page.locator('tr[data-symbol="ACME"]')).to_be_attached()
    overflow = phone_page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, (
        f"the page is {overflow}px wider than the phone (the table must scroll inside .table-wrap)"
    )
    shots(phone_page, "4-data-phone")


def test_a_sync_with_unreachable_providers_shows_each_datasets_failure(
    web_server: WebServer, page: Page, shots: Callable[[Page, str], Path]
) -> None:
    page.goto(f"{web_server.url}/data/sync")
    page.get_by_label("Market").select_option("cn")
    page.get_by_label("Symbols").fill(SYMBOL)
    page.get_by_label("From").fill("2024-07-01")
    page.get_by_label("To").fill("2024-07-31")
    shots(page, "1-sync-form")
    page.get_by_role("button", name="Start the sync").click()
    expect(page).to_have_url(re.compile(r"/data/sync/[0-9a-f]{32}$"))
    panel = page.locator("#progress-panel")
    expect(panel).to_have_attribute("data-state", re.compile("completed|partial|failed"), timeout=LONG)
    expect(page.locator("#sync-progress[sse-connect]")).to_have_count(0)  # the finished page, reloaded
    for dataset in ("security", "bars", "valuations", "financials"):
        cell = page.locator(f'tr[data-symbol="{SYMBOL}"] td[data-dataset="{dataset}"]')
        expect(cell).to_have_attribute("data-status", re.compile("written|empty|failed"))
    if panel.get_attribute("data-state") == "failed":  # no internet here: every provider call failed
        expect(
            page.locator(f'.sync-failures li[data-symbol="{SYMBOL}"][data-dataset="bars"]')
        ).to_contain_text("akshare")
    shots(page, "2-sync-finished")


def test_a_symbols_page_draws_its_price_and_valuation_charts_with_labelled_figures(
    web_server: WebServer, page: Page, phone_page: Page, shots: Callable[[Page, str], Path]
) -> None:
    """Issue 32: the data page had no chart and unitless numbers. Both charts (price with its moving
    averages and volume, PE/PB with the median) are drawn by ECharts on canvases, with no JS error
    (the `page` fixture fails on any), and the latest figures carry their units."""
    page.goto(f"{web_server.url}/data/{SYMBOL}?as_of=2024-03-29")
    charts = page.locator("#data-charts .chart[data-spec]")
    expect(charts).to_have_count(2)
    for index in range(2):
        chart = charts.nth(index)
        chart.scroll_into_view_if_needed()
        expect(chart).to_have_attribute("data-rendered", "1")
        assert int(chart.get_attribute("data-points") or 0) > 0
        expect(chart.locator("canvas").first).to_be_attached()
    expect(page.locator('#latest-bar [data-figure="volume"] dd')).to_have_text(
        re.compile(r"^[\d.,]+[KMB]? shares$")
    )
    expect(page.locator('#latest-valuation [data-figure="pb"] dt')).to_have_text("P/B")
    shots(page, "1-symbol-charts")

    phone_page.goto(f"{web_server.url}/data/{SYMBOL}")
    expect(phone_page.locator("#data-charts .chart[data-spec]").first).to_have_attribute("data-rendered", "1")
    overflow = phone_page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the symbol page is {overflow}px wider than the phone"
    shots(phone_page, "2-symbol-charts-phone")
