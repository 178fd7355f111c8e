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


def open_the_cancelled_session(page: Page, url: str, session_id: str, seconds: float) -> None:
    """Until the page is on the cancelled run's session page. The page goes there by itself when the
    stream's `done` follows its `cancelled` progress; when the run had ended before the page came back
    from the cancel, it goes through the progress panel's link. Either may happen while we look, so a
    click that loses the race to the navigation is looked at again, not failed."""
    target = f"{url}/sessions/{session_id}"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if page.url == target:
            return
        try:
            link = page.get_by_role("link", name="Open the session")
            if link.count():
                link.click(timeout=2_000)
        except Exception:  # the page navigated between the look and the click: look again
            pass
        time.sleep(0.05)
    raise AssertionError(f"not on the session page after {seconds} s (at {page.url})")
