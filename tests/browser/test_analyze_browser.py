"""The Analyze area in a real chromium against a real server process.

Done-when of issue 18: "start an analysis and see it finish through SSE". The server's scripted LLM
answers after a delay (STOCKDESK_TEST_LLM_LATENCY) so the run lasts long enough for the page to
follow it; every progress swap the page receives is recorded through an exposed function, which
survives the navigation to the session page at the end.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

from tests.browser.analysis_pages import fill_the_form, open_the_cancelled_session
from tests.browser.conftest import WebServer
from tests.entrypoints.server_process import free_port, running

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

LATENCY_SECONDS = "1.0"  # per LLM answer: experts, debate and judge take a few seconds in all
RECORD_PROGRESS = """
document.addEventListener("htmx:sseMessage", function (event) {
  if (!event.detail || event.detail.type !== "progress") return;
  var state = document.querySelector("#analysis-progress .job-panel");
  var rows = Array.from(document.querySelectorAll("#analysis-progress tr[data-node]"));
  window.recordProgress(JSON.stringify({
    state: state ? state.getAttribute("data-state") : null,
    nodes: rows.map(function (r) { return r.dataset.node + ":" + r.dataset.state; }),
  }));
});
"""


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """The browser tests' app (tests.browser.served_web) with an LLM that takes its time to answer."""
    home = tmp_path_factory.mktemp("slow-web-home")
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "tests.browser.served_web:create",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip
    with running(command, home, port, STOCKDESK_TEST_LLM_LATENCY=LATENCY_SECONDS) as server:
        yield WebServer(url=server.url, home=home, server=server)
        server.stop(timeout=30)


def test_start_an_analysis_and_see_it_finish_through_sse(
    slow_server: WebServer, page: Page, shots: Callable
) -> None:
    """Done-when: "start an analysis and see it finish through SSE" — fill the form on /, submit,
    watch the progress table change over SSE, end on the session page."""
    seen: list[str] = []
    page.expose_function("recordProgress", lambda text: seen.append(text))
    page.add_init_script(RECORD_PROGRESS)
    page.goto(f"{slow_server.url}/")
    expect(page.get_by_role("heading", name="Start an analysis")).to_be_visible()
    fill_the_form(page, experts_off=("Macro intelligence", "Catalyst detective"))
    expect(page.get_by_label("Valuation modeler")).to_be_checked()
    expect(page.get_by_label("Bull vs bear")).to_be_checked()
    shots(page, "1-home-form")

    page.get_by_role("button", name="Start the analysis").click()
    expect(page).to_have_url(re.compile(r"/analyses/[0-9a-f]{32}$"))
    session_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#analysis-progress table.nodes")).to_be_visible()
    shots(page, "2-progress")

    expect(page).to_have_url(f"{slow_server.url}/sessions/{session_id}", timeout=60_000)
    expect(page.get_by_role("heading", name="600001.SH research session")).to_be_visible()
    expect(page.locator('[data-field="action"]')).to_have_text("HOLD")
    shots(page, "3-session")

    states = [json.loads(s) for s in seen]
    assert len(states) >= 2, f"the page got {len(states)} progress update(s): {states}"
    assert states[0]["state"] in ("queued", "running") and states[-1]["state"] == "completed"
    assert states[0] != states[-1]
    assert "judge_node:done" in states[-1]["nodes"]
    assert any(n.endswith(":running") for s in states[:-1] for n in s["nodes"]) or states[0]["nodes"] == []


def test_cancel_stops_the_analysis_and_the_session_says_so(
    slow_server: WebServer, page: Page, shots: Callable
) -> None:
    page.goto(f"{slow_server.url}/")
    fill_the_form(page)
    page.get_by_role("button", name="Start the analysis").click()
    expect(page).to_have_url(re.compile(r"/analyses/[0-9a-f]{32}$"))
    session_id = page.url.rsplit("/", 1)[1]
    page.get_by_role("button", name="Cancel").click()
    open_the_cancelled_session(page, slow_server.url, session_id, 30.0)
    expect(page).to_have_url(f"{slow_server.url}/sessions/{session_id}")
    note = page.locator('.error-box[data-state="cancelled"]')
    expect(note).to_contain_text("Cancelled: only what finished before the stop is shown.")
    expect(note).to_contain_text("cancelled by the user")
    shots(page, "cancelled-session")
    page.goto(f"{slow_server.url}/analyses/{session_id}")
    expect(page.locator("#progress-panel")).to_have_attribute("data-state", "cancelled")
    expect(page.get_by_role("button", name="Cancel")).to_have_count(0)
    shots(page, "cancelled-progress")


@pytest.mark.parametrize("phone_page", ["zh-CN"], indirect=True)
def test_the_start_page_fits_a_phone_in_chinese(
    slow_server: WebServer, phone_page: Page, shots: Callable
) -> None:
    phone_page.goto(f"{slow_server.url}/")
    expect(phone_page.get_by_role("heading", name="开始分析")).to_be_visible()
    expect(phone_page.get_by_label("估值建模师")).to_be_checked()
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
    phone_page.get_by_label("股票代码").focus()
    shots(phone_page, "home-phone-zh")
