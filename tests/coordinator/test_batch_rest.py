"""Batch analyses and stored jobs over REST (FastAPI's test client, the real store and job executor)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from stockdesk.coordinator.application.batch_analysis import BatchAnalysisService
from stockdesk.coordinator.presentation.batch_jobs import BatchLauncher
from stockdesk.coordinator.presentation.rest.batch_router import build_batch_router
from stockdesk.data_engineering.application import CheckAsOfUseCase
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.api import API_PREFIX, install_error_handlers
from stockdesk.entrypoints.batch.analyze_work import AnalyzeSymbolsWork
from stockdesk.entrypoints.jobs_rest import build_jobs_router
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.tasks import ThreadEngine, config_hash
from stockdesk.shared.tasks.executor import JobExecutor
from tests.coordinator.test_batch_analyze import SYMBOLS, scripted_llm
from tests.research.support import AS_OF, populate_store


@pytest.fixture
def client(settings: Settings, database: Database, tmp_path: Path) -> TestClient:
    database.upgrade()
    for symbol in SYMBOLS:
        populate_store(database, symbol)
    store = SqlTaskStore(database)
    as_of_check = CheckAsOfUseCase(SqlMarketDataRepository(database))  # as the app's container wires it
    service = BatchAnalysisService(store, lambda: set(SYMBOLS), as_of_check.execute)
    executor = JobExecutor(max_running=1, max_queued=4)
    app = FastAPI()
    install_error_handlers(app)
    launcher = BatchLauncher(
        service=lambda: service,
        jobs=lambda: executor,
        # threads here: the scripted LLM is built per worker as on Ray (Ray runs in test_batch_analyze)
        make_work=lambda config: AnalyzeSymbolsWork(settings, config, llm=scripted_llm, distributed=False),
        make_engine=lambda: ThreadEngine(2),
        out_root=lambda: tmp_path / "batches",
    )
    app.include_router(build_batch_router(lambda: launcher), prefix=API_PREFIX)
    app.include_router(build_jobs_router(lambda: executor, lambda: store), prefix=API_PREFIX)
    return TestClient(app)


def _wait_done(client: TestClient, job_id: str) -> dict:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body = client.get(f"{API_PREFIX}/jobs/{job_id}").json()
        if body["live"] is None and body["status"] in ("done", "failed"):
            return body
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish")


def test_post_starts_a_batch_job_that_get_polls_and_serves_the_reports(client: TestClient) -> None:
    body = {"symbols": SYMBOLS, "as_of": AS_OF.isoformat(), "skip_debate": True}
    started = client.post(f"{API_PREFIX}/batch/analyses", json=body)
    assert started.status_code == 202, started.text
    job_id = started.json()["job_id"]
    assert started.json()["total"] == 3
    stored = _wait_done(client, job_id)
    assert stored["kind"] == "batch_analyze" and stored["tasks"]["done"] == 3
    status = client.get(f"{API_PREFIX}/batch/analyses/{job_id}").json()
    assert [r["status"] for r in status["rows"]] == ["done"] * 3
    index = client.get(f"{API_PREFIX}/batch/analyses/{job_id}/index")
    assert index.status_code == 200 and "3 of 3 symbols analysed" in index.text
    report = client.get(f"{API_PREFIX}/batch/analyses/{job_id}/reports/{SYMBOLS[0].lower()}")
    assert report.status_code == 200 and SYMBOLS[0] in report.text
    # posting the same body again names the same finished job: nothing runs again
    again = client.post(f"{API_PREFIX}/batch/analyses", json=body)
    assert again.json()["job_id"] == job_id and again.json()["done"] == 3
    assert client.get(f"{API_PREFIX}/jobs/{job_id}").json()["live"] is None


def test_the_job_stream_sends_progress_and_ends_with_done(client: TestClient) -> None:
    body = {"symbols": SYMBOLS[:2], "as_of": AS_OF.isoformat(), "skip_debate": True}
    job_id = client.post(f"{API_PREFIX}/batch/analyses", json=body).json()["job_id"]
    with client.stream("GET", f"{API_PREFIX}/jobs/{job_id}/events") as stream:
        text = "".join(stream.iter_text())
    states = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
    assert states and states[-1]["tasks"]["done"] == 2 and states[-1]["status"] == "done"
    assert text.rstrip().endswith("data: finished")


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"symbols": ["NOPE.SH"], "as_of": "2024-06-28"}, 404, "UNKNOWN_SYMBOL"),
        ({"symbols": [], "as_of": "2024-06-28"}, 400, "BAD_REQUEST"),
        ({"symbols": SYMBOLS, "as_of": "2024-13-01"}, 400, "BAD_REQUEST"),
        ({"symbols": SYMBOLS, "as_of": "2030-01-01"}, 400, "AS_OF_OUT_OF_RANGE"),
    ],
    ids=["unknown-symbol", "no-symbols", "bad-date", "after-the-stored-bars"],
)
def test_bad_batch_bodies_are_refused_before_any_work(
    client: TestClient, body: dict, status: int, code: str | None
) -> None:
    answer = client.post(f"{API_PREFIX}/batch/analyses", json=body)
    assert answer.status_code == status, answer.text
    if code:
        assert answer.json()["error"]["code"] == code
    assert client.get(f"{API_PREFIX}/jobs").json() == []


def test_unknown_jobs_are_404_and_a_job_run_elsewhere_gets_a_stop_request(
    client: TestClient, database: Database
) -> None:
    assert client.get(f"{API_PREFIX}/jobs/nope").json()["error"]["code"] == "JOB_NOT_FOUND"
    assert client.get(f"{API_PREFIX}/batch/analyses/nope").status_code == 404
    store = SqlTaskStore(database)
    job, _ = store.open_job("cli-run", config_hash({"x": 1}), {"x": 1})
    store.start_run(job.id)  # as a CLI process running it would (a live one: this process)
    answer = client.post(f"{API_PREFIX}/jobs/{job.id}/cancel")
    assert answer.status_code == 202 and answer.json()["state"] == "cancelling"
    assert store.cancel_requested(job.id) == "cancelled over the API"
    assert client.get(f"{API_PREFIX}/jobs/{job.id}").json()["cancel_requested"] is True
