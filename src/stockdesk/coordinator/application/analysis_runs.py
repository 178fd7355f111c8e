"""Analyses run as jobs: started now, run in the job executor, followed live by any number of pages.

The web UI and the REST API start an analysis here and get its session id at once; progress (every
planned step's state, LLM calls, tokens, elapsed time, an estimate of the time left) is read from the
live run while this process runs it and from the stored session afterwards, so a page reload or a
second tab sees the same progress. A session stored as `running` that no live run here owns is run
by another process (the CLI) while that process lives; once it is dead the session is marked
`interrupted` (coordinator_service.mark_interrupted) and reads so, with its real elapsed time.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime

from pydantic import BaseModel, Field

from stockdesk.coordinator.application.coordinator_service import ResearchCoordinatorService
from stockdesk.coordinator.application.run_steps import (
    StepPlan,
    StepProgress,
    Typical,
    eta_seconds,
    plan_for,
    plan_of,
    steps,
)
from stockdesk.coordinator.domain.dtos.session import NodeExecution, ResearchRequest, ResearchSession
from stockdesk.coordinator.domain.model.enums import SessionStatus
from stockdesk.shared.tasks.dtos import FINISHED_RUN_STATES, RunState
from stockdesk.shared.tasks.executor import JobExecutor

KIND = "analysis"


class AnalysisProgress(BaseModel):
    """One analysis as its progress view shows it; `finished` once nothing will change any more."""

    session_id: str
    symbol: str
    as_of: date | None = None
    state: RunState
    nodes: list[NodeExecution] = Field(default_factory=list, description="in the order they started")
    steps: list[StepProgress] = Field(
        default_factory=list, description="every planned step in run order, pending ones included"
    )
    eta_seconds: float | None = Field(
        default=None, description="seconds left, from past runs' step timings; None: no estimate"
    )
    eta_runs: int = Field(default=0, description="how many past runs the estimate rests on")
    llm_calls: int = 0
    tokens: int = 0
    elapsed_seconds: float = 0.0
    error: str | None = None
    action: str | None = Field(default=None, description="the verdict's action, once there is one")

    @property
    def finished(self) -> bool:
        return self.state in FINISHED_RUN_STATES


class _Live:
    """A run of this process: its node events as they come (any thread), under a lock."""

    def __init__(self, session_id: str, symbol: str, as_of: date | None, plan: StepPlan, typical: Typical):
        self.session_id, self.symbol, self.as_of = session_id, symbol, as_of
        self.plan, self.typical = plan, typical
        self.started = time.monotonic()
        self.state: RunState = "queued"
        self.error: str | None = None
        self.nodes: dict[str, NodeExecution] = {}
        self.lock = threading.Lock()

    def observe(self, event: NodeExecution) -> None:
        with self.lock:
            if self.state == "queued":
                self.state = "running"
            self.nodes[event.node] = event


class AnalysisRuns:
    def __init__(
        self,
        service: ResearchCoordinatorService,
        jobs: Callable[[], JobExecutor],
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
    ):
        self._service = service
        self._jobs = jobs
        self._new_id = new_id
        self._live: dict[str, _Live] = {}
        self._lock = threading.Lock()

    def start(self, request: ResearchRequest) -> AnalysisProgress:
        """Check the request now (404 unknown symbol, 400 no experts), then queue it as a job."""
        symbol, as_of = self._service.check_request(request)
        return self._submit(request.model_copy(update={"symbol": symbol}), None, as_of)

    def retry(self, session_id: str) -> AnalysisProgress:
        """A new session rerunning only what failed in `session_id` (404 unknown, 400 nothing
        failed, both before anything is queued); it reuses the rest and names its parent."""
        parent, request = self._service.retry_request(session_id)
        return self._submit(request, parent, request.as_of or parent.as_of)

    def _submit(
        self, request: ResearchRequest, parent: ResearchSession | None, as_of: date | None
    ) -> AnalysisProgress:
        plan = plan_for(request, parent.expert_results if parent else ())
        typical = self._service.typical_steps(plan.rules)
        live = _Live(self._new_id(), request.symbol, as_of, plan, typical)
        with self._lock:
            self._live[live.session_id] = live
        try:
            self._jobs().submit(KIND, live.session_id, lambda: self._run(live, request, parent))
        except Exception:
            with self._lock:
                self._live.pop(live.session_id, None)
            raise
        return self._from_live(live)

    def _run(self, live: _Live, request: ResearchRequest, parent: ResearchSession | None) -> None:
        try:
            self._service.run(request, session_id=live.session_id, observer=live.observe, parent=parent)
        except Exception as exc:
            with live.lock:
                live.error = getattr(exc, "message", None) or str(exc) or type(exc).__name__
            raise
        finally:
            with self._lock:  # the stored session tells the rest from now on
                self._live.pop(live.session_id, None)

    def cancel(self, session_id: str) -> AnalysisProgress:
        """Ask a queued or running analysis to stop before its next node (404 when unknown)."""
        with self._lock:
            live = self._live.get(session_id)
        if live is not None and self._jobs().cancel(session_id, "cancelled by the user"):
            with live.lock:
                live.state = "cancelling"
        return self.progress(session_id)

    def progress(self, session_id: str) -> AnalysisProgress:
        with self._lock:
            live = self._live.get(session_id)
        if live is not None:
            return self._from_live(live)
        return self._from_session(self._service.get(session_id))

    def _from_live(self, live: _Live) -> AnalysisProgress:
        calls, tokens = self._service.usage(live.session_id)
        with live.lock:
            state, nodes, error = live.state, list(live.nodes.values()), live.error
        if state == "cancelling":  # the run saved itself as cancelled; its threads are winding down
            stored = self._service.find(live.session_id)
            if stored is not None and stored.status is SessionStatus.CANCELLED:
                return self._from_session(stored)
        progress = steps(live.plan, nodes, _now(), False, live.typical)
        return AnalysisProgress(
            session_id=live.session_id,
            symbol=live.symbol,
            as_of=live.as_of,
            state=state,
            nodes=nodes,
            steps=progress,
            eta_seconds=eta_seconds(live.plan, progress),
            eta_runs=live.typical.runs,
            llm_calls=calls,
            tokens=tokens,
            elapsed_seconds=round(time.monotonic() - live.started, 1),
            error=error,
        )

    def _from_session(self, session: ResearchSession) -> AnalysisProgress:
        if session.status is SessionStatus.RUNNING:  # no run here owns it: is its process alive?
            self._service.mark_interrupted()
            session = self._service.get(session.id)
        state: RunState = session.status.value  # type: ignore[assignment]
        running = session.status is SessionStatus.RUNNING  # in another process (the CLI)
        elapsed = session.duration_seconds
        if running:
            elapsed = (_now() - session.started_at).total_seconds()
        elif elapsed is None and session.finished_at is not None:
            elapsed = (session.finished_at - session.started_at).total_seconds()
        plan = plan_of(session)
        typical = self._service.typical_steps(plan.rules) if running else Typical({}, 0)
        progress = steps(plan, _ordered(session.nodes), _now(), not running, typical)
        return AnalysisProgress(
            session_id=session.id,
            symbol=session.symbol,
            as_of=session.as_of,
            state=state,
            nodes=_ordered(session.nodes),
            steps=progress,
            eta_seconds=eta_seconds(plan, progress) if running else None,
            eta_runs=typical.runs,
            llm_calls=session.llm_calls,
            tokens=session.tokens,
            elapsed_seconds=round(elapsed or 0.0, 1),
            error=session.errors.get("cancelled") or session.errors.get("interrupted"),
            action=str(session.verdict.get("action") or "") or None,
        )

    def state_of(self, session_id: str, status: SessionStatus) -> RunState:
        """A listed session's state as its progress reads: `running` that no run here owns is
        `interrupted` (lists show the same word as the session's own page)."""
        if status is not SessionStatus.RUNNING:
            return status.value  # type: ignore[return-value]
        with self._lock:
            live = self._live.get(session_id)
        if live is None:
            return self.progress(session_id).state
        with live.lock:
            return live.state

    def active(self) -> list[AnalysisProgress]:
        """The analyses this process is running or has queued, oldest first."""
        with self._lock:
            lives = sorted(self._live.values(), key=lambda live: live.started)
        return [self._from_live(live) for live in lives]


def _now() -> datetime:
    return datetime.now(UTC)


def _ordered(nodes: list[NodeExecution]) -> list[NodeExecution]:
    """Stored node executions in start order; one row per node (its last state)."""
    last: dict[str, NodeExecution] = {}
    for node in nodes:
        last[node.node] = node
    far = datetime.max.replace(tzinfo=None)
    return sorted(
        last.values(),
        key=lambda n: (n.started_at.replace(tzinfo=None) if n.started_at else far, n.node),
    )
