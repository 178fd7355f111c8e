"""One job-page skeleton: the evaluation, strategy run and briefing pages show a stopped job in the same
progress panel (`templates/_job.html.j2`), whose Resume posts to the general jobs route and comes
back to the page; the analysis and sync pages show a live job in it, whose Cancel does the same;
each page keeps its own words (both languages) and its own rows.

A stopped job is opened as its kind's start opens it and never run (what a stopped server leaves);
a live one is held (its model answer or its executor slot) while the page is read; all in the real
app over SQLite. The panel's shape is read from the page and compared with one shape.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.presentation.rest import EvaluationBody
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.dates import parse_day
from stockdesk.strategy_lab.presentation.rest.strategy_schemas import RunBody
from tests.api_support import api_client
from tests.briefing.briefing_support import BriefingModel, llm_over, seed_briefing_store
from tests.conftest import scripted_service
from tests.coordinator.support import SYMBOL, pipeline
from tests.data_engineering.provider_fakes import FixtureAkShare
from tests.entrypoints.web.lab_support import slot_taken
from tests.entrypoints.web.test_analyze_pages import GatedRouter, finished
from tests.entrypoints.web.test_analyze_pages import start as start_analysis
from tests.entrypoints.web.test_data_pages import providers, start_sync, wait_finished
from tests.strategy_lab.support import answer, populate

Opened = tuple[TestClient, AppContainer, str, str]  # the app's client, its container, the job, its page
ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
VOID = frozenset({"br", "hr", "img", "input", "link", "meta"})
# the skeleton of a stopped job's panel, start tag by start tag up to the end of its actions
SHAPE = [
    ("section", "card job-panel", ("class", "data-done", "data-job", "data-state", "data-total", "id")),
    ("h2", None, ()),
    ("span", "badge state-*", ("class",)),
    ("progress", None, ("aria-label", "max", "style", "value")),
    ("p", "job-counts", ("class",)),
    ("div", "row job-actions", ("class",)),
    ("div", None, ("id",)),
    ("form", None, ("action", "method")),
    ("button", None, ("type",)),
]
# a live job's panel: the same header, then Cancel instead of Resume
LIVE_SHAPE = [*SHAPE[:6], ("form", None, ("action", "method")), ("button", "danger", ("class", "type"))]
UNCOUNTED = ("progress", "p")  # an analysis cannot count its steps ahead: no bar, no counts


class PanelShape(HTMLParser):
    """The start tags of the page's `.job-panel` until its actions end (a page's own note beside
    Resume, `.job-note`, left out), and the form actions in them."""

    def __init__(self) -> None:
        super().__init__()
        self.shape: list[tuple[str, str | None, tuple[str, ...]]] = []
        self.actions: list[str] = []
        self.open: list[str] = []  # classes of the open elements inside the panel
        self.skipping = 0
        self.ended = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = found.get("class")
        if self.ended or (not self.open and not (tag == "section" and "job-panel" in (classes or ""))):
            return
        if self.skipping or classes == "job-note":
            self.skipping += tag not in VOID
            return
        if classes and classes.startswith("badge state-"):
            classes = "badge state-*"
        self.shape.append((tag, classes, tuple(sorted(found))))
        if tag == "form":
            self.actions.append(found["action"] or "")
        if tag not in VOID:
            self.open.append(classes or "")

    def handle_endtag(self, tag: str) -> None:
        if self.ended or not self.open:
            return
        if self.skipping:
            self.skipping -= 1
            return
        if self.open.pop() == "row job-actions":
            self.ended = True


def panel_of(page: str) -> PanelShape:
    parser = PanelShape()
    parser.feed(page)
    return parser


@pytest.fixture
def evaluation(settings: Settings) -> Opened:
    container, _, _ = pipeline(settings)
    config = EvaluationBody.model_validate(
        {"symbols": [SYMBOL], "start": "2023-09-01", "end": "2024-03-29", "every": 10, "horizons": [5]}
    ).config()
    job = container.evaluation.service.start(config)
    return api_client(container), container, job.job_id, f"/evaluations/{job.job_id}"


@pytest.fixture
def strategy_run(settings: Settings) -> Opened:
    container = AppContainer(settings)
    provider = ScriptedProvider([answer()])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    populate(container.database)
    config = RunBody.model_validate({"start": "2023-07-01", "iterations": 2, "max_attempts": 1}).config()
    run = container.strategy_lab.service.create_run(config)
    return api_client(container), container, run.id, f"/strategy/runs/{run.id}"


@pytest.fixture
def briefing(settings: Settings, tmp_path: Path) -> Iterator[Opened]:
    container = AppContainer(settings, llm_service=llm_over(BriefingModel()))
    seed_briefing_store(container.database, tmp_path)
    jobs = container.briefing.jobs
    assert jobs is not None
    job = jobs.start(parse_day("2024-03-01"), ["ZMPL", "XMPL"])
    yield api_client(container), container, job.job_id, f"/briefings/{job.job_id}"
    container.close()


PAGES: dict[str, tuple[str, str, str]] = {  # fixture -> its own rows, Resume in English, in Chinese
    "evaluation": ('class="job-note"', "Resume", "继续"),
    "strategy_run": ('class="muted">No iteration', "Resume", "继续"),
    "briefing": ('id="briefing-steps"', "Resume", "继续"),
}


@pytest.mark.parametrize("kind", list(PAGES))
def test_a_stopped_job_shows_the_one_panel_with_resume_through_the_jobs_route(
    kind: str, request: pytest.FixtureRequest
) -> None:
    client, container, job_id, page = request.getfixturevalue(kind)
    own, resume_en, resume_zh = PAGES[kind]
    html = client.get(page).text
    panel = panel_of(html)
    assert panel.shape == SHAPE, kind
    assert panel.actions == [f"/jobs/{job_id}/resume?back={page}"]
    assert "sse-connect" not in html and own in html  # nothing to follow; the page's own part is there
    assert f">{resume_en}</button>" in html and f">{resume_zh}</button>" in client.get(page, headers=ZH).text

    resumed = client.post(panel.actions[0], follow_redirects=False)
    assert resumed.status_code == 303 and resumed.headers["location"] == page
    deadline = time.monotonic() + 120.0
    while container.jobs.is_active(job_id) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert panel_of(client.get(page).text).actions == []  # ran to its end: nothing to resume or cancel


@pytest.fixture
def live_analysis(settings: Settings) -> Iterator[Opened]:
    router = GatedRouter()
    container, _, _ = pipeline(settings, router)
    client = api_client(container)
    session_id = start_analysis(client, experts=["technical_analyst"])
    assert router.waiting.wait(60)  # its expert waits for the model: the analysis is live
    yield client, container, session_id, f"/analyses/{session_id}"
    router.gate.set()
    finished(container, session_id)


@pytest.fixture
def live_sync(settings: Settings) -> Iterator[Opened]:
    container, _, _ = pipeline(settings)
    providers(container, FixtureAkShare())
    client = api_client(container)
    with slot_taken(container.jobs, "sync"):  # queued behind the slot: live until it is let go
        run_id = start_sync(client)
        yield client, container, run_id, f"/data/sync/{run_id}"
    wait_finished(client, run_id)


LIVE: dict[str, tuple[str, str, str]] = {  # fixture -> its own rows, "cancelling" in English, in Chinese
    "live_analysis": ('table class="nodes"', "Stopping before the next step", "将在下一步骤开始前停止"),
    "live_sync": ('id="sync-symbols"', "Stopping after the symbol in hand", "处理完当前标的后停止"),
}


@pytest.mark.parametrize("kind", list(LIVE))
def test_a_live_analysis_or_sync_shows_the_one_panel_with_cancel_through_the_jobs_route(
    kind: str, request: pytest.FixtureRequest
) -> None:
    client, _, job_id, page = request.getfixturevalue(kind)
    own, cancelling_en, cancelling_zh = LIVE[kind]
    html = client.get(page).text
    panel = panel_of(html)
    expected = [tag for tag in LIVE_SHAPE if kind != "live_analysis" or tag[0] not in UNCOUNTED]
    assert panel.shape == expected, kind
    assert panel.actions == [f"/jobs/{job_id}/cancel?back={page}"]
    assert f'sse-connect="{page}/events"' in html and own in html

    cancelled = client.post(panel.actions[0], follow_redirects=False)
    assert cancelled.status_code == 303 and cancelled.headers["location"] == page
    after = client.get(page).text
    assert panel_of(after).actions == [] and 'data-state="cancelling"' in after
    assert cancelling_en in after and cancelling_zh in client.get(page, headers=ZH).text
