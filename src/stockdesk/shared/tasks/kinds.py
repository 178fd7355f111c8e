"""The job kinds and how each is stopped and resumed: the one place the jobs routes, the jobs page
and `stockdesk jobs resume` ask.

Most kinds stop through the executor's cancel token alone (evaluations, briefings, strategy runs,
sweeps, batches). A kind that keeps live state of its own (an analysis's progress, a sync's) stops
through its own service, which also marks that state; it registers that here. A job run by
another process (a CLI `evaluate`, a batch driver) gets a stop request in the task store, which
its runner reads before the next batch.

A kind that can go on from where it stopped registers its resume: a server's resume hands the job
to its executor, the CLI's runs it in the foreground (each process registers what it can run). A
kind that resumes only in another process (batch analyses and sweeps need a task engine, Ray, that
a server does not build for a resume) registers the command that does it instead, so the refusal
says what to run.
Which job it is, and whether it may resume, is answered once here for every kind: from the task
store, or for a kind that keeps its jobs in records of its own (strategy runs) from those. The
history of ended jobs (the jobs history page) is the task store's, named by the registered kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime

from stockdesk.shared.errors import BadRequestException, ConflictException, NotFoundException
from stockdesk.shared.tasks.dtos import JobRecord, JobStatus, TaskCounts
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.shared.tasks.ports import ITaskStore

CANCEL_REASON = "cancelled by the user"
# the statuses of a job no runner is at, as the history lists and filters them
HISTORY_STATUSES = (
    JobStatus.DONE,
    JobStatus.FAILED,
    JobStatus.CANCELLED,
    JobStatus.INTERRUPTED,
    JobStatus.STOPPED,
)


@dataclass(frozen=True)
class StoredJob:
    """A job as it is kept (task store or its kind's own records): what resuming it and the jobs
    page's list of stopped jobs need. `kind` is the registered kind's name when it is known."""

    kind: str
    id: str
    status: JobStatus
    updated_at: datetime
    live: bool = False  # a live process runs it (the task store's liveness)


@dataclass(frozen=True)
class PastJob:
    """An ended job of the task store as the history shows it: when it was opened and last changed,
    its tasks' counts and the error it ended with (None when it ended well)."""

    kind: str
    id: str
    status: JobStatus
    created_at: datetime
    updated_at: datetime
    error: str | None
    counts: TaskCounts


@dataclass(frozen=True)
class JobHistory:
    """One page of ended jobs, how many match on every page, and the kinds the store holds jobs of."""

    jobs: list[PastJob]
    total: int
    kinds: list[str]


@dataclass(frozen=True)
class JobKind:
    """One kind of long work: its name (the executor's `kind`) and what it registers.

    `cancel`: the stop of a kind that keeps live state of its own (it also marks that state).
    `resume`: runs a stopped job again from where it stopped (its finished work is kept).
    `stored_as`: the task store's kind of its jobs when it is not `name` (evaluations: `evaluate`).
    `find` and `recent`: for a kind that keeps its jobs in records of its own, one job by id (None
    when it is not one of its jobs) and the newest ones.
    `resumed_by`: for a kind without a `resume` here, the command that resumes it elsewhere (`{id}`
    stands for the job's id); NOT_RESUMABLE names it.
    """

    name: str
    cancel: Callable[[str], object] | None = None
    resume: Callable[[str], object] | None = None
    stored_as: str | None = None
    find: Callable[[str], StoredJob | None] | None = None
    recent: Callable[[int], list[StoredJob]] | None = None
    resumed_by: str | None = None

    @property
    def store_kind(self) -> str:
        return self.stored_as or self.name


@dataclass(frozen=True)
class Cancelled:
    kind: str
    job_id: str
    state: str = "cancelling"


@dataclass(frozen=True)
class Resumed:
    """A job handed back to its runner: `state` is the executor's right after (queued, running),
    `ended` when it already finished or ran in the foreground."""

    kind: str
    job_id: str
    state: str


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
        self._stored = {kind.store_kind: kind for kind in self._kinds.values() if kind.find is None}

    def replace(self, kind: JobKind) -> None:
        """Register `kind` in place of the one of its name: how a process that can do more (a server
        that can build a kind's runner) says so after the container listed the kinds."""
        self._kinds[kind.name] = kind
        self._stored = {k.store_kind: k for k in self._kinds.values() if k.find is None}

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

    def resume(self, job_id: str) -> Resumed:
        """Run a stopped job again through its kind's resume. 404 JOB_NOT_FOUND for a job no kind
        keeps; 409 NOT_RESUMABLE for a kind that does not resume here (it resumes by its own
        command), JOB_RUNNING while it runs here or in another process, JOB_DONE when nothing is
        left to do. A task-store job is recovered first (`ITaskStore.recover`): the tasks a dead
        runner left `running` go back to `pending`, so the resume computes them too, and a stop
        request left for it is forgotten: resuming is asking it to run again."""
        executor = self._executor()
        held = executor.find(job_id)
        if held is not None:
            self._refuse_held(job_id, held.state)
        job = self.find(job_id)
        kind = self._kinds.get(job.kind)
        if kind is None or kind.resume is None:
            raise ConflictException(self._not_here(job, kind), code="NOT_RESUMABLE")
        if job.live:
            raise ConflictException(f"job {job_id} is running in another process", code="JOB_RUNNING")
        if kind.find is None:  # a dead runner's tasks back to pending, as a rerun does; its stop forgotten
            recovered = self._store().recover(job_id)
            job = self._of(recovered) if recovered is not None else job
            if job.live:  # a runner started in between
                raise ConflictException(f"job {job_id} is running in another process", code="JOB_RUNNING")
        if job.status is JobStatus.DONE:
            raise ConflictException(f"job {job_id} is done: nothing to resume", code="JOB_DONE")
        kind.resume(job_id)
        return Resumed(kind.name, job_id, executor.state_of(job_id) or "ended")

    def _refuse_held(self, job_id: str, state: str) -> None:
        """A job this executor still holds: JOB_RUNNING, or JOB_DONE when its record already says
        done (its thread is between writing that and letting go, and REST already reads `done`)."""
        with suppress(NotFoundException):
            if self.find(job_id).status is JobStatus.DONE:
                raise ConflictException(f"job {job_id} is done: nothing to resume", code="JOB_DONE")
        raise ConflictException(f"job {job_id} is {state} here", code="JOB_RUNNING")

    def find(self, job_id: str) -> StoredJob:
        """The job of that id as it is kept, from the task store or a kind's own records (404
        JOB_NOT_FOUND when none has it)."""
        stored = self._store().get_job(job_id)
        if stored is not None:
            return self._of(stored)
        for kind in self._kinds.values():
            found = kind.find(job_id) if kind.find is not None else None
            if found is not None:
                return found
        raise NotFoundException(f"no job {job_id}", code="JOB_NOT_FOUND")

    def stopped(self, limit: int = 20) -> list[StoredJob]:
        """The newest jobs that may resume here: of a kind with a resume, not done, run by no one
        (not held by this executor, no live runner elsewhere). The jobs page offers Resume on them."""
        held = {job.job_id for job in self._executor().active()}
        found: list[StoredJob] = []
        for kind in self._kinds.values():
            if kind.resume is None:
                continue
            if kind.recent is not None:
                jobs = kind.recent(limit)
            else:
                jobs = [self._of(job) for job in self._store().list_jobs(kind.store_kind, limit)]
            found += [j for j in jobs if j.status is not JobStatus.DONE and not j.live and j.id not in held]
        return sorted(found, key=lambda job: job.updated_at, reverse=True)[:limit]

    def history(
        self, kind: str | None = None, status: str | None = None, *, offset: int = 0, limit: int = 20
    ) -> JobHistory:
        """Ended jobs of the task store (every status of HISTORY_STATUSES, or `status`; every kind,
        or `kind` by its registered name), the most recently changed first. 400 BAD_JOB_STATUS for a
        status that is not an ended one, BAD_JOB_KIND for a kind neither registered here nor held by
        the store (`details` name the value and the choices)."""
        ended = {s.value: s for s in HISTORY_STATUSES}
        if status is not None and status not in ended:
            choices = ", ".join(ended)
            raise BadRequestException(
                f"unknown job status '{status}': choose {choices}",
                code="BAD_JOB_STATUS",
                details={"value": status, "choices": choices},
            )
        stored_as = {k.name: k.store_kind for k in self._stored.values()}
        kinds = None if kind is None else [stored_as.get(kind, kind)]
        statuses = HISTORY_STATUSES if status is None else (ended[status],)
        page = self._store().job_history(statuses, kinds, offset=offset, limit=limit)
        present = sorted({self._name(k) for k in page.kinds})
        if kind is not None and kind not in stored_as and kind not in present:
            choices = ", ".join(sorted({*stored_as, *present}))
            raise BadRequestException(
                f"unknown job kind '{kind}': choose {choices}",
                code="BAD_JOB_KIND",
                details={"value": kind, "choices": choices},
            )
        jobs = [
            PastJob(self._name(s.job.kind), s.job.id, s.job.status, s.job.created_at, s.job.updated_at,
                    s.job.error, s.counts)
            for s in page.jobs
        ]  # fmt: skip
        return JobHistory(jobs, page.total, present)

    def _name(self, store_kind: str) -> str:
        """The registered name of a task-store kind (evaluations are stored as `evaluate`)."""
        kind = self._stored.get(store_kind)
        return kind.name if kind else store_kind

    def _not_here(self, job: StoredJob, kind: JobKind | None) -> str:
        """Why a job does not resume in this process, and what does resume it."""
        if kind is not None and kind.resumed_by:
            command = kind.resumed_by.format(id=job.id)
            return f"jobs of kind {job.kind} do not resume here: run `{command}`"
        here = ", ".join(sorted(k.name for k in self._kinds.values() if k.resume is not None))
        return f"jobs of kind {job.kind} resume when their own command runs again (resumable here: {here})"

    def _of(self, job: JobRecord) -> StoredJob:
        return StoredJob(self._name(job.kind), job.id, job.status, job.updated_at, job.live)
