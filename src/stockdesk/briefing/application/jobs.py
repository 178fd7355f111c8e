"""Briefings as durable jobs of the one task system (`shared.tasks`), for the REST API.

A job is named by its checked request (`BriefingRequest.config()`): posting the same request again
names the same job, so a finished briefing is served again and an interrupted one resumes without
redoing a finished ticker. Tasks, in key order: `01:AAPL`, `02:NVDA`, ... (one per ticker: debate +
worker + checks, its `TickerPart` stored as the result), then `99:refine` (merge + refiner + edits,
the `BriefingResult` stored as the result). Tickers run `slots` at a time; once one fails, the
tasks after it are not run (they fail as skipped) and the job fails naming the ticker. Each
`execute` gives every unfinished task one more attempt.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.briefing.application.requests import BriefingRequest
from stockdesk.briefing.application.results import BriefingResult, TickerPart
from stockdesk.briefing.application.service import BriefingService
from stockdesk.briefing.domain.errors import BriefingTickerError
from stockdesk.debate.application.parallel import run_bounded
from stockdesk.shared.errors import ConflictException, NotFoundException
from stockdesk.shared.tasks import ITaskStore, JobStatus, TaskRecord, TaskStatus, config_hash, run_tasks
from stockdesk.shared.tasks.keys import indexed_key, item_of

JOB_KIND = "briefing"
REFINE_KEY = "99:refine"


def ticker_key(index: int, ticker: str) -> str:
    return indexed_key(index, ticker, width=2)


class BriefingStep(BaseModel):
    key: str
    ticker: str | None = Field(default=None, description="None for the refine step")
    status: str
    attempts: int = 0
    error: str | None = None


class BriefingJob(BaseModel):
    job_id: str
    status: str = Field(description="pending | running | done | failed | interrupted")
    date: str
    tickers: list[str]
    done: int
    total: int = Field(description="one step per ticker plus the refine step")
    steps: list[BriefingStep]
    error: str | None = None


class StepSkippedError(ConflictException):
    """A step not run because an earlier ticker failed (not itself a cause of the failure)."""

    code = "BRIEFING_STEP_SKIPPED"


class BriefingJobs:
    def __init__(self, service: BriefingService, tasks: ITaskStore):
        self._service = service
        self._tasks = tasks
        self._running: set[str] = set()  # jobs executing in this process
        self._lock = threading.Lock()

    def start(
        self, day: Any, tickers: Any, base_script: Any = None, max_rounds: int | None = None
    ) -> BriefingJob:
        """Check the request (400s) and the tickers (404 UNKNOWN_TICKER), open or reopen its job."""
        request = self._service.request(day, tickers, base_script, max_rounds)
        config = request.config()
        digest = config_hash(config)
        with self._lock:  # reopening a job this process is running would reset its running tasks
            live = next((j for j in self._running if self._hash_of(j) == digest), None)
        if live is not None:
            return self.status(live)
        self._service.preflight(request)
        keys = [ticker_key(i, t) for i, t in enumerate(request.tickers, 1)]
        job, _ = self._tasks.open_with_tasks(JOB_KIND, config, [*keys, REFINE_KEY], digest=digest)
        return self.status(job.id)

    def status(self, job_id: str) -> BriefingJob:
        job = self._tasks.get_job(job_id)
        if job is None or job.kind != JOB_KIND:
            raise NotFoundException(
                f"no briefing {job_id}", code="BRIEFING_NOT_FOUND", details={"id": job_id}
            )
        request = BriefingRequest.from_config(job.config)
        tasks = self._tasks.tasks(job_id)
        steps = [
            BriefingStep(
                key=t.key, ticker=None if t.key == REFINE_KEY else item_of(t.key),
                status=t.status.value, attempts=t.attempts, error=t.error,
            )
            for t in tasks
        ]  # fmt: skip
        return BriefingJob(
            job_id=job.id, status=job.status.value, date=request.day, tickers=request.tickers,
            done=sum(t.status is TaskStatus.DONE for t in tasks), total=len(tasks), steps=steps,
            error=job.error,
        )  # fmt: skip

    def recent(self, limit: int = 20) -> list[BriefingJob]:
        """The newest briefings first, with their progress."""
        return [self.status(job.id) for job in self._tasks.list_jobs(JOB_KIND, limit)]

    def is_running(self, job_id: str) -> bool:
        with self._lock:
            return job_id in self._running

    def execute(self, job_id: str) -> BriefingJob:
        """Run what the job still lacks; returns at once if this process is already running it."""
        job = self.status(job_id)
        with self._lock:
            if job_id in self._running:
                return job
            self._running.add(job_id)
        try:
            self._execute(job_id)
        finally:
            with self._lock:
                self._running.discard(job_id)
        return self.status(job_id)

    def _execute(self, job_id: str) -> None:
        stored = self._tasks.get_job(job_id)
        assert stored is not None
        request = BriefingRequest.from_config(stored.config)
        failures: list[str] = []
        tried = [t.attempts for t in self._tasks.tasks(job_id) if t.status is not TaskStatus.DONE]
        attempts = 1 + max(tried, default=0)

        def work(keys: list[str]) -> dict[str, Any]:
            if failures:
                return {k: StepSkippedError(f"not run: {failures[0]} failed") for k in keys}
            answer: dict[str, Any] = {}
            tickers = [item_of(k) for k in keys if k != REFINE_KEY]
            calls = [partial(self._service.ticker_part, request, ticker) for ticker in tickers]
            for key, outcome in zip(
                [k for k in keys if k != REFINE_KEY],
                run_bounded(calls, slots=self._service.slots, name="briefing"),
                strict=True,
            ):
                if isinstance(outcome, Exception):
                    failures.append(item_of(key))
                    answer[key] = outcome
                else:
                    answer[key] = outcome.model_dump(mode="json")
            if REFINE_KEY in keys:
                answer[REFINE_KEY] = self._refine(job_id, request, answer, failures)
            return answer

        run_tasks(
            self._tasks, job_id, work, batch_size=self._service.slots, max_attempts=attempts,
            failure_words=_causes,
        )  # fmt: skip

    def _refine(
        self, job_id: str, request: BriefingRequest, fresh: dict[str, Any], failures: list[str]
    ) -> dict[str, Any] | Exception:
        if failures:
            return StepSkippedError(f"not run: {failures[0]} failed")
        parts: dict[str, TickerPart] = {}
        for task in self._tasks.tasks(job_id, TaskStatus.DONE):
            if task.key != REFINE_KEY and task.result is not None:
                parts[item_of(task.key)] = TickerPart.model_validate(task.result)
        for key, value in fresh.items():
            if isinstance(value, dict):
                parts[item_of(key)] = TickerPart.model_validate(value)
        missing = [t for t in request.tickers if t not in parts]
        if missing:
            return StepSkippedError(f"not run: {', '.join(missing)} not finished")
        try:
            return self._service.finish(request, parts).model_dump(mode="json")
        except Exception as exc:
            return exc

    def result(self, job_id: str) -> BriefingResult:
        """The finished briefing (404 BRIEFING_NOT_FOUND, 409 BRIEFING_NOT_FINISHED / BRIEFING_FAILED)."""
        job = self.status(job_id)
        if job.status == JobStatus.FAILED.value:
            raise ConflictException(f"briefing {job_id} failed: {job.error}", code="BRIEFING_FAILED")
        refine = next((s for s in job.steps if s.key == REFINE_KEY), None)
        if refine is None or refine.status != TaskStatus.DONE.value:
            raise ConflictException(
                f"briefing {job_id} is not finished ({job.done} of {job.total} steps done)",
                code="BRIEFING_NOT_FINISHED",
            )
        task = next(t for t in self._tasks.tasks(job_id, TaskStatus.DONE) if t.key == REFINE_KEY)
        return BriefingResult.model_validate(task.result)

    def _hash_of(self, job_id: str) -> str | None:
        job = self._tasks.get_job(job_id)
        return job.config_hash if job else None


def _causes(failed: list[TaskRecord]) -> str | None:
    """The job's error names the failing ticker(s), not "1 of 4 tasks failed"."""
    causes = [
        (t.error or t.key).removeprefix(f"{BriefingTickerError.__name__}: ")
        for t in failed
        if not (t.error or "").startswith(StepSkippedError.__name__)
    ]
    return "; ".join(causes) or None
