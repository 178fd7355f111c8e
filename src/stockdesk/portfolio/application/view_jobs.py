"""The portfolio view as a durable job of the one task system (`shared.tasks`): kind `portfolio_view`.

The job is named by its checked request (`ViewRequest`: source, watchlist, as-of date, capital or
cash, and the names and book the check resolved): the same request over the same list and book
names the same job, so a finished view is served again and an interrupted one goes on without
recomputing a finished name. Tasks, in key order: `name:0001:600000.SH`, ... (one per name: its
day verdict, the `NameVerdict` stored as the result), then `view` (allocation, trades, risk: the
`PortfolioView` stored as the result). Names run one per batch, so progress moves and a stop lands
after each name. A name whose verdict failed leaves the view not run (skipped) and the job fails
naming it; each `execute` gives every unfinished task one more attempt.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.portfolio.application.view_service import PortfolioViewService
from stockdesk.portfolio.domain.errors import (
    PortfolioJobNotFinishedError,
    PortfolioJobNotFoundError,
    ViewStepSkippedError,
)
from stockdesk.portfolio.domain.view import NameVerdict, PortfolioView, ViewRequest
from stockdesk.shared.tasks import ITaskStore, TaskRecord, TaskStatus, config_hash, run_tasks
from stockdesk.shared.tasks.keys import indexed_key, item_of

JOB_KIND = "portfolio_view"
VIEW_KEY = "view"
NAME_PREFIX = "name:"


def name_key(index: int, symbol: str) -> str:
    return indexed_key(index, symbol, prefix=NAME_PREFIX)


class ViewJob(BaseModel):
    """A portfolio view's job: its request, how many names have their verdict, and the view once
    it is assembled."""

    job_id: str
    status: str = Field(description="pending | running | done | failed | cancelled | interrupted")
    source: str
    watchlist: str | None
    as_of: str
    names: list[str]
    done: int = Field(description="names with their day verdict")
    failed: int = Field(description="names whose verdict failed")
    total: int = Field(description="names in the view")
    assembled: bool = Field(description="the view is assembled (allocation, trades, risk)")
    error: str | None = None
    live: bool = Field(default=False, description="a live process runs it (this one or another)")
    view: PortfolioView | None = Field(default=None, description="the view, once the job is done")


ViewProgress = Callable[[ViewJob], None]


class PortfolioViewJobs:
    def __init__(self, service: PortfolioViewService, tasks: ITaskStore):
        self._service = service
        self._tasks = tasks
        self._running: set[str] = set()  # jobs executing in this process
        self._lock = threading.Lock()

    def start(self, request: ViewRequest) -> ViewJob:
        """Open (or reopen) the job of a checked request; a job this process runs is answered as it is."""
        config = request.model_dump(mode="json")
        digest = config_hash(config)
        with self._lock:  # reopening a job this process runs would put its running task back
            live = next((j for j in self._running if self._hash_of(j) == digest), None)
        if live is not None:
            return self.status(live)
        keys = [name_key(i, s) for i, s in enumerate(request.names, 1)]
        job, _ = self._tasks.open_with_tasks(JOB_KIND, config, [*keys, VIEW_KEY], digest=digest)
        return self.status(job.id)

    def status(self, job_id: str, *, with_view: bool = False) -> ViewJob:
        """Progress (404 PORTFOLIO_JOB_NOT_FOUND); `with_view`: the view too, once it is assembled."""
        job = self._tasks.get_job(job_id)
        if job is None or job.kind != JOB_KIND:
            raise PortfolioJobNotFoundError(f"no portfolio view job {job_id}", details={"id": job_id})
        request = ViewRequest.model_validate(job.config)
        tasks = self._tasks.tasks(job_id)
        names = [t for t in tasks if t.key.startswith(NAME_PREFIX)]
        view = next((t for t in tasks if t.key == VIEW_KEY), None)
        assembled = view is not None and view.status is TaskStatus.DONE and view.result is not None
        return ViewJob(
            job_id=job.id, status=job.status.value, source=request.source, watchlist=request.watchlist,
            as_of=request.as_of.isoformat(), names=request.names,
            done=sum(t.status is TaskStatus.DONE for t in names),
            failed=sum(t.status is TaskStatus.FAILED for t in names), total=len(names),
            assembled=assembled, error=job.error, live=job.live,
            view=PortfolioView.model_validate(view.result) if with_view and assembled and view else None,
        )  # fmt: skip

    def recent(self, limit: int = 20) -> list[ViewJob]:
        return [self.status(job.id) for job in self._tasks.list_jobs(JOB_KIND, limit)]

    def is_running(self, job_id: str) -> bool:
        with self._lock:
            return job_id in self._running

    def execute(self, job_id: str, on_progress: ViewProgress | None = None) -> ViewJob:
        """Compute what the job still lacks (the unfinished names, then the view); returns at once if
        this process already runs it. A stop (cancel, Ctrl-C) propagates, its finished names kept."""
        job = self.status(job_id)
        with self._lock:
            if job_id in self._running:
                return job
            self._running.add(job_id)
        try:
            self._execute(job_id, on_progress)
        finally:
            with self._lock:
                self._running.discard(job_id)
        return self.status(job_id)

    def _execute(self, job_id: str, on_progress: ViewProgress | None) -> None:
        stored = self._tasks.get_job(job_id)
        assert stored is not None
        request = ViewRequest.model_validate(stored.config)
        failures: list[str] = []
        tried = [t.attempts for t in self._tasks.tasks(job_id) if t.status is not TaskStatus.DONE]

        def work(keys: list[str]) -> dict[str, Any]:
            answer: dict[str, Any] = {}
            for key in keys:
                if key == VIEW_KEY:
                    answer[key] = self._assemble(job_id, request, failures)
                    continue
                try:
                    answer[key] = self._service.verdict(request, item_of(key)).model_dump(mode="json")
                except Exception as exc:  # the task fails with it; the view waits for a resume
                    failures.append(item_of(key))
                    answer[key] = exc
            return answer

        progress = None if on_progress is None else (lambda done, total: on_progress(self.status(job_id)))
        run_tasks(
            self._tasks, job_id, work, batch_size=1, max_attempts=1 + max(tried, default=0),
            on_progress=progress, failure_words=_causes,
        )  # fmt: skip

    def _assemble(self, job_id: str, request: ViewRequest, failures: list[str]) -> dict[str, Any] | Exception:
        if failures:
            return ViewStepSkippedError(f"not run: the verdict of {failures[0]} failed")
        verdicts = {
            item_of(t.key): t for t in self._tasks.tasks(job_id, TaskStatus.DONE) if t.key != VIEW_KEY
        }
        missing = [s for s in request.names if s not in verdicts]
        if missing:
            return ViewStepSkippedError(f"not run: no verdict of {', '.join(missing)} yet")
        try:
            return self._service.assemble(request, {s: _verdict(t) for s, t in verdicts.items()}).model_dump(
                mode="json"
            )
        except Exception as exc:
            return exc

    def result(self, job_id: str) -> PortfolioView:
        """The assembled view (404 PORTFOLIO_JOB_NOT_FOUND; 409 PORTFOLIO_JOB_NOT_FINISHED while names
        are left, or after the job failed or was stopped)."""
        job = self.status(job_id, with_view=True)
        if job.view is None:
            why = f": {job.error}" if job.error else ""
            raise PortfolioJobNotFinishedError(
                f"portfolio view {job_id} is {job.status} "
                f"({job.done} of {job.total} names have a verdict){why}",
                details={"id": job_id, "status": job.status},
            )
        return job.view

    def _hash_of(self, job_id: str) -> str | None:
        job = self._tasks.get_job(job_id)
        return job.config_hash if job else None


def _verdict(task: TaskRecord) -> NameVerdict:
    return NameVerdict.model_validate(task.result)


def _causes(failed: list[TaskRecord]) -> str | None:
    """The job's error names the failing names, not "1 of 4 tasks failed"."""
    return "; ".join(f"{item_of(t.key)}: {t.error}" for t in failed if t.key != VIEW_KEY) or None
