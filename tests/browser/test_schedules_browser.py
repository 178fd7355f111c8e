"""The Schedules pages in a real chromium against a real server process: a schedule added with the CLI
(rules mode: no LLM) is run from its page with Run now, which sends the browser to the jobs page; the
schedule's page then lists the done run, whose report link opens the batch index served from the run's
folder, and the index's relative links open each symbol's report. The Chinese pages say the same in
Chinese and reach the same reports."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import WebServer
from tests.browser.served_web import AS_OF, SECOND_SYMBOL, SYMBOL
from tests.entrypoints.server_process import stockdesk

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect
NAME = "evening"
DAY = AS_OF.isoformat()


@pytest.fixture(scope="module")
def with_schedule(web_server: WebServer) -> WebServer:
    for command in (
        ("watch", "add", "core", SYMBOL, SECOND_SYMBOL),
        ("schedule", "add", NAME, "--watchlist", "core", "--at", "16:30", "--tz", "Asia/Shanghai"),
    ):
        done = stockdesk(web_server.home, *command)
        assert done.returncode == 0, done.stdout + done.stderr
    return web_server


def _done_row(page: Page, url: str) -> None:
    """Reload the schedule's page until the day's run is done (the job runs on the server's executor)."""
    deadline = time.monotonic() + 180
    row = page.locator(f"#run-{DAY}")
    while row.count() == 0 or row.get_attribute("data-status") != "done":
        assert time.monotonic() < deadline, page.content()
        time.sleep(0.5)
        page.goto(url)


def test_run_now_then_the_runs_report_and_a_symbols_report(
    with_schedule: WebServer, page: Page, shots: Callable[[Page, str], Path]
) -> None:
    base = with_schedule.url
    page.goto(f"{base}/")
    page.get_by_role("link", name="Schedules").click()
    expect(page).to_have_url(f"{base}/schedules")
    expect(page.locator(f'tr[data-schedule="{NAME}"]')).to_contain_text("rules (no LLM)")
    page.get_by_role("link", name=NAME).click()
    expect(page).to_have_url(f"{base}/schedules/{NAME}")
    expect(page.locator("#runs-none")).to_be_visible()
    page.fill("#run-day", DAY)
    page.get_by_role("button", name="Run now").click()
    expect(page).to_have_url(f"{base}/jobs")
    _done_row(page, f"{base}/schedules/{NAME}")
    row = page.locator(f"#run-{DAY}")
    expect(row).to_contain_text(SYMBOL)
    expect(row).to_contain_text(SECOND_SYMBOL)
    shots(page, "schedule-desktop")
    row.locator("a.report-link").click()
    expect(page).to_have_url(f"{base}/schedules/{NAME}/{DAY}/")
    link = page.locator(f'a[href="{SYMBOL}-{DAY}.html"]').first
    expect(link).to_be_attached()
    link.click()
    expect(page).to_have_url(f"{base}/schedules/{NAME}/{DAY}/{SYMBOL}-{DAY}.html")
    expect(page.locator("body")).to_contain_text(SYMBOL)


@pytest.mark.parametrize("page", ["zh-CN"], indirect=True)
def test_the_same_walk_in_chinese(with_schedule: WebServer, page: Page) -> None:
    base = with_schedule.url
    page.goto(f"{base}/")
    page.get_by_role("link", name="定时任务").click()
    expect(page.locator("h1")).to_have_text("定时任务")
    page.get_by_role("link", name=NAME).click()
    expect(page.get_by_role("button", name="立即运行")).to_be_visible()
    if page.locator(f"#run-{DAY}").count() == 0:  # the English test ran in another worker's server
        page.fill("#run-day", DAY)
        page.get_by_role("button", name="立即运行").click()
        expect(page).to_have_url(f"{base}/jobs")
    _done_row(page, f"{base}/schedules/{NAME}")  # run by the English test, or just now
    row = page.locator(f"#run-{DAY}")
    expect(row).to_contain_text("完成")
    row.locator("a.report-link").click()
    expect(page).to_have_url(f"{base}/schedules/{NAME}/{DAY}/")
    page.locator(f'a[href="{SECOND_SYMBOL}-{DAY}.html"]').first.click()
    expect(page).to_have_url(f"{base}/schedules/{NAME}/{DAY}/{SECOND_SYMBOL}-{DAY}.html")
