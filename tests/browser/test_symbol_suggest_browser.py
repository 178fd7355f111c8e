"""Symbol fields that take several symbols suggest for the one being typed: the request carries only
that token (not the whole list, which the suggest route refuses over 40 characters), and a picked
suggestion keeps the symbols typed before it."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest

from tests.browser.conftest import WebServer
from tests.browser.served_web import SECOND_NAME, SECOND_SYMBOL, SYMBOL

if TYPE_CHECKING:
    from playwright.sync_api import Page, Response

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect


def test_a_list_of_symbols_suggests_for_the_last_one_typed(web_server: WebServer, page: Page) -> None:
    asked: list[tuple[str, int]] = []

    def seen(response: Response) -> None:
        if "/symbols/suggest" in response.url:
            asked.append((response.url, response.status))

    page.on("response", seen)
    page.goto(f"{web_server.url}/evaluations")
    field = page.locator("input[data-suggest-multi]").first
    token = SECOND_NAME[:3]  # 示例地: only the second security's name
    typed = f"{SYMBOL}, 600003.SH, 600004.SH, 600005.SH, {token}"  # over 40 characters
    field.press_sequentially(typed, delay=5)
    options = page.locator(f"#{field.get_attribute('list')} option")
    expect(options.first).to_have_attribute(
        "value", f"{SYMBOL}, 600003.SH, 600004.SH, 600005.SH, {SECOND_SYMBOL}"
    )
    assert asked and all(status == 200 for _, status in asked), asked
    assert asked[-1][0].endswith("q=" + quote(token))  # the last token only


def test_a_single_symbol_field_still_asks_for_what_was_typed(web_server: WebServer, page: Page) -> None:
    page.goto(f"{web_server.url}/")
    field = page.locator("#symbol")
    field.press_sequentially(SECOND_NAME, delay=5)
    expect(page.locator("#symbol-options option").first).to_have_attribute("value", SECOND_SYMBOL)
