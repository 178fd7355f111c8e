"""`data sync` killed (SIGKILL) mid-way: the next sync resumes, skipping what was finished, and ends
with exactly the rows of an uninterrupted run; a further rerun changes nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd

from stockdesk.data_engineering.application.sync_service import DATASETS
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.data_engineering.infrastructure.persistence.sync_state import SqlSyncStateRepository
from stockdesk.shared.db import Database
from tests.faults.processes import subprocess_env
from tests.faults.sync_child import END, SYMBOLS, ManyStocksAkShare, run

FIRST, KILLED_IN, UNTOUCHED = SYMBOLS
TABLES = ("securities", "bars", "valuations", "financials")


def killed_sync(database: Database) -> None:
    """The sync in a child process, killed inside KILLED_IN's valuations call."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.faults.sync_child", database.url, "run-killed", KILLED_IN],
        stdout=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "stalled"
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL


def snapshot(database: Database) -> dict[str, pd.DataFrame]:
    """Every stored row of the synced tables, in key order (ids and derived text left out)."""
    repository = SqlMarketDataRepository(database)
    return {kind: pd.concat(list(repository.table_frames(kind)), ignore_index=True) for kind in TABLES}


def test_a_killed_sync_resumes_and_ends_like_an_uninterrupted_one(database: Database, tmp_path: Path) -> None:
    database.upgrade()
    killed_sync(database)
    state = SqlSyncStateRepository(database)
    assert all(state.done_through(FIRST, d) == END for d in DATASETS)
    assert state.done_through(KILLED_IN, "bars") == END
    assert state.done_through(KILLED_IN, "valuations") is None
    assert state.done_through(UNTOUCHED, "security") is None

    sdk = ManyStocksAkShare()
    resumed = run(database, sdk, "run-resumed")
    asked = {params["symbol"] for _name, params in sdk.calls}
    assert FIRST.split(".")[0] not in asked  # the finished symbol is not fetched again
    assert [name for name, p in sdk.calls if p["symbol"] == KILLED_IN.split(".")[0]] == [
        "stock_value_em", "stock_financial_analysis_indicator",
    ]  # fmt: skip
    assert resumed.symbol_status == {FIRST: "up-to-date", KILLED_IN: "ok", UNTOUCHED: "ok"}
    assert resumed.failures == []

    reference = Database(f"sqlite:///{tmp_path / 'uninterrupted.db'}")
    try:
        run(reference, ManyStocksAkShare(), "run-whole")
        expected = snapshot(reference)
    finally:
        reference.dispose()
    got = snapshot(database)
    for kind in TABLES:
        pd.testing.assert_frame_equal(got[kind], expected[kind], check_like=True, obj=kind)
    assert len(got["bars"]) == 3 * 5

    again = run(database, ManyStocksAkShare(), "run-again")  # idempotent: nothing due, nothing written
    assert set(again.symbol_status.values()) == {"up-to-date"}
    after = snapshot(database)
    for kind in TABLES:
        pd.testing.assert_frame_equal(after[kind], got[kind], obj=kind)
