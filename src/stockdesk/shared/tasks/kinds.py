"""The job kinds and how each is stopped: the one place the jobs routes and page ask.

Most kinds stop through the executor's cancel token alone (evaluations, briefings, strategy runs,
sweeps, batches). A kind that keeps live state of its own (an analysis's progress, a sync's) stops
through its own service, which also marks that state; it registers that here. A job run by
another process (a CLI `evaluate`, a batch driver) gets a stop request in the task store, which
its runner reads before the next batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass

from stockdesk.shared.errors import NotFoundException
from stockdesk.shared.tasks.dtos import JobStatus
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.shared.tasks.ports import ITaskStore

CANCEL_REASON = "cancelled by the user"


@dataclass(frozen=True)
class JobKind:
    """One kind of long work: its name (the executor's and the task store's `kind`) and, when it
    keeps live state of its own, the stop that also marks that state."""

    name: str
    cancel: Callable[[str], object] | None = None


@dataclass(frozen=True)
class Cancelled:
    kind: str
    job_id: str
    state: str = "cancelling"


class JobKinds:
    def __init__(
        self,
        executor: Callable[[], JobExecutor],
        store: Callable[[], ITaskStore],
        kinds: Iterable[JobKind] = (),
    ):
        self._executor = executor
        self._store = store
        self._kinds = {kind.name: kind for kind in kinds}

    def cancel(
        self,
        job_id: str,
        reason: str = CANCEL_REASON,
        *,
        remote_reason: str | None = None,
    ) -> Cancelled:
        """Stop the job at its next step: here through its kind's own stop or the executor, in
        another process through a stop request in the store, worded `remote_reason`. A job not
        active anywhere is 404 JOB_NOT_FOUND."""
        executor = self._executor()
        found = executor.find(job_id)
        if found is not None:
            own = self._kinds.get(found.kind)
            if own is not None and own.cancel is not None:
                own.cancel(job_id)
                return Cancelled(found.kind, job_id)
            if executor.cancel(job_id, reason):
                return Cancelled(found.kind, job_id)
        store = self._store()
        job = store.get_job(job_id)
        if job is None or job.status is not JobStatus.RUNNING:
            raise NotFoundException(f"no active job {job_id}", code="JOB_NOT_FOUND")
        store.request_cancel(job_id, remote_reason or reason)
        return Cancelled(job.kind, job_id)

    def stop_if_active(self, job_id: str) -> None:
        """`cancel`, for a page whose Cancel button may come just after its job ended: a job active
        nowhere is left as it is (the page then shows it ended)."""
        with suppress(NotFoundException):
            self.cancel(job_id)
