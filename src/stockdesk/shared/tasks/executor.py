"""The one place long work runs in the server: bounded per kind, queued within a cap, cancellable.

Replaces unbounded in-process background tasks. `submit` answers at once: the job starts when a
slot of its kind is free (at most `max_running` per kind, or that kind's own cap in `per_kind`),
waits in the queue otherwise, and is
refused (429 JOB_QUEUE_FULL) beyond `max_queued`. A job runs in a daemon thread, in a copy of the
submitting context (so the request's key and token budget follow it) with its cancel token set;
its code stops at its next `check_cancelled()`. `shutdown()` cancels everything: durable jobs keep
their finished tasks and resume when started again.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from stockdesk.shared.access.grant import current_grant
from stockdesk.shared.errors import TooManyRequestsError
from stockdesk.shared.tasks.cancel import CancelToken, JobCancelled, set_token
from stockdesk.shared.tasks.runner import error_line

logger = logging.getLogger(__name__)


@dataclass
class ActiveJob:
    kind: str
    job_id: str
    state: str  # queued | running | cancelling
    submitted_at: datetime
    token: CancelToken = field(default_factory=CancelToken, repr=False)


class JobExecutor:
    def __init__(self, max_running: int = 1, max_queued: int = 8, per_kind: Mapping[str, int] | None = None):
        self.max_running = max_running
        self.max_queued = max_queued
        self.per_kind = dict(per_kind or {})
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._active: dict[str, ActiveJob] = {}
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, kind: str, job_id: str, work: Callable[[], object]) -> bool:
        """Start (or queue) `work` as job `job_id`; False when that job is already active here."""
        with self._lock:
            if self._closed:
                raise TooManyRequestsError("the server is stopping", retry_after=30, code="SHUTTING_DOWN")
            if job_id in self._active:
                return False
            queued = sum(1 for job in self._active.values() if job.state == "queued")
            running = sum(1 for job in self._active.values() if job.kind == kind and job.state != "queued")
            cap = self.cap(kind)
            if running >= cap and queued >= self.max_queued:
                raise TooManyRequestsError(
                    f"{queued} jobs are already waiting; try again later",
                    retry_after=30,
                    code="JOB_QUEUE_FULL",
                )
            slot = self._slots.setdefault(kind, threading.BoundedSemaphore(cap))
            job = ActiveJob(kind, job_id, "queued", datetime.now(UTC))
            self._active[job_id] = job
        context = contextvars.copy_context()
        thread = threading.Thread(
            target=context.run,
            args=(self._run, job, slot, work),
            name=f"job-{kind}-{job_id[:8]}",
            daemon=True,
        )
        thread.start()
        return True

    def cap(self, kind: str) -> int:
        """How many jobs of `kind` may run at once."""
        return max(1, self.per_kind.get(kind, self.max_running))

    def _run(self, job: ActiveJob, slot: threading.BoundedSemaphore, work: Callable[[], object]) -> None:
        with slot:
            try:
                if job.token.cancelled:
                    return
                with self._lock:
                    job.state = "running" if job.state == "queued" else job.state
                set_token(job.token)
                work()
            except JobCancelled:
                logger.info("job %s (%s) stopped: %s", job.job_id, job.kind, job.token.reason)
            except Exception as exc:
                logger.exception("job %s (%s) failed: %s", job.job_id, job.kind, error_line(exc))
            finally:
                grant = current_grant()
                if grant is not None:
                    try:
                        grant.record()
                    except Exception:
                        logger.exception("job %s: could not record its token usage", job.job_id)
                with self._lock:
                    self._active.pop(job.job_id, None)

    def cancel(self, job_id: str, reason: str = "cancelled") -> bool:
        """Ask the job to stop at its next check; False when it is not active here."""
        with self._lock:
            job = self._active.get(job_id)
            if job is None:
                return False
            job.state = "cancelling"
        job.token.cancel(reason)
        return True

    def is_active(self, job_id: str) -> bool:
        with self._lock:
            return job_id in self._active

    def find(self, job_id: str) -> ActiveJob | None:
        """The job while this executor holds it (queued, running or cancelling); None otherwise."""
        with self._lock:
            return self._active.get(job_id)

    def state_of(self, job_id: str) -> str | None:
        """`queued`, `running` or `cancelling` while held here: what a page follows live (SSE, Cancel).
        Read it before the stored job (see `states`)."""
        job = self.find(job_id)
        return job.state if job is not None else None

    def states(self) -> dict[str, str]:
        """Every held job's state at once, for a list page. A page reads this *before* the stored jobs:
        read after, a job ending in between would look stored as running with nothing running it."""
        with self._lock:
            return {job_id: job.state for job_id, job in self._active.items()}

    def active(self) -> list[ActiveJob]:
        with self._lock:
            return sorted(self._active.values(), key=lambda job: job.submitted_at)

    def shutdown(self) -> None:
        """Refuse new jobs and ask every active one to stop (interrupted, resumable)."""
        with self._lock:
            self._closed = True
            jobs = list(self._active.values())
        for job in jobs:
            job.token.cancel("interrupted: the server is stopping")
