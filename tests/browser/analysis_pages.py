"""What the analysis browser tests share: filling the Analyze form, and waiting for a cancel to show."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect


def fill_the_form(page: Page, experts_off: tuple[str, ...] = ()) -> None:
    """Symbol through its autocomplete, the as-of day, and the experts to leave out."""
    symbol = page.get_by_label("Symbol")
    symbol.fill("示例")  # a name: the suggestion list offers the stored symbol
    expect(page.locator('#symbol-options option[value="600001.SH"]')).to_have_count(1)
    symbol.fill("600001.SH")
    page.get_by_label("As of").fill("2024-06-28")
    for name in experts_off:
        page.get_by_label(name).uncheck()


def wait_cancelled(page: Page, url: str, session_id: str, seconds: float) -> bool:
    """Until the page shows the analysis cancelled: its progress page (when the run had ended before
    the page came back from the cancel) or its session page (when the page saw it end live); True
    for the session page. Fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if page.url == f"{url}/sessions/{session_id}":
            return True
        try:
            if page.locator('#progress-panel[data-state="cancelled"]').count():
                return False
        except Exception:  # the page is navigating: look again
            pass
        time.sleep(0.05)
    raise AssertionError(f"not cancelled after {seconds} s (at {page.url})")
