"""`data sync` as a job of the server: started now, run in the job executor, followed by any number of pages.

A run is a durable job of the task store (kind "sync"), one task per symbol in the order asked; each
task calls `SyncService.sync` for its symbol and stores that symbol's outcomes and failures as its
result. So the progress of a run is read from the store (a page reload or a second tab sees the
same), with the dataset being fetched right now added from this process's live registry. A run
the store shows as unfinished that no live run here owns was cut off (the server stopped): it reads
as `interrupted`. The job id is the sync's run id (the `sync_failures` rows carry it).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.data_engineering.application.sync_service import (
    DATASETS,
    DatasetOutcome,
    SyncFailure,
    SyncService,
)
from stockdesk.shared.errors import NotFoundException
from stockdesk.shared.tasks import ITaskStore, JobStatus, TaskRecord, TaskStatus, run_tasks
from stockdesk.shared.tasks.dtos import FINISHED_RUN_STATES, RunState
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.shared.tasks.keys import indexed_key, item_of

KIND = "sync"


class SymbolSync(BaseModel):
    """One symbol of a run: `state` pending | running | ok | partial | failed | up-to-date | not-run."""

    symbol: str
    state: str
    dataset: str | None = Field(default=None, description="the dataset being fetched now")
    outcomes: list[DatasetOutcome] = Field(default_factory=list)
    failures: list[SyncFailure] = Field(default_factory=list)
    error: str | None = Field(default=None, description="the symbol's sync itself broke (not a provider)")


class SyncProgress(BaseModel):
    run_id: str
    market: str
    start: date
    end: date
    datasets: list[str] = Field(
        default_factory=lambda: list(DATASETS), description="what each symbol fetches"
    )
    state: RunState
    symbols: list[SymbolSync]
    done: int = 0
    total: int = 0
    derived_valuations: int = 0
    error: str | None = None
    created_at: datetime | None = None

    @property
    def finished(self) -> bool:
        return self.state in FINISHED_RUN_STATES


class _Live:
    """A run of this process: where it is now (any thread), under a lock."""

    def __init__(self) -> None:
        self.state: RunState = "queued"
        self.symbol: str | None = None
        self.dataset: str | None = None
        self.lock = threading.Lock()

    def observe(self, symbol: str, dataset: str | None) -> None:
        with self.lock:
            if self.state == "queued":
                self.state = "running"
            self.symbol, self.dataset = symbol, dataset


class SyncRuns:
    def __init__(
        self,
        service: SyncService,
        tasks: ITaskStore,
        jobs: Callable[[], JobExecutor],
        new_nonce: Callable[[], str] = lambda: uuid.uuid4().hex,
    ):
        self._service = service
        self._tasks = tasks
        self._jobs = jobs
        self._new_nonce = new_nonce
        self._live: dict[str, _Live] = {}
        self._lock = threading.Lock()

    def start(
        self, market: str, symbols: list[str], start: date, end: date, datasets: list[str] | None = None
    ) -> SyncProgress:
        """Check the request now (400: market, symbols, dates, datasets), then queue the run as a job."""
        market, wanted, start, end = self._service.plan(market, symbols, start, end)
        chosen = self._service.datasets(datasets)
        config: dict[str, Any] = {
            "market": market,
            "symbols": wanted,
            "start": start.isoformat(),
            "end": end.isoformat(),
            "nonce": self._new_nonce(),  # every start is a new run (a rerun resumes from the sync state)
        }
        if chosen != DATASETS:  # a run of the default datasets is stored as before
            config["datasets"] = list(chosen)
        keys = [indexed_key(i, s) for i, s in enumerate(wanted, 1)]
        job, _ = self._tasks.open_with_tasks(KIND, config, keys)
        live = _Live()
        with self._lock:
            self._live[job.id] = live
        try:
            self._jobs().submit(KIND, job.id, lambda: self._run(job.id, live))
        except Exception:
            with self._lock:
                self._live.pop(job.id, None)
            self._tasks.set_job_status(job.id, JobStatus.FAILED, "refused: the job queue is full")
            raise
        return self.progress(job.id)

    def _run(self, run_id: str, live: _Live) -> None:
        config = self._config(run_id)
        start, end = date.fromisoformat(config["start"]), date.fromisoformat(config["end"])

        def work(keys: list[str]) -> dict[str, Any]:
            answer: dict[str, Any] = {}
            for key in keys:
                summary = self._service.sync(
                    config["market"],
                    [item_of(key)],
                    start,
                    end,
                    run_id,
                    live.observe,
                    config.get("datasets"),
                )
                answer[key] = {
                    "outcomes": [o.model_dump(mode="json") for o in summary.outcomes],
                    "failures": [f.model_dump(mode="json") for f in summary.failures],
                    "status": summary.symbol_status.get(item_of(key), "failed"),
                    "derived_valuations": summary.derived_valuations,
                }
            return answer

        try:
            with live.lock:
                live.state = "running" if live.state == "queued" else live.state
            run_tasks(self._tasks, run_id, work, batch_size=1, max_attempts=1)
        finally:
            with self._lock:  # the store tells the rest from now on
                self._live.pop(run_id, None)

    def cancel(self, run_id: str) -> SyncProgress:
        """Stop before the next symbol (404 when unknown); a finished run is answered as it is."""
        progress = self.progress(run_id)
        with self._lock:
            live = self._live.get(run_id)
        if live is not None and self._jobs().cancel(run_id, "cancelled by the user"):
            with live.lock:
                live.state = "cancelling"
            return self.progress(run_id)
        return progress

    def progress(self, run_id: str) -> SyncProgress:
        job = self._tasks.get_job(run_id)
        if job is None or job.kind != KIND:
            raise NotFoundException(
                f"no sync run {run_id}", code="SYNC_RUN_NOT_FOUND", details={"id": run_id}
            )
        live, status = self._owned(run_id, job.status)
        now_symbol = now_dataset = None
        live_state: RunState | None = None
        if live is not None:
            with live.lock:
                live_state, now_symbol, now_dataset = live.state, live.symbol, live.dataset
            if self._jobs().state_of(run_id) == "cancelling":  # cancelled by the jobs API or page
                live_state = "cancelling"
        tasks = self._tasks.tasks(run_id)
        symbols = [_symbol(t, now_symbol, now_dataset, live is not None) for t in tasks]
        config = job.config
        state = live_state or _finished_state(status, symbols)
        return SyncProgress(
            run_id=run_id,
            market=config["market"],
            start=date.fromisoformat(config["start"]),
            end=date.fromisoformat(config["end"]),
            datasets=config.get("datasets") or list(DATASETS),
            state=state,
            symbols=symbols,
            done=sum(t.status in (TaskStatus.DONE, TaskStatus.FAILED) for t in tasks),
            total=len(tasks),
            derived_valuations=sum(int((t.result or {}).get("derived_valuations", 0)) for t in tasks),
            error=_error(state, job.error),
            created_at=job.created_at,
        )

    def _owned(self, run_id: str, status: JobStatus) -> tuple[_Live | None, JobStatus]:
        """The live run, if this process still has it: a run cancelled while queued never starts, so
        its entry is dropped here and the stored job marked cancelled."""
        with self._lock:
            live = self._live.get(run_id)
        if live is None or self._jobs().is_active(run_id):
            return live, status
        with self._lock:
            self._live.pop(run_id, None)
        if status is JobStatus.PENDING:  # it left the executor without starting: it was cancelled
            self._tasks.set_job_status(run_id, JobStatus.CANCELLED, "cancelled before it started")
            return None, JobStatus.CANCELLED
        return None, status

    def recent(self, limit: int = 10) -> list[SyncProgress]:
        """The latest runs (live or stored), newest first."""
        return [self.progress(job.id) for job in self._tasks.list_jobs(KIND, limit)]

    def _config(self, run_id: str) -> dict[str, Any]:
        job = self._tasks.get_job(run_id)
        if job is None:
            raise NotFoundException(
                f"no sync run {run_id}", code="SYNC_RUN_NOT_FOUND", details={"id": run_id}
            )
        return job.config


def _symbol(task: TaskRecord, now_symbol: str | None, now_dataset: str | None, live: bool) -> SymbolSync:
    symbol = item_of(task.key)
    result = task.result or {}
    if task.status is TaskStatus.DONE:
        return SymbolSync(
            symbol=symbol,
            state=str(result.get("status", "ok")),
            outcomes=[DatasetOutcome.model_validate(o) for o in result.get("outcomes", [])],
            failures=[SyncFailure.model_validate(f) for f in result.get("failures", [])],
        )
    if task.status is TaskStatus.FAILED:
        return SymbolSync(symbol=symbol, state="failed", error=task.error)
    if live and task.status is TaskStatus.RUNNING:
        dataset = now_dataset if now_symbol == symbol else None
        return SymbolSync(symbol=symbol, state="running", dataset=dataset)
    return SymbolSync(symbol=symbol, state="pending" if live else "not-run")


def _finished_state(status: JobStatus, symbols: list[SymbolSync]) -> RunState:
    """A stored run's state: cancelled/interrupted as stored; a done run by how its symbols went."""
    if status is JobStatus.CANCELLED:
        return "cancelled"
    if status in (JobStatus.INTERRUPTED, JobStatus.PENDING, JobStatus.RUNNING):
        return "interrupted"  # nothing here runs it any more
    states = {s.state for s in symbols}
    if not states & {"ok", "partial", "up-to-date"}:
        return "failed"  # every symbol failed (or the run broke before any finished)
    return "partial" if states & {"failed", "partial", "not-run"} else "completed"


def _error(state: RunState, stored: str | None) -> str | None:
    """Why a run stopped; a finished run's per-symbol failures are on its symbols, not here."""
    if state == "interrupted":
        return stored or "the server stopped while this sync ran; start it again (done datasets are kept)"
    if state == "cancelled":
        return stored or "cancelled"
    return stored if state == "failed" else None
