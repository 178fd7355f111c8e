"""The strategy lab in a real chromium against a real server process with the scripted LLM.

The scripted model answers the strategist with text that holds no JSON (tests/browser/served_web.py),
after a delay (STOCKDESK_TEST_LLM_LATENCY). The executor runs one strategy run at a time: while a
long run iterates, a second run waits in the queue and its page is followed live until the test
cancels the long one. Nothing here waits on a clock.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import WebServer
from tests.browser.served_strategy import UNUSABLE
from tests.entrypoints.server_process import free_port, running

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed").expect

LLM_LATENCY = "0.5"  # seconds per model answer: a 50-iteration run takes at least 25 s
LONG = 60_000  # ms: the longest a step may take


def serve(factory: str, home: Path, **env: str) -> Iterator[WebServer]:
    """`factory` (module:function) in a real uvicorn process with STOCKDESK_HOME=`home`."""
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "--factory", factory,
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip
    with running(command, home, port, **env) as server:
        yield WebServer(url=server.url, home=home, server=server)
        server.stop(timeout=30)


@pytest.fixture(scope="module")
def slow_llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """tests.browser.served_web (strategist answers hold no JSON), every model answer delayed."""
    home = tmp_path_factory.mktemp("slow-llm-home")
    yield from serve("tests.browser.served_web:create", home, STOCKDESK_TEST_LLM_LATENCY=LLM_LATENCY)


@pytest.fixture(scope="module")
def champion_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """tests.browser.served_strategy: six A-shares, one usable strategist answer, then none."""
    yield from serve("tests.browser.served_strategy:create", tmp_path_factory.mktemp("champion-home"))


def start_run(page: Page, url: str, *, iterations: str, attempts: str, keep_form: bool = False) -> None:
    if not keep_form:
        page.goto(f"{url}/strategy")
    page.get_by_label("Iterations").fill(iterations)
    page.get_by_label("Attempts per iteration").fill(attempts)
    page.get_by_role("button", name="Start run").click()
    expect(page).to_have_url(re.compile(rf"{url}/strategy/runs/[0-9a-f]{{32}}"))


def test_a_strategy_run_with_the_scripted_llm_shows_its_errors_fed_back_live_to_its_end(
    slow_llm_server: WebServer, open_page: Callable[..., Page], shots: Callable[[Page, str], Path]
) -> None:
    """A run started from the strategy lab is followed live (SSE) to its end; every iteration's
    unusable answer is shown honestly with the errors fed back to the model, and no best strategy
    is claimed. The long run it waited for is cancelled, then offered for resuming."""
    url = slow_llm_server.url
    long_run, page = open_page(), open_page()

    start_run(long_run, url, iterations="50", attempts="1")
    expect(long_run.locator("#run-panel")).to_have_attribute("data-state", "running", timeout=LONG)

    page.goto(f"{url}/strategy")
    shots(page, "01-start-form")
    start_run(page, url, iterations="2", attempts="2")
    expect(page.locator("#run-progress[sse-connect]")).to_have_count(1)  # live: queued behind the long run
    expect(page.locator("#run-panel")).to_have_attribute("data-state", "queued")
    shots(page, "02-queued-live")

    long_run.get_by_role("button", name="Cancel").click()
    expect(long_run.get_by_role("button", name="Resume")).to_be_visible(timeout=LONG)
    expect(long_run.locator("#run-panel")).to_have_attribute("data-state", "interrupted")
    shots(long_run, "03-cancelled-with-resume")

    # no navigation by the test from here: SSE updates the table, its `done` brings the final page
    expect(page.locator("#run-panel")).to_have_attribute("data-state", "completed", timeout=LONG)
    rows = page.locator("tr.iteration")
    expect(rows).to_have_count(2)
    for row in rows.all():
        expect(row).to_have_attribute("data-status", "generation_failed")
        expect(row.get_by_text("no usable parameters")).to_be_visible()
        fed_back = row.locator(".errors-fed-back li")
        expect(fed_back).to_have_count(2)  # one error per attempt, each as the model was told
        expect(fed_back.first).to_contain_text('no "REASONING:" and no "JSON:" heading')
        expect(fed_back.first).to_contain_text("no answer for this schema")
    expect(page.locator("#no-best")).to_be_visible()
    expect(page.locator("#run-progress[sse-connect]")).to_have_count(0)
    shots(page, "04-finished-with-errors")

    page.goto(f"{url}/strategy")
    expect(page.locator("#run-list tbody tr")).to_have_count(2)
    shots(page, "05-run-list")


def test_the_best_strategy_of_a_run_shows_its_equity_curve_metrics_and_rendered_code(
    champion_server: WebServer, page: Page, phone_page: Page, shots: Callable[[Page, str], Path]
) -> None:
    """A run whose first iteration is usable ends with a champion: its equity curve is an interactive
    chart (a canvas with data points), beside its metrics against the universe and its rendered code."""
    url = champion_server.url
    page.goto(f"{url}/strategy")
    page.locator("#strategy-form").get_by_label("From", exact=True).fill("2023-07-03")  # not the backtest's
    start_run(page, url, iterations="2", attempts="1", keep_form=True)
    expect(page.locator("#run-panel")).to_have_attribute("data-state", "completed", timeout=LONG)
    expect(page.locator("#best")).to_contain_text("The champion is iteration 1")
    expect(page.locator("tr.iteration").first).to_contain_text("momentum_period=20")
    equity = page.locator('.chart[data-chart-id="strategy-equity"]')
    expect(equity).to_have_attribute("data-rendered", "1")
    assert int(equity.get_attribute("data-points") or 0) > 100  # two series over months of days
    expect(equity.locator("canvas").first).to_be_visible()
    metrics = page.locator("#best-metrics")
    expect(metrics.get_by_role("rowheader", name="Sharpe", exact=True)).to_be_visible()
    expect(page.locator("#best-code code")).to_contain_text("def ")
    expect(page.locator("tr.iteration").nth(1)).to_contain_text(UNUSABLE)  # the second answer, fed back
    shots(page, "01-champion")

    phone_page.goto(page.url)
    expect(phone_page.locator('.chart[data-chart-id="strategy-equity"]')).to_have_attribute(
        "data-rendered", "1"
    )
    shots(phone_page, "02-champion-phone")
