"""The storage port of jobs and tasks; `stockdesk.shared.db.task_store.SqlTaskStore` implements it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime
from typing import Any

from stockdesk.shared.tasks.canonical import config_hash
from stockdesk.shared.tasks.dtos import JobPage, JobRecord, JobStatus, TaskCounts, TaskRecord, TaskStatus


class ITaskStore(ABC):
    """Durable jobs and tasks. Every method is one transaction.

    One runner per job at a time: `open_job` on an existing job puts tasks left `running` by a
    dead runner back to `pending`, and leaves a live runner's job alone (`JobRecord.live`); callers
    must not start a second runner on a live job.
    """

    @abstractmethod
    def open_job(self, kind: str, config_hash: str, config: Mapping[str, Any]) -> tuple[JobRecord, bool]:
        """The job of (kind, config_hash), created (status pending) if missing; True when created.

        Reopening an existing job recovers it from a process that died: its `running` tasks go
        back to `pending` (the interrupted attempt is not counted), a `running` job becomes
        `interrupted` and a stale stop request is forgotten. A job whose runner is alive (see
        `liveness`) is returned untouched with `live` set. The stored config is the one the job
        was created with.
        """

    @abstractmethod
    def recover(self, job_id: str) -> JobRecord | None:
        """Recover the job from a process that died, as reopening it does (None: no such job): its
        `running` tasks back to `pending`, a `running` job `interrupted`, a job marked `done` with
        tasks still to do `interrupted` too, a stale stop request forgotten. A job whose runner is
        alive is returned untouched. What a resume does before it runs the job again.

        Reads (`get_job`, `list_jobs`, `job_history`) recover a run whose process died as well, so
        that they show it `interrupted`, not running forever."""

    def open_with_tasks(
        self, kind: str, config: Mapping[str, Any], keys: Iterable[str], *, digest: str | None = None
    ) -> tuple[JobRecord, int]:
        """Every kind's start: the job of (kind, the config's hash) opened or reopened, and its
        task keys added; returns the job and how many keys were new. `digest` is the config's
        hash when the caller has it already."""
        job, _ = self.open_job(kind, digest or config_hash(config), config)
        return job, self.add_tasks(job.id, keys)

    @abstractmethod
    def add_tasks(self, job_id: str, keys: Iterable[str]) -> int:
        """Insert the keys the job does not have yet (status pending); returns how many were new.

        Idempotent, one transaction, bulk insert. Keys are non-empty text of at most 255 characters.
        Raises KeyError if the job does not exist.
        """

    @abstractmethod
    def claimable(
        self, job_id: str, max_attempts: int, limit: int | None = None, now: datetime | None = None
    ) -> list[TaskRecord]:
        """Pending tasks plus failed ones with attempts < max_attempts, in key order.

        With `now`, a failed task whose `not_before` is later than `now` is still backing off and
        is left out.
        """

    @abstractmethod
    def next_retry_at(self, job_id: str, max_attempts: int) -> datetime | None:
        """The earliest `not_before` among failed tasks with attempts left (None if none waits)."""

    @abstractmethod
    def mark_running(self, job_id: str, keys: Iterable[str]) -> None:
        """Status running and one more attempt, for each key."""

    @abstractmethod
    def release(self, job_id: str, keys: Iterable[str]) -> None:
        """Running tasks among `keys` back to pending, their attempt not counted (an interruption)."""

    @abstractmethod
    def complete(self, job_id: str, results: Mapping[str, Mapping[str, Any]]) -> None:
        """Status done with its JSON result (error cleared), for each key; one transaction."""

    @abstractmethod
    def fail(
        self, job_id: str, errors: Mapping[str, str], retry_at: Mapping[str, datetime] | None = None
    ) -> None:
        """Status failed with its one-line error, for each key; one transaction.

        `retry_at[key]` is when the task may be claimed again (its backoff); missing = at once.
        """

    @abstractmethod
    def tasks(self, job_id: str, status: TaskStatus | None = None) -> list[TaskRecord]:
        """The job's tasks (of one status if given), in key order."""

    @abstractmethod
    def counts(self, job_id: str) -> TaskCounts: ...

    @abstractmethod
    def set_job_status(self, job_id: str, status: JobStatus, error: str | None = None) -> None:
        """Raises KeyError if the job does not exist."""

    @abstractmethod
    def start_run(self, job_id: str) -> None:
        """Status running, owned by this process (host:pid), heartbeat now."""

    @abstractmethod
    def heartbeat(self, job_id: str) -> None:
        """The running process is still at it (see `liveness`)."""

    @abstractmethod
    def request_cancel(self, job_id: str, reason: str) -> None:
        """Ask the job's runner (in whatever process) to stop; it sees this between tasks."""

    @abstractmethod
    def clear_cancel(self, job_id: str) -> None:
        """Forget a stop request (the runner stopped, or the job is resumed)."""

    @abstractmethod
    def cancel_requested(self, job_id: str) -> str | None:
        """The reason given to `request_cancel`, while it stands."""

    @abstractmethod
    def get_job(self, job_id: str) -> JobRecord | None: ...

    @abstractmethod
    def list_jobs(self, kind: str | None = None, limit: int = 20) -> list[JobRecord]:
        """Newest first."""

    @abstractmethod
    def job_history(
        self,
        statuses: Collection[JobStatus],
        kinds: Collection[str] | None = None,
        *,
        offset: int = 0,
        limit: int = 20,
    ) -> JobPage:
        """The jobs of these statuses (and kinds, when given), the most recently changed first, from
        `offset`; each with its task counts. One read, so the page, its total and the kinds agree."""
