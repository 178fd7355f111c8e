"""Disk full during an import: `stockdesk data import` in a child whose file-size limit
(RLIMIT_FSIZE) the database's write runs into. One clear error, none of the file's rows stored;
the same import without the limit stores the file whole."""

from __future__ import annotations

import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import typer
from sqlalchemy import text
from typer.testing import CliRunner

from stockdesk.shared.db import Database
from tests.faults.processes import subprocess_env

DAYS = 2000  # a few hundred KB of pages: far past the limit below
LIMIT_BYTES = 64 * 1024


def history_csv(path: Path) -> Path:
    days = pd.bdate_range(end="2024-06-28", periods=DAYS)
    frame = pd.DataFrame(
        {"Date": days.strftime("%Y-%m-%d"), "Open": 10.0, "High": 11.0, "Low": 9.0, "Close": 10.5,
         "Adj Close": 10.5, "Volume": 1000, "Dividends": 0.0, "Stock Splits": 0.0}
    )  # fmt: skip
    frame.loc[DAYS // 2, "Dividends"] = 0.2
    frame.to_csv(path, index=False)
    return path


def file_size_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:  # in the child before exec; Python ignores SIGXFSZ, so writes get EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def import_csv(csv: Path) -> list[str]:
    return ["data", "import", "yfinance-csv", str(csv), "--symbol", "AAPL"]


def rows(database: Database) -> dict[str, int]:
    with database.engine.connect() as conn:
        return {
            table: int(conn.execute(text(f"SELECT count(*) FROM {table} WHERE symbol = 'AAPL'")).scalar_one())
            for table in ("securities", "daily_bars", "dividends")
        }


def test_an_import_that_fills_the_disk_fails_clearly_and_keeps_nothing(
    database: Database, tmp_path: Path, cli_app: typer.Typer
) -> None:
    database.upgrade()
    database.dispose()  # the schema checkpointed into the file, no write-ahead log left over
    csv = history_csv(tmp_path / "AAPL.csv")

    full = subprocess.run(
        [sys.executable, "-m", "stockdesk", *import_csv(csv)],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=file_size_limit(LIMIT_BYTES),
    )
    assert full.returncode == 1, full.stderr
    lines = full.stderr.strip().splitlines()
    assert len(lines) == 1, full.stderr
    assert lines[0].startswith("error: the database ") and "could not be written" in lines[0]
    assert "disk is full" in lines[0] and "nothing of this write was kept" in lines[0]
    assert rows(database) == {"securities": 0, "daily_bars": 0, "dividends": 0}

    whole = CliRunner().invoke(cli_app, import_csv(csv))  # space again: the same file goes in whole
    assert whole.exit_code == 0, whole.output
    assert rows(database) == {"securities": 1, "daily_bars": DAYS, "dividends": 1}
