"""Analyses as jobs (what the web UI starts): answered at once, followed by polling or SSE, cancellable."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime

from stockdesk.coordinator.application import ResearchSession
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, Router, died, pipeline

URL = "/api/v1/coordinator/research"
BODY = {"symbol": SYMBOL, "as_of": AS_OF.isoformat(), "experts": ["valuation_modeler", "financial_auditor"]}


def _wait(client, session_id: str, seconds: float = 60.0) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        body = client.get(f"{URL}/jobs/{session_id}").json()
        if body["state"] in ("completed", "partial", "failed", "cancelled", "interrupted"):
            return body
        assert time.monotonic() < deadline, f"still {body['state']}"
        time.sleep(0.05)


class GatedRouter(Router):
    """Holds every model call until `release` is set, so a test can act while the run is mid-way."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, request: CompletionRequest) -> str:
        self.entered.set()
        assert self.release.wait(30), "the test never released the model"
        return super().__call__(request)


def test_an_analysis_job_answers_at_once_and_its_progress_ends_in_the_stored_session(
    settings: Settings,
) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    started = client.post(f"{URL}/jobs", json=BODY)
    assert started.status_code == 202, started.text
    session_id = started.json()["session_id"]
    assert started.json()["state"] in ("queued", "running") and started.json()["symbol"] == SYMBOL

    final = _wait(client, session_id)
    assert final["state"] == "completed" and final["action"] == "HOLD"
    nodes = {n["node"]: n["status"] for n in final["nodes"]}
    assert nodes["valuation_modeler"] == "done" and nodes["financial_auditor"] == "done"
    assert "judge_node" in nodes
    assert final["llm_calls"] > 0 and final["tokens"] > 0
    stored = client.get(f"{URL}/sessions/{session_id}").json()
    assert stored["status"] == "completed" and stored["id"] == session_id


def test_an_unknown_symbol_is_refused_before_any_job_starts(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    answer = client.post(f"{URL}/jobs", json={**BODY, "symbol": "688999.SH"})
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "STOCK_NOT_FOUND", answer.text
    assert client.get(f"{URL}/sessions").json()["total"] == 0
    assert container.jobs.active() == []
    assert client.post(f"{URL}/jobs", json={**BODY, "experts": []}).status_code == 400


def test_a_cancelled_analysis_stops_before_its_next_node_and_is_stored_as_cancelled(
    settings: Settings,
) -> None:
    router = GatedRouter()
    container, _, _ = pipeline(settings, router)
    client = api_client(container)
    session_id = client.post(f"{URL}/jobs", json=BODY).json()["session_id"]
    assert router.entered.wait(30), "the experts never called the model"
    assert client.get(f"{URL}/jobs/{session_id}").json()["state"] == "running"

    cancelling = client.post(f"{URL}/jobs/{session_id}/cancel")
    assert cancelling.status_code == 202 and cancelling.json()["state"] == "cancelling"
    router.release.set()
    final = _wait(client, session_id)
    assert final["state"] == "cancelled" and "cancelled by the user" in final["error"]
    stored = client.get(f"{URL}/sessions/{session_id}").json()
    assert stored["status"] == "cancelled" and not stored["verdict"]
    assert "judge_node" not in {n["node"] for n in stored["nodes"]}  # the run stopped before the judge


def test_the_event_stream_sends_each_change_then_done(settings: Settings) -> None:
    router = GatedRouter()
    container, _, _ = pipeline(settings, router)
    client = api_client(container)
    session_id = client.post(f"{URL}/jobs", json=BODY).json()["session_id"]
    assert router.entered.wait(30)
    events: list[tuple[str, str]] = []
    with client.stream("GET", f"{URL}/jobs/{session_id}/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        name = ""
        for line in stream.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                events.append((name, line[6:]))
                if len(events) == 1:
                    router.release.set()  # the first state was sent while the experts waited
            if events and events[-1][0] == "done":
                break
    progress = [json.loads(data) for name, data in events if name == "progress"]
    assert progress[0]["state"] == "running" and progress[-1]["state"] == "completed"
    assert len(progress) >= 2 and len({json.dumps(p, sort_keys=True) for p in progress}) == len(progress)
    assert events[-1][0] == "done"


def test_a_session_left_running_by_a_stopped_server_reads_as_interrupted(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    container.coordinator.repository.save(
        ResearchSession(
            id="cut-off", symbol=SYMBOL, experts=["valuation_modeler"], started_at=datetime.now(UTC)
        )
    )
    died(container.database, "cut-off")
    client = api_client(container)
    body = client.get(f"{URL}/jobs/cut-off").json()
    assert body["state"] == "interrupted" and "killed or crashed" in body["error"]
    assert client.get(f"{URL}/jobs/nope").status_code == 404
    assert client.get(f"{URL}/jobs/nope/events").status_code == 404
