"""The server's job executor: bounded per kind, a capped queue, cancellation that leaves jobs resumable."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from stockdesk.shared.access.grant import AccessGrant, reset_grant, set_grant
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.errors import TooManyRequestsError
from stockdesk.shared.tasks import JobStatus, config_hash, run_tasks
from stockdesk.shared.tasks.executor import JobExecutor

WAIT = 10.0  # generous bound for thread hand-offs; the tests never depend on speed


def blocker() -> tuple[threading.Event, threading.Event, Any]:
    started, release = threading.Event(), threading.Event()

    def work() -> None:
        started.set()
        release.wait(WAIT)

    return started, release, work


def test_one_job_per_kind_runs_while_others_queue() -> None:
    executor = JobExecutor(max_running=1, max_queued=4)
    a_started, a_release, a_work = blocker()
    b_started, b_release, b_work = blocker()
    c_started, c_release, c_work = blocker()
    assert executor.submit("evaluation", "a", a_work)
    assert a_started.wait(WAIT)
    assert executor.submit("evaluation", "b", b_work)
    assert executor.submit("briefing", "c", c_work)  # another kind has its own slot
    assert c_started.wait(WAIT)
    assert not b_started.is_set()
    assert {j.job_id: j.state for j in executor.active()}["b"] == "queued"
    assert executor.state_of("b") == "queued" and executor.state_of("a") == "running"
    assert executor.find("c").kind == "briefing" and executor.find("nope") is None  # type: ignore[union-attr]
    assert executor.submit("evaluation", "a", a_work) is False  # already active: not started twice
    a_release.set()
    assert b_started.wait(WAIT)
    b_release.set()
    c_release.set()
    gone = threading.Event()
    for _ in range(int(WAIT / 0.01)):  # held until its thread is done, then forgotten
        if executor.find("a") is None:
            gone.set()
            break
        gone.wait(0.01)
    assert gone.is_set() and executor.state_of("a") is None


def test_a_kind_with_its_own_cap_runs_that_many_at_once() -> None:
    executor = JobExecutor(max_running=1, max_queued=4, per_kind={"batch_analyze": 2})
    jobs = [blocker() for _ in range(3)]
    for name, (_, _, work) in zip("abc", jobs, strict=True):
        assert executor.submit("batch_analyze", name, work)
    assert jobs[0][0].wait(WAIT) and jobs[1][0].wait(WAIT)  # two run at once ...
    assert executor.state_of("c") == "queued"  # ... the third waits for a slot
    assert executor.cap("batch_analyze") == 2 and executor.cap("evaluation") == 1
    jobs[0][1].set()
    assert jobs[2][0].wait(WAIT)
    for _, release, _ in jobs:
        release.set()


def test_a_full_queue_answers_429() -> None:
    executor = JobExecutor(max_running=1, max_queued=1)
    started, release, work = blocker()
    executor.submit("evaluation", "a", work)
    assert started.wait(WAIT)
    executor.submit("evaluation", "b", lambda: None)
    with pytest.raises(TooManyRequestsError) as refused:
        executor.submit("evaluation", "c", lambda: None)
    assert refused.value.code == "JOB_QUEUE_FULL" and refused.value.retry_after > 0
    release.set()


def _durable_job(
    database: Database, cancel_after: int, executor: JobExecutor, reason: str
) -> tuple[str, Any]:
    store = SqlTaskStore(database)
    job, _ = store.open_job("test", config_hash({"n": 6}), {"n": 6})
    store.add_tasks(job.id, [f"k{i}" for i in range(6)])
    seen: list[str] = []
    proceed = threading.Event()

    def work(keys: list[str]) -> dict[str, Any]:
        seen.extend(keys)
        if len(seen) == cancel_after:
            proceed.set()
            executor.cancel(job.id, reason)
        return {k: {"ok": True} for k in keys}

    done = threading.Event()

    def run() -> None:
        try:
            run_tasks(store, job.id, work, batch_size=1)
        finally:
            done.set()

    assert executor.submit("test", job.id, run)
    assert done.wait(WAIT)
    return job.id, store


def test_cancel_stops_between_batches_and_the_job_resumes(database: Database) -> None:
    executor = JobExecutor()
    job_id, store = _durable_job(database, 2, executor, "cancelled")
    assert store.get_job(job_id).status == JobStatus.CANCELLED
    assert store.counts(job_id).done == 2 and store.counts(job_id).pending == 4
    counts = run_tasks(store, job_id, lambda keys: {k: {"ok": True} for k in keys})
    assert counts.done == 6 and store.get_job(job_id).status == JobStatus.DONE


def test_shutdown_leaves_jobs_interrupted_and_refuses_new_ones(database: Database) -> None:
    executor = JobExecutor()
    job_id, store = _durable_job(database, 3, executor, "interrupted: the server is stopping")
    assert store.get_job(job_id).status == JobStatus.INTERRUPTED
    executor.shutdown()
    with pytest.raises(TooManyRequestsError):
        executor.submit("test", "later", lambda: None)


def test_tokens_a_job_spends_are_charged_to_the_submitting_key() -> None:
    spent = {"tokens": 0}
    charged: list[int] = []
    grant = AccessGrant("key1", "run1", spent=lambda: spent["tokens"], charge=charged.append)
    executor = JobExecutor()
    finished = threading.Event()

    def work() -> None:
        spent["tokens"] = 700

    token = set_grant(grant)
    try:
        executor.submit("evaluation", "j", work)
    finally:
        reset_grant(token)
    for _ in range(100):
        if not executor.is_active("j"):
            break
        finished.wait(0.05)
    assert charged == [700]
