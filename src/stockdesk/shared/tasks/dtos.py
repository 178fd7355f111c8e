"""What the task store takes and returns: jobs, their tasks, and task counts."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field


class JobStatus(StrEnum):
    PENDING = "pending"  # opened, not run yet
    RUNNING = "running"
    DONE = "done"  # every task done
    FAILED = "failed"  # some tasks exhausted their attempts (or the runner itself failed)
    INTERRUPTED = "interrupted"  # stopped by Ctrl-C, or found `running` by the next process
    CANCELLED = "cancelled"  # a user asked it to stop; starting it again resumes it
    STOPPED = "stopped"  # its token or cost budget was reached; resume with a higher budget


# A run as its progress pages show it: the executor's states while it is held, then how it ended.
RunState = Literal[
    "queued", "running", "cancelling", "completed", "partial", "failed", "cancelled", "interrupted"
]
FINISHED_RUN_STATES = frozenset({"completed", "partial", "failed", "cancelled", "interrupted"})


ENDED_JOB_STATUSES = frozenset(
    {JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED, JobStatus.STOPPED, JobStatus.INTERRUPTED}
)  # no runner is at it: what a progress stream waits for


class TaskStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"  # retried while attempts < max_attempts, reported after that


class JobRecord(BaseModel):
    id: str
    kind: str
    config_hash: str
    config: dict[str, Any]
    status: JobStatus
    created_at: datetime
    updated_at: datetime
    error: str | None = None
    cancel_reason: str | None = Field(default=None, description="set while a stop was asked for")
    owner: str | None = Field(default=None, description="host:pid of the process that last ran it")
    live: bool = Field(default=False, description="running, and the process running it is alive")


class TaskRecord(BaseModel):
    job_id: str
    key: str
    status: TaskStatus
    attempts: int = Field(description="times the task was started and finished (done or failed)")
    error: str | None = Field(default=None, description="`ExcType: message` of the last failure")
    result: dict[str, Any] | None = None
    updated_at: datetime
    not_before: datetime | None = Field(default=None, description="a failed task waits until then")


class TaskCounts(BaseModel):
    pending: int = 0
    running: int = 0
    done: int = 0
    failed: int = 0
    total: int = 0


class JobSummary(BaseModel):
    """A job and how far its tasks got: one row of the job history."""

    job: JobRecord
    counts: TaskCounts


class JobPage(BaseModel):
    """One page of the job history, how many jobs match in all (`total`), and the kinds the store
    holds jobs of (what the history may be filtered by)."""

    jobs: list[JobSummary]
    total: int
    kinds: list[str]
