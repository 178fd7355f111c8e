"""SQLite write-locked by another process (`BEGIN EXCLUSIVE` in a child): a writer here waits up
to the configured busy timeout, then fails with one clear DATABASE_LOCKED error and leaves nothing
half-written; a lock released within the timeout is simply waited out."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import text

from stockdesk.coordinator.application import ResearchRequest
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.db.errors import DatabaseLockedError
from tests.coordinator.support import AS_OF, SYMBOL, pipeline
from tests.faults.processes import subprocess_env

# Holds the write lock until a line arrives on stdin (or for HOLD seconds when given).
HOLDER = textwrap.dedent(
    """
    import sqlite3, sys, time
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    conn.execute("INSERT INTO securities (symbol, market) VALUES ('LOCK.X', 'US')")
    print("locked", flush=True)
    if len(sys.argv) > 2:
        time.sleep(float(sys.argv[2]))
    else:
        sys.stdin.readline()
    conn.execute("ROLLBACK")
    print("released", flush=True)
    """
)


@contextmanager
def write_lock(database: Database, hold_seconds: float | None = None) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the database's write lock (held until the block ends, or for a while)."""
    path = database.url.split("///", 1)[1]
    args = [sys.executable, "-c", HOLDER, path] + ([str(hold_seconds)] if hold_seconds else [])
    holder = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        if holder.poll() is None and hold_seconds is None:
            assert holder.stdin is not None
            holder.stdin.write("go\n")
            holder.stdin.flush()
        holder.wait(timeout=60)


def bars(symbol: str, days: int = 50) -> dict[str, pd.DataFrame]:
    dates = pd.bdate_range(end="2024-06-28", periods=days)
    frame = pd.DataFrame(
        {"symbol": symbol, "trade_date": dates, "open": 10.0, "high": 11.0, "low": 9.0, "close": 10.5,
         "volume": 1e5, "amount": 1e6, "adj_factor": 1.0}
    )  # fmt: skip
    security = {"symbol": symbol, "market": "US", "exchange": "NASDAQ", "currency": "USD"}
    return {"securities": pd.DataFrame([security]), "bars": frame}


def count(database: Database, sql: str) -> int:
    with database.engine.connect() as conn:
        return int(conn.execute(text(sql)).scalar_one())


def short_timeout(settings: Settings) -> Settings:
    return settings.model_copy(update={"sqlite_busy_timeout_seconds": 0.5})


def test_an_import_waits_out_a_lock_released_within_the_timeout(settings: Settings) -> None:
    container = AppContainer(settings)  # the default busy timeout (seconds, not milliseconds)
    container.database.upgrade()
    with write_lock(container.database, hold_seconds=1.0):
        result = container.data.import_service.import_frames("bars.csv", bars("WAIT"))
    assert result.rows["bars"] == 50
    assert count(container.database, "SELECT count(*) FROM daily_bars WHERE symbol = 'WAIT'") == 50
    assert count(container.database, "SELECT count(*) FROM securities WHERE symbol = 'LOCK.X'") == 0


def test_an_import_under_a_lock_past_the_timeout_fails_clearly_and_writes_nothing(settings: Settings) -> None:
    container = AppContainer(short_timeout(settings))
    container.database.upgrade()
    with write_lock(container.database), pytest.raises(DatabaseLockedError) as locked:
        container.data.import_service.import_frames("bars.csv", bars("LOCKED"))
    assert locked.value.code == "DATABASE_LOCKED"
    message = locked.value.message
    assert "locked by another" in message and "0.5 s" in message and "\n" not in message
    assert count(container.database, "SELECT count(*) FROM daily_bars WHERE symbol = 'LOCKED'") == 0
    assert count(container.database, "SELECT count(*) FROM securities WHERE symbol = 'LOCKED'") == 0
    again = container.data.import_service.import_frames("bars.csv", bars("LOCKED"))  # lock gone: it goes
    assert again.rows["bars"] == 50


def test_an_analysis_under_a_lock_fails_before_any_model_call_and_leaves_no_session(
    settings: Settings,
) -> None:
    container, router, _ = pipeline(short_timeout(settings))
    with write_lock(container.database), pytest.raises(DatabaseLockedError):
        container.coordinator.service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF))
    assert router.calls == []
    assert count(container.database, "SELECT count(*) FROM research_sessions") == 0
    assert count(container.database, "SELECT count(*) FROM llm_calls") == 0


def test_the_cli_prints_one_line_and_exits_1_when_the_lock_outlasts_the_timeout(
    database: Database, tmp_path: Path
) -> None:
    database.upgrade()
    csv = tmp_path / "AAPL.csv"
    csv.write_text("Date,Open,High,Low,Close,Adj Close,Volume\n2024-06-28,10,11,9,10.5,10.5,1000\n")
    with write_lock(database):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "stockdesk",
                "data",
                "import",
                "yfinance-csv",
                str(csv),
                "--symbol",
                "AAPL",
            ],
            env=subprocess_env(STOCKDESK_SQLITE_BUSY_TIMEOUT_SECONDS="0.5"),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the database") and "locked" in lines[0]
    assert "Traceback" not in done.stderr
    assert count(database, "SELECT count(*) FROM daily_bars") == 0
