"""shared.tasks.kinds: the one place the jobs routes and page stop a job, whatever its kind."""

from __future__ import annotations

import threading

import pytest

from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.errors import NotFoundException
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.shared.tasks.kinds import JobKind, JobKinds

WAIT = 10.0


def held(executor: JobExecutor, kind: str, job_id: str) -> threading.Event:
    """A job of `kind` running in `executor` until the returned event is set (or it is cancelled)."""
    started, release = threading.Event(), threading.Event()

    def work() -> None:
        started.set()
        release.wait(WAIT)

    assert executor.submit(kind, job_id, work)
    assert started.wait(WAIT)
    return release


def test_a_kind_with_live_state_stops_through_its_own_service_the_others_through_the_executor(
    database: Database,
) -> None:
    executor, stopped = JobExecutor(max_running=2, max_queued=4), []
    kinds = JobKinds(lambda: executor, lambda: SqlTaskStore(database), [JobKind("analysis", stopped.append)])
    own = held(executor, "analysis", "s1")
    plain = held(executor, "evaluation", "e1")
    done = kinds.cancel("s1")
    assert (done.kind, done.state, stopped) == ("analysis", "cancelling", ["s1"])
    assert executor.state_of("s1") == "running"  # its own service decides; the executor was not asked
    done = kinds.cancel("e1")
    assert (done.kind, executor.state_of("e1")) == ("evaluation", "cancelling") and stopped == ["s1"]
    own.set()
    plain.set()


def test_a_job_run_by_another_process_gets_a_stop_request_and_an_unknown_one_is_404(
    database: Database,
) -> None:
    store = SqlTaskStore(database)
    job, _ = store.open_with_tasks("evaluate", {"symbols": ["AAPL"]}, ["AAPL|2024-06-28"])
    kinds = JobKinds(lambda: JobExecutor(), lambda: store)
    with pytest.raises(NotFoundException):  # opened but not running anywhere
        kinds.cancel(job.id)
    store.start_run(job.id)
    done = kinds.cancel(job.id, remote_reason="cancelled over the API")
    assert (done.kind, store.cancel_requested(job.id)) == ("evaluate", "cancelled over the API")
    with pytest.raises(NotFoundException):
        kinds.cancel("no-such-job")
    kinds.stop_if_active("no-such-job")  # a page's late Cancel: nothing to stop, no error
    kinds.stop_if_active(job.id)  # still running elsewhere: asked again through the store
    assert store.cancel_requested(job.id) == "cancelled by the user"
