"""shared.tasks.kinds: the one place the jobs routes, the jobs page and `jobs resume` stop and resume a
job, whatever its kind (the real task store over SQLite, a real executor)."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.errors import ConflictException, NotFoundException
from stockdesk.shared.tasks import JobStatus
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.shared.tasks.kinds import JobKind, JobKinds, StoredJob

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


def test_resume_hands_a_stopped_job_to_its_kind_once_the_checks_pass(database: Database) -> None:
    """The kind found by the store's name (`stored_as`), a stale stop request forgotten; 404 for an id
    no one keeps, 409 for a kind that does not resume here, while it runs and once it is done."""
    store, executor, resumed = SqlTaskStore(database), JobExecutor(max_running=1, max_queued=4), []
    kinds = JobKinds(
        lambda: executor, lambda: store, [JobKind("evaluation", resume=resumed.append, stored_as="evaluate")]
    )
    job, _ = store.open_with_tasks("evaluate", {"symbols": ["AAPL"]}, ["AAPL|2024-06-28"])
    store.request_cancel(job.id, "cancelled by the user")
    done = kinds.resume(job.id)
    assert (done.kind, done.state, resumed) == ("evaluation", "ended", [job.id])
    assert store.cancel_requested(job.id) is None

    with pytest.raises(NotFoundException):
        kinds.resume("no-such-job")
    other, _ = store.open_with_tasks("sync", {"datasets": ["bars"]}, ["01:bars"])
    with pytest.raises(ConflictException, match="resumable here: evaluation"):
        kinds.resume(other.id)
    release = held(executor, "evaluation", job.id)
    with pytest.raises(ConflictException, match="running here") as running:
        kinds.resume(job.id)
    release.set()
    deadline = time.monotonic() + WAIT
    while executor.is_active(job.id) and time.monotonic() < deadline:
        time.sleep(0.01)
    store.start_run(job.id)  # a live runner in a process of its own
    with pytest.raises(ConflictException, match="another process"):
        kinds.resume(job.id)
    store.complete(job.id, {"AAPL|2024-06-28": {}})
    store.set_job_status(job.id, JobStatus.DONE)
    with pytest.raises(ConflictException) as finished:
        kinds.resume(job.id)
    assert (running.value.code, finished.value.code) == ("JOB_RUNNING", "JOB_DONE")
    assert resumed == [job.id]  # none of the refusals reached the kind


def test_a_job_whose_record_says_done_is_done_to_a_resume_even_before_its_thread_lets_go(
    database: Database,
) -> None:
    """REST reads the record: once it says `done`, a resume is told JOB_DONE, not JOB_RUNNING, for
    the moment the job's thread still holds its place in the executor."""
    store, executor = SqlTaskStore(database), JobExecutor(max_running=1, max_queued=4)
    kinds = JobKinds(
        lambda: executor, lambda: store, [JobKind("evaluation", resume=print, stored_as="evaluate")]
    )
    job, _ = store.open_with_tasks("evaluate", {"symbols": ["AAPL"]}, ["AAPL|2024-06-28"])
    release = held(executor, "evaluation", job.id)
    store.set_job_status(job.id, JobStatus.DONE)  # written by the work, which has not returned yet
    with pytest.raises(ConflictException) as finished:
        kinds.resume(job.id)
    release.set()
    assert finished.value.code == "JOB_DONE"


def test_a_kind_keeping_its_own_records_is_found_resumed_and_listed_with_the_stored_ones(
    database: Database,
) -> None:
    store, executor, resumed = SqlTaskStore(database), JobExecutor(), []
    now = datetime.now(UTC)
    runs = {
        "r-stopped": StoredJob("strategy-run", "r-stopped", JobStatus.INTERRUPTED, now - timedelta(hours=1)),
        "r-done": StoredJob("strategy-run", "r-done", JobStatus.DONE, now),
    }
    kinds = JobKinds(
        lambda: executor,
        lambda: store,
        [
            JobKind(
                "strategy-run", resume=resumed.append, find=runs.get, recent=lambda n: list(runs.values())[:n]
            ),
            JobKind("briefing", resume=resumed.append),
            JobKind("analysis", cancel=lambda job_id: None),  # stops, never resumes: never listed
        ],
    )
    briefing, _ = store.open_with_tasks("briefing", {"day": "20240301"}, ["01:AAPL", "99:refine"])
    finished, _ = store.open_with_tasks("briefing", {"day": "20240302"}, ["01:AAPL"])
    store.set_job_status(finished.id, JobStatus.DONE)
    assert [(j.kind, j.id) for j in kinds.stopped()] == [
        ("briefing", briefing.id),
        ("strategy-run", "r-stopped"),
    ]

    kinds.resume("r-stopped")
    with pytest.raises(ConflictException):
        kinds.resume("r-done")
    assert resumed == ["r-stopped"]
    release = held(executor, "briefing", briefing.id)  # held here: not offered for resuming
    assert [j.id for j in kinds.stopped()] == ["r-stopped"]
    release.set()


def test_a_kind_that_resumes_elsewhere_is_refused_naming_its_command_and_never_listed(
    database: Database,
) -> None:
    """A server registers batch analyses with the CLI command that resumes them: NOT_RESUMABLE names
    it with the job's id, the kind's resume is never reached, and the stopped list leaves it out."""
    store, resumed = SqlTaskStore(database), []
    kinds = JobKinds(
        lambda: JobExecutor(),
        lambda: store,
        [
            JobKind("batch_analyze", resumed_by="stockdesk jobs resume {id}"),
            JobKind("briefing", resume=resumed.append),
        ],
    )
    batch, _ = store.open_with_tasks("batch_analyze", {"symbols": ["AAPL"]}, ["AAPL"])
    with pytest.raises(ConflictException) as refused:
        kinds.resume(batch.id)
    assert refused.value.code == "NOT_RESUMABLE"
    assert (
        refused.value.message
        == f"jobs of kind batch_analyze do not resume here: run `stockdesk jobs resume {batch.id}`"
    )
    assert kinds.stopped() == [] and resumed == []
    other, _ = store.open_with_tasks("sync", {"datasets": ["bars"]}, ["01:bars"])  # no command named
    with pytest.raises(ConflictException, match=r"own command runs again \(resumable here: briefing\)"):
        kinds.resume(other.id)
