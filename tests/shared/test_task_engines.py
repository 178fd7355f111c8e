"""The job engine on every backend: idempotent reruns, retries with backoff, budget stop, stop requests,
a killed worker and a killed driver (local Ray)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.tasks import (
    Backoff,
    InlineEngine,
    ITaskEngine,
    JobStatus,
    RunBudget,
    TaskStatus,
    ThreadEngine,
    config_hash,
    run_tasks,
)
from stockdesk.shared.tasks.cancel import JobCancelled
from tests.ray_support import ray_address
from tests.shared.task_work import LoggedWork, runs

KEYS = [f"S{i:02d}" for i in range(12)]
QUICK = Backoff(base=0.05, cap=0.2)


@pytest.fixture(params=["inline", "threads", "ray"])
def engine(request: pytest.FixtureRequest) -> Iterator[ITaskEngine]:
    if request.param == "inline":
        built: ITaskEngine = InlineEngine()
    elif request.param == "threads":
        built = ThreadEngine(3)
    else:
        request.getfixturevalue("ray_local")
        from stockdesk.shared.tasks.ray_engine import RayEngine

        built = RayEngine(3, cpus_per_task=1)
    yield built
    built.close()


def _job(store: SqlTaskStore, name: str, keys: list[str] = KEYS) -> str:
    config = {"test": name, "keys": keys}
    job, _ = store.open_job("engine-test", config_hash(config), config)
    store.add_tasks(job.id, keys)
    return job.id


@pytest.fixture
def store(database: Database) -> SqlTaskStore:
    database.upgrade()
    return SqlTaskStore(database)


def test_every_task_runs_once_and_a_rerun_computes_nothing(
    store: SqlTaskStore, engine: ITaskEngine, tmp_path: Path
) -> None:
    job_id = _job(store, "once")
    work = LoggedWork(str(tmp_path))
    counts = run_tasks(store, job_id, work, batch_size=2, engine=engine)
    assert (counts.done, counts.total) == (12, 12)
    assert store.get_job(job_id).status is JobStatus.DONE  # type: ignore[union-attr]
    # reopening the same job and running it again: nothing is claimable, nothing runs again
    again = _job(store, "once")
    assert again == job_id
    run_tasks(store, job_id, work, batch_size=2, engine=engine)
    assert [runs(tmp_path, key) for key in KEYS] == [1] * 12
    assert {t.result["key"] for t in store.tasks(job_id)} == set(KEYS)  # type: ignore[index]


def test_a_failed_task_waits_its_backoff_then_succeeds(
    store: SqlTaskStore, engine: ITaskEngine, tmp_path: Path
) -> None:
    job_id = _job(store, "retry")
    work = LoggedWork(str(tmp_path), fail_first=frozenset({"S03"}))
    backoff = Backoff(base=0.4, cap=1.0)
    counts = run_tasks(store, job_id, work, batch_size=1, engine=engine, backoff=backoff)
    assert counts.done == 12 and counts.failed == 0
    task = next(t for t in store.tasks(job_id) if t.key == "S03")
    assert task.attempts == 2 and task.error is None
    first, second = (float(line.split()[1]) for line in (tmp_path / "S03").read_text().splitlines())
    assert second - first >= 0.4  # the second attempt started no earlier than the backoff allowed


def test_a_task_failing_every_time_is_reported_after_max_attempts_with_its_error(
    store: SqlTaskStore, engine: ITaskEngine, tmp_path: Path
) -> None:
    job_id = _job(store, "always")
    work = LoggedWork(str(tmp_path), fail_always=frozenset({"S05"}))
    counts = run_tasks(store, job_id, work, batch_size=3, max_attempts=3, engine=engine, backoff=QUICK)
    assert (counts.done, counts.failed) == (11, 1)
    failed = store.tasks(job_id, TaskStatus.FAILED)
    assert [t.key for t in failed] == ["S05"] and failed[0].attempts == 3
    assert failed[0].error == "RuntimeError: S05 failed on purpose"
    assert runs(tmp_path, "S05") == 3
    job = store.get_job(job_id)
    assert job is not None and job.status is JobStatus.FAILED and "1 of 12 tasks failed" in (job.error or "")


def test_backoff_doubles_per_attempt_up_to_its_cap() -> None:
    backoff = Backoff(base=2.0, cap=10.0)
    assert [backoff.seconds(n) for n in (1, 2, 3, 4, 5)] == [2.0, 4.0, 8.0, 10.0, 10.0]


def test_a_failed_task_is_not_claimable_before_its_backoff_ends(store: SqlTaskStore) -> None:
    job_id = _job(store, "claim", ["A", "B"])
    store.mark_running(job_id, ["A", "B"])
    later = datetime(2999, 1, 1, tzinfo=UTC)
    store.fail(job_id, {"A": "X: boom", "B": "X: boom"}, {"A": later})
    now = datetime.now(UTC)
    assert [t.key for t in store.claimable(job_id, 3, now=now)] == ["B"]
    assert store.next_retry_at(job_id, 3) == later


def test_the_budget_stops_new_tasks_and_a_higher_budget_resumes(
    store: SqlTaskStore, engine: ITaskEngine, tmp_path: Path
) -> None:
    job_id = _job(store, "budget")
    work = LoggedWork(str(tmp_path), tokens=100)
    # batches of 2 keys spend 200 tokens; the budget of 500 is reached after 3 batches on the
    # inline engine, and at most `workers` batches later on the others (in flight when it is reached)
    counts = run_tasks(store, job_id, work, batch_size=2, engine=engine, budget=RunBudget(max_tokens=500))
    job = store.get_job(job_id)
    assert job is not None and job.status is JobStatus.STOPPED
    assert job.error is not None and job.error.startswith("token budget reached")
    assert 6 <= counts.done <= 6 + 2 * (engine.workers - 1) and counts.pending == 12 - counts.done
    counts = run_tasks(store, job_id, work, batch_size=2, engine=engine, budget=RunBudget(max_tokens=10_000))
    assert counts.done == 12
    assert [runs(tmp_path, key) for key in KEYS] == [1] * 12


def test_a_stop_request_from_elsewhere_cancels_and_leaves_the_rest_pending(
    store: SqlTaskStore, engine: ITaskEngine, tmp_path: Path
) -> None:
    job_id = _job(store, "cancel")
    work = LoggedWork(str(tmp_path), sleep=0.2)

    def ask_to_stop() -> None:
        while store.counts(job_id).done < 2:
            time.sleep(0.05)
        store.request_cancel(job_id, "cancelled by a test")

    asker = threading.Thread(target=ask_to_stop)
    asker.start()
    with pytest.raises(JobCancelled):
        run_tasks(store, job_id, work, batch_size=1, engine=engine)
    asker.join()
    job = store.get_job(job_id)
    counts = store.counts(job_id)
    assert job is not None and job.status is JobStatus.CANCELLED and job.cancel_reason is None
    assert counts.running == 0 and 2 <= counts.done < 12
    # resuming finishes the rest, without running finished tasks again
    done_before = {t.key for t in store.tasks(job_id, TaskStatus.DONE)}
    run_tasks(store, job_id, work, batch_size=1, engine=engine)
    assert store.counts(job_id).done == 12
    assert all(runs(tmp_path, key) == 1 for key in done_before)


def test_a_killed_ray_worker_fails_only_its_batch_which_is_retried(
    store: SqlTaskStore, ray_local: None, tmp_path: Path
) -> None:
    from stockdesk.shared.tasks.ray_engine import RayEngine

    job_id = _job(store, "die")
    work = LoggedWork(str(tmp_path), die_first=frozenset({"S04"}))
    counts = run_tasks(store, job_id, work, batch_size=2, engine=RayEngine(2), backoff=QUICK)
    assert counts.done == 12 and counts.failed == 0
    assert runs(tmp_path, "S04") == 2  # died once, done on the retry
    # its batch-mate (S05, after it in the same batch) never started the first time: one run only
    assert runs(tmp_path, "S05") == 1
    assert next(t for t in store.tasks(job_id) if t.key == "S04").attempts == 2


DRIVER = textwrap.dedent(
    """
    import sys
    import ray
    from stockdesk.shared.db import Database
    from stockdesk.shared.db.task_store import SqlTaskStore
    from stockdesk.shared.tasks import config_hash, run_tasks
    from stockdesk.shared.tasks.ray_engine import RayEngine, start_ray
    from tests.shared.task_work import LoggedWork

    url, address, log_dir = sys.argv[1:4]
    keys = [f"S{i:02d}" for i in range(12)]
    start_ray(address)
    store = SqlTaskStore(Database(url))
    config = {"test": "driver", "keys": keys}
    job, _ = store.open_job("engine-test", config_hash(config), config)
    store.add_tasks(job.id, keys)
    run_tasks(store, job.id, LoggedWork(log_dir, sleep=0.3), batch_size=1, engine=RayEngine(2))
    """
)


def test_a_killed_driver_is_resumed_by_the_next_run_without_redoing_finished_tasks(
    store: SqlTaskStore, database: Database, ray_local: None, tmp_path: Path
) -> None:
    from stockdesk.shared.tasks.ray_engine import RayEngine

    script, logs = tmp_path / "driver.py", tmp_path / "logs"
    logs.mkdir()
    script.write_text(DRIVER)
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen(
        [sys.executable, str(script), database.url, ray_address(), str(logs)],
        cwd=root,
        env={**__import__("os").environ, "PYTHONPATH": str(root)},
        stderr=subprocess.PIPE,
    )
    job_id = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        jobs = store.list_jobs("engine-test")
        if jobs and store.counts(jobs[0].id).done >= 3:
            job_id = jobs[0].id
            break
        assert child.poll() is None, child.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
        time.sleep(0.1)
    assert job_id is not None, "the driver finished no task in two minutes"
    child.send_signal(signal.SIGKILL)
    child.wait(30)
    done_at_kill = {t.key for t in store.tasks(job_id, TaskStatus.DONE)}
    assert store.counts(job_id).done < 12  # killed midway

    reopened = _job(store, "driver")  # what the same command does on its next run
    assert reopened == job_id and store.counts(job_id).running == 0
    run_tasks(store, job_id, LoggedWork(str(logs)), batch_size=1, engine=RayEngine(2))
    assert store.counts(job_id).done == 12
    assert all(runs(logs, key) == 1 for key in done_at_kill)  # finished work is never redone


def test_reopening_a_job_whose_runner_is_alive_leaves_its_tasks_alone(store: SqlTaskStore) -> None:
    job_id = _job(store, "live", ["A", "B"])
    store.start_run(job_id)  # this process runs it: alive
    store.mark_running(job_id, ["A"])
    job, created = store.open_job("engine-test", config_hash({"test": "live", "keys": ["A", "B"]}), {})
    assert not created and job.live and job.status is JobStatus.RUNNING
    assert {t.key: t.status for t in store.tasks(job_id)} == {
        "A": TaskStatus.RUNNING,
        "B": TaskStatus.PENDING,
    }


def test_a_second_runner_is_refused_while_another_process_runs_the_job(
    store: SqlTaskStore, database: Database, tmp_path: Path
) -> None:
    from sqlalchemy import update

    from stockdesk.shared.db.task_store import JOBS
    from stockdesk.shared.tasks.runner import JobAlreadyRunning

    job_id = _job(store, "other", ["A"])
    with database.session() as db:  # a runner on another host, heartbeat just now
        db.execute(
            update(JOBS)
            .where(JOBS.c.id == job_id)
            .values(status="running", owner="elsewhere:4242", heartbeat_at=datetime.now(UTC))
        )
    with pytest.raises(JobAlreadyRunning, match="already running in process elsewhere:4242"):
        run_tasks(store, job_id, LoggedWork(str(tmp_path)))
    assert runs(tmp_path, "A") == 0


def test_liveness_is_the_pid_on_this_host_and_the_heartbeat_elsewhere() -> None:
    import os
    import socket
    from datetime import timedelta

    from stockdesk.shared.tasks.liveness import STALE_SECONDS, runner_alive

    now = datetime.now(UTC)
    host = socket.gethostname()
    assert runner_alive(f"{host}:{os.getpid()}", now - timedelta(hours=1), now)  # alive, however old
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    assert not runner_alive(f"{host}:{dead.stdout.strip()}", now, now)  # exited a moment ago
    assert runner_alive("other-host:1", now - timedelta(seconds=STALE_SECONDS - 5), now)
    assert not runner_alive("other-host:1", now - timedelta(seconds=STALE_SECONDS + 5), now)
    assert not runner_alive(None, now, now)


def test_a_budget_spent_by_the_last_batch_still_ends_the_job_done(
    store: SqlTaskStore, tmp_path: Path
) -> None:
    job_id = _job(store, "last", ["A", "B"])
    # two batches of 100 tokens, a budget of 200: reached exactly when nothing is left to start
    counts = run_tasks(
        store, job_id, LoggedWork(str(tmp_path), tokens=100), batch_size=1, budget=RunBudget(200)
    )
    assert counts.done == 2
    assert store.get_job(job_id).status is JobStatus.DONE  # type: ignore[union-attr]
