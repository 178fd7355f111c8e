"""A run whose process died is recovered by whoever meets it first: a read shows it `interrupted` with
its running tasks pending again, a resume computes them, and no run is marked done with work left."""

from __future__ import annotations

import socket
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import update

from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import JOBS, SqlTaskStore
from stockdesk.shared.errors import ConflictException
from stockdesk.shared.tasks import JobStatus, TaskCounts, TaskStatus, run_tasks
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.shared.tasks.kinds import HISTORY_STATUSES, JobKind, JobKinds
from stockdesk.shared.tasks.liveness import this_runner

KEYS = [f"K{i:02d}" for i in range(6)]


def dead_pid() -> int:
    """The pid of a process that has exited."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


def running_job(store: SqlTaskStore, database: Database, owner: str) -> str:
    """A job run by `owner` (host:pid), two tasks done and two in its hands."""
    job, _ = store.open_with_tasks("evaluate", {"n": owner}, KEYS)
    store.start_run(job.id)
    store.mark_running(job.id, KEYS[:4])
    store.complete(job.id, {key: {"ok": True} for key in KEYS[:2]})
    with database.session() as db:
        db.execute(
            update(JOBS).where(JOBS.c.id == job.id).values(owner=owner, heartbeat_at=datetime.now(UTC))
        )
    return job.id


def test_a_dead_runs_first_reader_records_it_interrupted_and_a_live_run_is_left_alone(
    database: Database,
) -> None:
    store = SqlTaskStore(database)
    dead = running_job(store, database, f"{socket.gethostname()}:{dead_pid()}")
    live = running_job(store, database, this_runner())
    assert store.counts(dead) == TaskCounts(pending=2, running=2, done=2, total=6)  # counting reads no job

    listed = {job.id: job for job in store.list_jobs()}  # `stockdesk jobs list`
    assert listed[dead].status is JobStatus.INTERRUPTED and not listed[dead].live
    assert listed[dead].error == "interrupted: the process running it stopped"
    assert store.counts(dead) == TaskCounts(pending=4, done=2, total=6)
    assert {t.attempts for t in store.tasks(dead, TaskStatus.PENDING)} == {0}  # the cut attempt not counted
    assert listed[live].status is JobStatus.RUNNING and listed[live].live
    assert store.counts(live) == TaskCounts(pending=2, running=2, done=2, total=6)

    history = store.job_history(HISTORY_STATUSES)  # the /jobs/history page
    assert [s.job.id for s in history.jobs] == [dead] and history.jobs[0].job.status is JobStatus.INTERRUPTED


def test_a_job_read_by_id_is_recovered_too(database: Database) -> None:
    store = SqlTaskStore(database)
    dead = running_job(store, database, f"{socket.gethostname()}:{dead_pid()}")
    job = store.get_job(dead)  # REST `GET /api/v1/jobs/{id}`, `jobs show`
    assert (
        job is not None and job.status is JobStatus.INTERRUPTED and not store.tasks(dead, TaskStatus.RUNNING)
    )


def test_a_resume_computes_what_a_job_marked_done_too_early_left_running(database: Database) -> None:
    """The probe's store: a resume had marked the job done with 100 tasks still running, and every
    later resume answered "nothing to resume". A resume now recovers them and runs them."""
    store = SqlTaskStore(database)
    job_id = running_job(store, database, f"{socket.gethostname()}:{dead_pid()}")
    store.complete(job_id, {key: {"ok": True} for key in KEYS[4:]})  # the pending ones, finished
    store.set_job_status(job_id, JobStatus.DONE)  # as the old resume did, tasks 2 and 3 still running
    computed: list[str] = []

    def resume(job: str) -> None:
        def work(keys: list[str]) -> dict[str, Any]:
            computed.extend(keys)
            return {key: {"ok": True} for key in keys}

        run_tasks(store, job, work, batch_size=2)

    kinds = JobKinds(
        lambda: JobExecutor(), lambda: store, [JobKind("evaluation", resume=resume, stored_as="evaluate")]
    )
    kinds.resume(job_id)
    assert computed == KEYS[2:4] and store.counts(job_id) == TaskCounts(done=6, total=6)
    assert store.get_job(job_id).status is JobStatus.DONE  # type: ignore[union-attr]
    with pytest.raises(ConflictException, match="nothing to resume"):
        kinds.resume(job_id)


def test_a_run_never_marks_its_job_done_while_tasks_are_left(database: Database) -> None:
    """Tasks this run cannot claim (in another runner's hands) leave the job interrupted, not done."""
    store = SqlTaskStore(database)
    job, _ = store.open_with_tasks("evaluate", {"n": 1}, KEYS)
    store.mark_running(job.id, KEYS[:1])
    counts = run_tasks(store, job.id, lambda keys: {key: {} for key in keys}, batch_size=2)
    assert counts == TaskCounts(running=1, done=5, total=6)
    ended = store.get_job(job.id)
    assert ended is not None and ended.status is JobStatus.INTERRUPTED
    assert ended.error == "interrupted: 1 of 6 tasks still to compute; resume it to finish them"
