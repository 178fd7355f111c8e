"""Sync runs as server jobs (the web UI's and REST's `data sync`): one durable task per symbol, per-symbol
outcomes read back from the task store, and a run nobody runs any more reads as interrupted."""

from __future__ import annotations

import threading
import time
from datetime import date

import pytest

from stockdesk.data_engineering.application.sync_runs import SyncRuns
from stockdesk.data_engineering.application.sync_service import SyncService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.data_engineering.infrastructure.persistence.sync_state import SqlSyncStateRepository
from stockdesk.data_engineering.infrastructure.providers.akshare_provider import AkShareProvider
from stockdesk.entrypoints.api import API_PREFIX
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.errors import BadRequestException, NotFoundException
from stockdesk.shared.tasks import JobStatus
from stockdesk.shared.tasks.executor import JobExecutor
from tests.api_support import api_client
from tests.data_engineering.provider_fakes import FAST, FixtureAkShare, fast_limiter, no_sleep

START, END = date(2024, 1, 1), date(2024, 1, 31)


def runs_over(database: Database, sdk: FixtureAkShare, executor: JobExecutor) -> SyncRuns:
    provider = AkShareProvider(sdk, policy=FAST, limiter=fast_limiter(), sleep=no_sleep)
    service = SyncService(
        {"CN": [provider]},
        SqlMarketDataRepository(database),
        SqlSyncStateRepository(database),
        today=lambda: date(2024, 12, 31),
    )
    return SyncRuns(service, SqlTaskStore(database), lambda: executor)


def finished(run_id: str, executor: JobExecutor) -> None:
    """Wait for the executor to let go of the run (it ends on its own thread)."""
    deadline = time.monotonic() + 60.0
    while executor.is_active(run_id) and time.monotonic() < deadline:
        time.sleep(0.02)


def test_each_symbol_is_a_task_with_its_outcomes_and_one_unreachable_symbol_makes_it_partial(
    database: Database,
) -> None:
    executor = JobExecutor(max_running=1)
    runs = runs_over(database, FixtureAkShare(unreachable=("600009",)), executor)
    started = runs.start("cn", ["600001.SH", "600009.sh"], START, END)
    assert [s.symbol for s in started.symbols] == ["600001.SH", "600009.SH"] and started.total == 2
    finished(started.run_id, executor)
    progress = runs.progress(started.run_id)
    assert progress.state == "partial" and progress.done == 2
    ok, failed = progress.symbols
    assert ok.state == "ok" and {o.status for o in ok.outcomes} == {"written"}
    assert failed.state == "failed" and {f.dataset for f in failed.failures} == {
        "security", "bars", "valuations", "financials"
    }  # fmt: skip
    assert all("Failed to resolve" in f.reason for f in failed.failures)
    assert [r.run_id for r in runs.recent()] == [started.run_id]


def test_a_bad_request_is_refused_before_anything_is_stored(database: Database) -> None:
    runs = runs_over(database, FixtureAkShare(), JobExecutor())
    with pytest.raises(BadRequestException) as caught:
        runs.start("cn", ["AAPL"], START, END)
    assert caught.value.code == "INVALID_SYMBOL" and runs.recent() == []
    with pytest.raises(NotFoundException):
        runs.progress("nope")


def test_a_stored_run_that_no_live_job_owns_reads_as_interrupted(database: Database) -> None:
    executor = JobExecutor(max_running=1)
    release = threading.Event()
    assert executor.submit("sync", "blocker", lambda: release.wait(30))  # holds the only sync slot
    runs = runs_over(database, FixtureAkShare(), executor)
    run_id = runs.start("cn", ["600001.SH"], START, END).run_id
    assert runs.progress(run_id).state == "queued"
    SqlTaskStore(database).set_job_status(run_id, JobStatus.RUNNING)
    later = runs_over(database, FixtureAkShare(), JobExecutor())  # another process: nothing live here
    stopped = later.progress(run_id)
    # reading it records the dead run as interrupted in the store, with the reason every job gets
    assert stopped.state == "interrupted" and stopped.error == "interrupted: the process running it stopped"
    assert SqlTaskStore(database).get_job(run_id).status is JobStatus.INTERRUPTED  # type: ignore[union-attr]
    assert stopped.symbols[0].state == "not-run"
    executor.cancel(run_id)  # never run it: the test's database goes away
    release.set()
    finished(run_id, executor)


def test_a_run_fetches_the_datasets_it_was_started_with(database: Database) -> None:
    executor = JobExecutor(max_running=1)
    runs = runs_over(database, FixtureAkShare(), executor)
    started = runs.start("cn", ["600001.SH"], date(2024, 12, 27), date(2024, 12, 31), ["bars_5m"])
    assert started.datasets == ["bars_5m"]
    finished(started.run_id, executor)
    [symbol] = runs.progress(started.run_id).symbols
    assert [(o.dataset, o.status, o.rows) for o in symbol.outcomes] == [("bars_5m", "written", 24)]
    with pytest.raises(BadRequestException) as caught:
        runs.start("cn", ["600001.SH"], START, END, ["bars", "minutes"])
    assert caught.value.code == "INVALID_DATASET" and len(runs.recent()) == 1
    default = runs.start("cn", ["600001.SH"], START, END)
    assert default.datasets == ["security", "bars", "valuations", "financials"]
    finished(default.run_id, executor)


def test_rest_sync_refuses_an_unknown_dataset_with_400(settings: Settings) -> None:
    container = AppContainer(settings)
    try:
        with api_client(container) as client:
            body = {"market": "cn", "symbols": ["600001.SH"], "datasets": ["bars_5m", "ticks"]}
            response = client.post(f"{API_PREFIX}/data/sync", json=body)
            assert response.status_code == 400
            assert response.json()["error"]["code"] == "INVALID_DATASET"
            assert "ticks" in response.json()["error"]["message"]
            assert container.sync_runs.recent() == []
    finally:
        container.close()
