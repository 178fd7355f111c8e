"""Cancellation that cancels, and sessions whose process died (issue 32, item 1).

- A cancel cuts the LLM call in flight: a 30 s reply, cancelled, ends the session `cancelled` in
  seconds with what finished kept.
- Every planned step is listed (pending, running, done, skipped) with an estimate of the time left
  from past runs' step timings.
- A session left `running` by a dead process is marked `interrupted` by the next process that opens
  the store, with its elapsed time up to its last heartbeat and the steps it finished; one running in
  a live process (the CLI) is left alone and reads `running`.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

from stockdesk.coordinator.application import ResearchRequest, ResearchSession
from stockdesk.coordinator.application.run_steps import StepPlan, Typical, eta_seconds, steps
from stockdesk.coordinator.domain.dtos.session import NodeExecution
from stockdesk.coordinator.domain.model.enums import NodeStatus, SessionStatus
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, Router, died, pipeline

URL = "/api/v1/coordinator/research"
BODY = {"symbol": SYMBOL, "as_of": AS_OF.isoformat(), "experts": ["valuation_modeler", "financial_auditor"]}
T0 = datetime(2026, 11, 29, 1, 0, tzinfo=UTC)


def _state(client, session_id: str) -> dict:
    return client.get(f"{URL}/jobs/{session_id}").json()


def _until(client, session_id: str, states: set[str], seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        body = _state(client, session_id)
        if body["state"] in states or time.monotonic() > deadline:
            return body
        time.sleep(0.05)


def test_a_cancel_cuts_the_llm_call_in_flight_and_the_session_ends_cancelled_within_5_s(
    settings: Settings,
) -> None:
    container, _, provider = pipeline(settings)
    provider.latency_seconds = 30.0  # every reply takes 30 s: only cutting the call ends it sooner
    client = api_client(container)
    session_id = client.post(f"{URL}/jobs", json=BODY).json()["session_id"]
    deadline = time.monotonic() + 30
    while provider.calls == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert provider.calls >= 1, "no LLM call started"
    asked = time.monotonic()
    assert client.post(f"/api/v1/jobs/{session_id}/cancel").status_code == 202
    body = _until(client, session_id, {"cancelled"}, 10)
    took = time.monotonic() - asked
    assert body["state"] == "cancelled", body
    assert took < 5.0, f"cancelled after {took:.1f} s"
    stored = container.coordinator.service.get(session_id)
    assert stored.status is SessionStatus.CANCELLED and stored.duration_seconds is not None
    states = {n.node: n.status for n in stored.nodes}
    assert NodeStatus.CANCELLED in states.values(), states  # the expert whose call was cut
    steps_by_node = {s["node"]: s["state"] for s in body["steps"]}
    assert steps_by_node["judge_node"] == "not_run" and steps_by_node["debate_node"] == "not_run"


def test_a_run_cancelled_in_its_debate_keeps_the_experts_results(settings: Settings) -> None:
    """ "what finished kept": the experts answered before the cancel, so their results and the
    aggregation are stored with the cancelled session (the graph never returns its state)."""
    container, _, provider = pipeline(settings)
    client = api_client(container)
    session_id = client.post(f"{URL}/jobs", json=BODY).json()["session_id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        steps = {s["node"]: s["state"] for s in _state(client, session_id)["steps"]}
        if steps.get("aggregator_node") == "done":
            break
        time.sleep(0.02)
    provider.latency_seconds = 30.0  # the debate's calls from now on take 30 s
    time.sleep(0.3)
    assert client.post(f"/api/v1/jobs/{session_id}/cancel").status_code == 202
    assert _until(client, session_id, {"cancelled"}, 10)["state"] == "cancelled"
    stored = container.coordinator.service.get(session_id)
    assert set(stored.expert_results) == {"valuation_modeler", "financial_auditor"}
    assert stored.aggregation and stored.verdict == {}
    page = client.get(f"/sessions/{session_id}").text
    assert "no result" not in page.lower()


def test_progress_lists_every_planned_step_and_estimates_the_time_left(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    service = container.coordinator.service
    service.run(
        ResearchRequest(symbol=SYMBOL, as_of=AS_OF, experts=["valuation_modeler", "financial_auditor"])
    )
    client = api_client(container)
    gate = threading.Event()
    original = container.llm_service.generate

    def held(*args, **kwargs):  # the second run waits at its first call: its progress is read mid-way
        assert gate.wait(30)
        return original(*args, **kwargs)

    container.llm_service.generate = held  # type: ignore[method-assign]
    try:
        session_id = client.post(f"{URL}/jobs", json=BODY).json()["session_id"]
        body = _until(client, session_id, {"running"}, 10)
        listed = [s["node"] for s in body["steps"]]
        assert listed == [
            "valuation_modeler",
            "financial_auditor",
            "aggregator_node",
            "debate_node",
            "judge_node",
        ]
        assert {s["state"] for s in body["steps"][2:]} == {"pending"}
        assert body["eta_runs"] == 1 and body["eta_seconds"] is not None and body["eta_seconds"] >= 0
        assert all(s["typical_seconds"] is not None for s in body["steps"][:3])
        assert body["as_of"] == AS_OF.isoformat()
    finally:
        gate.set()
    final = _until(client, session_id, {"completed", "partial"}, 60)
    assert {s["state"] for s in final["steps"]} <= {"done", "skipped"} and final["eta_seconds"] is None


def test_the_estimate_takes_the_slowest_expert_then_each_later_step() -> None:
    plan = StepPlan(experts=("a", "b"))
    typical = Typical(
        {"a": 5.0, "b": 10.0, "aggregator_node": 0.1, "debate_node": 20.0, "judge_node": 8.0}, 3
    )
    events = [
        NodeExecution(node="a", status=NodeStatus.DONE, started_at=T0, seconds=4.0),
        NodeExecution(node="b", status=NodeStatus.RUNNING, started_at=T0),
    ]
    progress = steps(plan, events, T0 + timedelta(seconds=3), False, typical)
    assert [(s.node, s.state) for s in progress] == [
        ("a", "done"), ("b", "running"), ("aggregator_node", "pending"), ("debate_node", "pending"),
        ("judge_node", "pending"),
    ]  # fmt: skip
    assert progress[1].seconds == 3.0
    assert eta_seconds(plan, progress) == 35.1  # (10 - 3) + 0.1 + 20 + 8
    rules = StepPlan(experts=("a", "b"), rules=True)
    assert eta_seconds(rules, steps(rules, events, T0 + timedelta(seconds=3), False, typical)) == 15.1
    unknown = Typical({"a": 5.0}, 1)
    assert eta_seconds(plan, steps(plan, events, T0, False, unknown)) is None  # no timing: no estimate
    ended = steps(plan, events, T0, True, typical)
    assert [s.state for s in ended] == ["done", "not_run", "not_run", "not_run", "not_run"]


def test_a_session_whose_process_died_is_marked_interrupted_with_its_real_elapsed_time(
    settings: Settings,
) -> None:
    container, _, _ = pipeline(settings)
    repository = container.coordinator.repository
    started = datetime.now(UTC) - timedelta(minutes=5)
    repository.save(
        ResearchSession(
            id="killed", symbol=SYMBOL, as_of=AS_OF, experts=["valuation_modeler", "financial_auditor"],
            started_at=started,
        )
    )  # fmt: skip
    repository.add_node(
        "killed",
        NodeExecution(
            node="valuation_modeler", status=NodeStatus.DONE, started_at=started,
            finished_at=started + timedelta(seconds=12), seconds=12.0,
        ),
    )  # fmt: skip
    died(container.database, "killed", heartbeat_at=started + timedelta(seconds=42))

    reopened = AppContainer(settings)  # the next process to open the store
    session = reopened.coordinator.service.get("killed")
    assert session.status is SessionStatus.INTERRUPTED
    assert session.duration_seconds == 42.0  # up to its last heartbeat, not 0 and not "until now"
    assert [(n.node, n.status) for n in session.nodes] == [("valuation_modeler", NodeStatus.DONE)]
    assert "killed or crashed" in session.errors["interrupted"]
    body = api_client(reopened).get(f"{URL}/jobs/killed").json()
    assert body["state"] == "interrupted" and body["elapsed_seconds"] == 42.0
    assert [s["state"] for s in body["steps"]][:2] == ["done", "not_run"]


def test_a_session_running_in_another_live_process_reads_running_and_is_not_marked(
    settings: Settings,
) -> None:
    container, _, _ = pipeline(settings)
    started = datetime.now(UTC) - timedelta(seconds=20)
    container.coordinator.repository.save(  # saved by this (live) process, as the CLI's run would be
        ResearchSession(id="cli-run", symbol=SYMBOL, experts=["valuation_modeler"], started_at=started)
    )
    reopened = AppContainer(settings)
    body = api_client(reopened).get(f"{URL}/jobs/cli-run").json()
    assert body["state"] == "running" and body["elapsed_seconds"] >= 20
    assert reopened.coordinator.service.get("cli-run").status is SessionStatus.RUNNING


def test_a_running_session_keeps_its_finished_steps_and_heartbeat_in_the_store(settings: Settings) -> None:
    """What the interrupted session's page rests on: finished steps are stored as they finish."""
    router = Router()
    container, _, _ = pipeline(settings, router)
    seen: list[tuple[list[str], int]] = []
    repository = container.coordinator.repository

    def observer(event: NodeExecution) -> None:
        if event.node == "aggregator_node":  # both experts have finished by now
            time.sleep(0.3)  # the pulse thread writes off the event loop
            stored = repository.get(session_id)
            assert stored is not None
            seen.append(([n.node for n in stored.nodes], stored.llm_calls))

    session_id = "pulse"
    container.coordinator.service.run(
        ResearchRequest(symbol=SYMBOL, as_of=AS_OF, experts=["valuation_modeler", "financial_auditor"]),
        session_id=session_id,
        observer=observer,
    )
    assert seen and set(seen[0][0]) >= {"valuation_modeler", "financial_auditor"}
    assert seen[0][1] >= 2  # the experts' calls so far, kept with the heartbeat
    final = repository.get(session_id)
    assert final is not None and len(final.nodes) == len({n.node for n in final.nodes})  # no duplicates
