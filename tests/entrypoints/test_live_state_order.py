"""A job page or the jobs API reads the executor's live state *before* the stored job: a job that
ends between the two reads then shows as live (followed to its end), never as "stored running with
nothing running it" (the orphan message and a Resume button for a job that just finished cleanly).

The store here lets the job end exactly between the reads; the old order (stored job, then live
state) answered `status: running, live: null` and these tests failed with it."""

from __future__ import annotations

import threading

from fastapi import FastAPI
from fastapi.testclient import TestClient

from stockdesk.entrypoints.api import API_PREFIX, install_error_handlers
from stockdesk.entrypoints.jobs_rest import build_jobs_router
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.tasks import JobRecord, JobStatus, config_hash
from stockdesk.shared.tasks.executor import JobExecutor


class EndsOnRead(SqlTaskStore):
    """Reading the job returns it as stored (running), then lets the job's thread end and waits
    until the executor has let it go: the worst moment for a reader."""

    def __init__(self, database: Database, executor: JobExecutor, release: threading.Event):
        super().__init__(database)
        self.executor, self.release, self.armed = executor, release, False

    def get_job(self, job_id: str) -> JobRecord | None:
        found = super().get_job(job_id)
        if self.armed:
            self.release.set()
            while self.executor.is_active(job_id):
                threading.Event().wait(0.01)
            super().set_job_status(job_id, JobStatus.DONE)
        return found


def test_the_jobs_api_reads_the_live_state_before_the_stored_job(database: Database) -> None:
    executor = JobExecutor()
    release = threading.Event()
    store = EndsOnRead(database, executor, release)
    job, _ = store.open_job("test", config_hash({"x": 1}), {"x": 1})
    store.start_run(job.id)  # running, owned by this live process
    assert executor.submit("test", job.id, lambda: release.wait(30))
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(build_jobs_router(lambda: executor, lambda: store), prefix=API_PREFIX)
    store.armed = True
    body = TestClient(app).get(f"{API_PREFIX}/jobs/{job.id}").json()
    assert body["status"] == "running"
    assert body["live"] is not None, "a stored running job read with no live state: the orphan race"
    store.armed = False
    after = TestClient(app).get(f"{API_PREFIX}/jobs/{job.id}").json()
    assert (after["status"], after["live"]) == ("done", None)


def test_a_list_reads_every_live_state_in_one_snapshot() -> None:
    executor = JobExecutor(max_running=2)
    hold = threading.Event()
    assert executor.submit("a", "j1", lambda: hold.wait(30))
    assert executor.submit("b", "j2", lambda: hold.wait(30))
    while set(executor.states().values()) != {"running"}:
        threading.Event().wait(0.01)
    assert executor.states() == {"j1": "running", "j2": "running"}
    executor.cancel("j1")
    assert executor.states()["j1"] == "cancelling"
    hold.set()
    while executor.states():
        threading.Event().wait(0.01)
