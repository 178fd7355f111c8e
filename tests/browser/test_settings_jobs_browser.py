"""The settings page and the job history in a real chromium against a real server process
(tests.browser.served_web: a synthetic store, the scripted model answering every schema).

"Test the model" posts through htmx and the model's reply appears in the page; the job history shows
an evaluation the test ran to its end from the evaluations form, linked to its page; both pages fit
a 390 px phone (their tables scroll inside `.table-wrap`, the page itself does not).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import WebServer
from tests.browser.served_web import SYMBOL
from tests.coordinator.support import ANSWERS

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

LONG = 60_000  # ms: a rules-mode evaluation of one symbol runs to its end


def no_page_scroll(page: Page) -> None:
    """Nothing wider than the phone: only the tables' wrappers may scroll sideways."""
    wider = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert wider <= 0, f"the page is {wider} px wider than the screen"


def test_test_the_model_shows_the_model_s_reply(
    web_server: WebServer, page: Page, phone_page: Page, shots: Callable[[Page, str], Path]
) -> None:
    page.goto(f"{web_server.url}/settings")
    expect(page.get_by_role("heading", name="Settings", exact=True)).to_be_visible()
    expect(page.locator('[data-setting="llm_max_output_tokens"] dd')).to_have_text("1,024 tokens")
    page.locator("#ping").get_by_role("button", name="Test the model").click()
    result = page.locator("#ping-ok")
    expect(result).to_be_visible(timeout=LONG)
    expect(page.locator("#ping-reply")).to_have_text(ANSWERS["PingAnswer"]["reason"])
    expect(page.locator("#ping-latency")).to_have_text(re.compile(r"^\d+\.\d\d s$"))
    assert page.url == f"{web_server.url}/settings"  # swapped in place, no navigation
    shots(page, "01-settings-pinged")

    phone_page.goto(f"{web_server.url}/settings")
    expect(phone_page.locator("#alias-table")).to_be_visible()
    no_page_scroll(phone_page)
    shots(phone_page, "02-settings-phone")


def test_the_job_history_shows_a_finished_job(
    web_server: WebServer, page: Page, phone_page: Page, shots: Callable[[Page, str], Path]
) -> None:
    url = web_server.url
    page.goto(f"{url}/evaluations")
    page.get_by_label("Symbols").fill(SYMBOL)
    page.get_by_label("From", exact=True).fill("2023-09-01")
    page.get_by_label("To", exact=True).fill("2024-03-29")
    page.get_by_label("Every N trading days").fill("20")
    page.get_by_label("Horizons (trading days)").fill("5")
    page.get_by_role("button", name="Start evaluation").click()
    expect(page).to_have_url(re.compile(rf"{url}/evaluations/[0-9a-f]{{32}}"))
    job_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#progress-panel")).to_have_attribute("data-state", "done", timeout=LONG)

    page.goto(f"{url}/jobs")
    page.get_by_role("link", name=re.compile("^Job history")).click()
    expect(page).to_have_url(f"{url}/jobs/history")
    row = page.locator(f'#history-table tr[data-job="{job_id}"]')
    expect(row).to_have_attribute("data-state", "done")
    expect(row.get_by_role("cell", name="Evaluation", exact=True)).to_be_visible()
    expect(row.locator("progress")).to_be_visible()
    expect(row.locator(".outcome")).to_contain_text("tasks done.")
    shots(page, "01-history")

    page.get_by_label("Status").select_option("failed")
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(f"{url}/jobs/history?kind=&status=failed")
    expect(page.locator("#history-none")).to_be_visible()  # the one finished job did not fail

    phone_page.goto(f"{url}/jobs/history")
    expect(phone_page.locator(f'tr[data-job="{job_id}"]')).to_be_visible()
    no_page_scroll(phone_page)
    shots(phone_page, "02-history-phone")
    phone_page.locator(f'tr[data-job="{job_id}"] a').click()
    expect(phone_page).to_have_url(f"{url}/evaluations/{job_id}")
