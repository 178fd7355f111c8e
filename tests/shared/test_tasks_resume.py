"""A killed runner resumes where it stopped; adding tens of thousands of tasks is one bulk insert."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.tasks import JobStatus, TaskCounts, TaskStatus, config_hash, run_tasks

KEYS = [f"SYM{i:02d}|2024-06-28" for i in range(40)]
CONFIG = {"kind": "kill-test", "keys": KEYS}

# Opens (or reopens) the job, adds its tasks and works through them, logging each processed key.
RUNNER = textwrap.dedent(
    """
    import sys, time
    from stockdesk.shared.db import Database
    from stockdesk.shared.db.task_store import SqlTaskStore
    from stockdesk.shared.tasks import config_hash, run_tasks

    url, log_path, keys = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    config = {"kind": "kill-test", "keys": keys}
    store = SqlTaskStore(Database(url))
    job, _ = store.open_job("kill-test", config_hash(config), config)
    store.add_tasks(job.id, keys)

    def work(batch):
        out = {}
        for key in batch:
            time.sleep(0.05)
            with open(log_path, "a") as log:
                log.write(key + "\\n")
            out[key] = {"key": key}
        return out

    run_tasks(store, job.id, work, batch_size=4, max_attempts=3)
    """
)


def _logged(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


def test_a_killed_run_resumes_without_recomputing_finished_tasks(database: Database, tmp_path: Path) -> None:
    store = SqlTaskStore(database)
    database.upgrade()  # the schema exists before the child process and this test poll it
    script, killed_log = tmp_path / "runner.py", tmp_path / "killed.log"
    script.write_text(RUNNER)
    child = subprocess.Popen(
        [sys.executable, str(script), database.url, str(killed_log), ",".join(KEYS)],
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
            assert time.monotonic() < deadline, "the child made no progress"
            jobs = store.list_jobs(kind="kill-test")
            counts = store.counts(jobs[0].id) if jobs else TaskCounts()
            if counts.done >= 8 and counts.running:  # kill inside a batch, after some finished
                break
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL

    job_id = jobs[0].id
    done_before = {t.key for t in store.tasks(job_id, TaskStatus.DONE)}
    running_at_kill = {t.key for t in store.tasks(job_id, TaskStatus.RUNNING)}
    processed_before = _logged(killed_log)
    assert 8 <= len(done_before) < len(KEYS)
    assert running_at_kill
    assert done_before <= set(processed_before)
    # the first read of the dead run records it as interrupted (its running tasks pending again)
    assert store.get_job(job_id).status == JobStatus.INTERRUPTED  # type: ignore[union-attr]
    assert not store.tasks(job_id, TaskStatus.RUNNING)

    # reopen and finish in this process
    job, created = store.open_job("kill-test", config_hash(CONFIG), CONFIG)
    assert not created and job.id == job_id and job.status == JobStatus.INTERRUPTED
    assert store.add_tasks(job_id, KEYS) == 0
    remaining = len(KEYS) - len(done_before)
    assert store.counts(job_id) == TaskCounts(pending=remaining, done=len(done_before), total=len(KEYS))
    processed_after: list[str] = []

    def work(batch: list[str]) -> dict[str, Any]:
        processed_after.extend(batch)
        return {key: {"key": key} for key in batch}

    counts = run_tasks(store, job_id, work, batch_size=4, max_attempts=3)
    assert counts == TaskCounts(done=len(KEYS), total=len(KEYS))
    assert store.get_job(job_id).status == JobStatus.DONE  # type: ignore[union-attr]
    # every task done exactly once, with its own result
    tasks = store.tasks(job_id)
    assert [t.key for t in tasks] == sorted(KEYS)
    assert all(t.status == TaskStatus.DONE and t.result == {"key": t.key} for t in tasks)
    # nothing done before the kill was processed again; everything else (the batch that was
    # running at the kill included) was processed exactly once
    assert len(processed_after) == len(set(processed_after))
    assert set(processed_after) == set(KEYS) - done_before
    assert running_at_kill <= set(processed_after)
    # the interrupted batch's attempt was not counted: every task finished on its first attempt
    assert {t.attempts for t in tasks} == {1}


def test_adding_twenty_thousand_tasks_is_a_bulk_insert(database: Database) -> None:
    store = SqlTaskStore(database)
    job, _ = store.open_job("bulk", "h", {})
    keys = [f"SYM{i:05d}|2024-06-28" for i in range(20_000)]
    started = time.perf_counter()
    assert store.add_tasks(job.id, keys) == 20_000
    first = time.perf_counter() - started
    started = time.perf_counter()
    assert store.add_tasks(job.id, [*keys, "one-more"]) == 1
    again = time.perf_counter() - started
    print(f"add_tasks: 20,000 new keys in {first:.3f} s; 20,001 keys, 1 new, in {again:.3f} s")
    assert store.counts(job.id) == TaskCounts(pending=20_001, total=20_001)
    started = time.perf_counter()
    claimed = store.claimable(job.id, max_attempts=3, limit=500)
    store.mark_running(job.id, [t.key for t in claimed])
    store.complete(job.id, {t.key: {"i": n} for n, t in enumerate(claimed)})
    print(f"claim + mark_running + complete of 500 tasks in {time.perf_counter() - started:.3f} s")
    assert store.counts(job.id).done == 500


def test_a_job_cancelled_inside_a_batch_keeps_that_batch_pending_not_failed(tmp_path: Path) -> None:
    """A batch stopped at a node boundary was not tried: its tasks stay pending, not failed."""
    from stockdesk.shared.tasks.cancel import CancelToken, JobCancelled, set_token

    store = SqlTaskStore(Database(f"sqlite:///{tmp_path / 'tasks.db'}"))
    job, _ = store.open_job("cancel-test", config_hash({"n": 1}), {"n": 1})
    store.add_tasks(job.id, ["a", "b", "c", "d"])
    token = CancelToken()
    set_token(token)
    seen: list[list[str]] = []

    def work(batch: list[str]) -> dict[str, Any]:
        seen.append(batch)
        if len(seen) == 2:
            token.cancel("cancelled by the user")
            raise JobCancelled("job cancelled by the user")  # what a node boundary raises
        return {key: {"key": key} for key in batch}

    try:
        run_tasks(store, job.id, work, batch_size=2)
        raise AssertionError("the cancellation did not propagate")
    except JobCancelled:
        pass
    finally:
        set_token(None)
    counts = store.counts(job.id)
    assert counts == TaskCounts(pending=2, done=2, total=4), counts
    assert store.get_job(job.id).status == JobStatus.CANCELLED  # type: ignore[union-attr]
