"""The briefing pages in a real chromium against a real server process.

The server (`create` below, run by uvicorn) holds the briefing tests' store (XMPL, YMPL, ZMPL to
2024-03-01) and the real panel and briefing service over the scripted briefing model, each answer
delayed a little so that the page follows the job live over SSE before it reloads to the script.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fastapi import FastAPI

from stockdesk.entrypoints.api import create_app, default_policy
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from tests.briefing.briefing_support import BriefingModel, seed_briefing_store
from tests.browser.conftest import WebServer
from tests.conftest import scripted_service
from tests.entrypoints.server_process import free_port, running

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

LATENCY_SECONDS = 0.2  # per model answer: a briefing of two tickers then lasts a few seconds
LONG = 120_000  # ms: the whole briefing, and its audio


def create() -> FastAPI:
    """`python -m uvicorn --factory tests.browser.test_briefings_browser:create` with STOCKDESK_HOME set."""
    settings = Settings()
    container = AppContainer(settings)
    provider = ScriptedProvider([BriefingModel()], latency_seconds=LATENCY_SECONDS)
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    seed = settings.home / "seed"
    seed.mkdir(parents=True, exist_ok=True)
    seed_briefing_store(container.database, seed)
    return create_app(container, default_policy(settings))


@pytest.fixture(scope="module")
def briefing_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    home = tmp_path_factory.mktemp("briefing-web-home")
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "tests.browser.test_briefings_browser:create",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip
    with running(command, home, port) as server:
        yield WebServer(url=server.url, home=home, server=server)
        server.stop(timeout=30)


def test_start_a_briefing_follow_it_live_then_read_and_hear_the_script(
    briefing_server: WebServer, page: Page, phone_page: Page, shots: Callable[[Page, str], Path]
) -> None:
    speak = shutil.which("espeak-ng") is not None
    page.goto(f"{briefing_server.url}/briefings")
    page.get_by_label("Show date").fill("2024-03-01")
    page.get_by_label("Tickers").fill("XMPL, ZMPL")
    if speak:
        page.get_by_label("Also make audio (espeak-ng)").check()
    shots(page, "1-form")
    page.get_by_role("button", name="Write the briefing").click()

    expect(page).to_have_url(re.compile(r"/briefings/[0-9a-f]{32}$"))
    expect(page.locator("#briefing-progress[sse-connect]")).to_have_count(1)  # followed live
    expect(page.locator('#briefing-steps tr[data-step="01:XMPL"]')).to_be_visible()
    shots(page, "2-live")
    panel = page.locator("#progress-panel")
    expect(panel).to_have_attribute("data-state", "completed", timeout=LONG)
    expect(page.locator("#briefing-progress[sse-connect]")).to_have_count(
        0, timeout=LONG
    )  # reloaded when done

    chapters = page.locator("article.chapter")
    expect(chapters).to_have_count(2)
    expect(chapters.nth(0).get_by_role("heading", name="XMPL")).to_be_visible()
    expect(chapters.nth(1).locator(".turn").first).to_contain_text("Now to ZMPL. What did the panel say?")
    expect(chapters.nth(0).locator('.turn[data-speaker="analyst"] .speaker').first).to_have_text("Analyst:")
    if speak:
        audio = page.locator("#briefing-audio audio")
        expect(audio).to_be_visible()
        page.wait_for_function(
            "document.querySelector('#briefing-audio audio').readyState >= 1", timeout=LONG
        )
        assert page.evaluate("document.querySelector('#briefing-audio audio').duration") > 1.0
    shots(page, "3-script")

    page.goto(f"{briefing_server.url}/briefings")
    expect(page.locator("#briefing-list tbody tr")).to_have_count(1)
    shots(page, "4-list")
    phone_page.goto(f"{briefing_server.url}/briefings")
    phone_page.locator("#briefing-list a").first.click()
    expect(phone_page.locator("article.chapter")).to_have_count(2)
    overflow = phone_page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than the phone"
    shots(phone_page, "5-script-phone")


def test_the_jobs_page_lists_nothing_when_idle_and_speaks_chinese(
    briefing_server: WebServer, open_page: Callable[..., Page], shots: Callable[[Page, str], Path]
) -> None:
    page = open_page(locale="zh-CN")
    page.goto(f"{briefing_server.url}/jobs")
    expect(page.get_by_role("heading", name="任务")).to_be_visible()
    expect(page.locator("#jobs-none")).to_be_visible()
    shots(page, "jobs-zh")
