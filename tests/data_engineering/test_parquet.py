"""Parquet export/import of our own store: exact round trip, all-or-nothing per file, CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
from sqlalchemy import select
from typer.testing import CliRunner

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.domain.exceptions import ImportValidationError
from stockdesk.data_engineering.infrastructure.exporters.parquet import TABLES, export_table
from stockdesk.data_engineering.infrastructure.importers.parquet import read_parquet_folder
from stockdesk.data_engineering.infrastructure.persistence.models import IntradayBarRow
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException
from tests.data_engineering import sample_store

FAR = date(2100, 1, 1)


@pytest.fixture
def repository(database: Database) -> SqlMarketDataRepository:
    repository = SqlMarketDataRepository(database)
    sample_store.populate(MarketDataImportService(repository))
    return repository


@pytest.fixture
def fresh(tmp_path: Path) -> SqlMarketDataRepository:
    """A second, empty store (another SQLite file), as on another machine."""
    db = Database(f"sqlite:///{tmp_path / 'fresh' / 'stockdesk.db'}")
    yield SqlMarketDataRepository(db)
    db.dispose()


def export_all(
    repository: SqlMarketDataRepository, folder: Path, chunk_rows: int = 100_000
) -> dict[str, int]:
    return {kind: export_table(repository, kind, folder, chunk_rows) for kind in TABLES}


def import_all(repository: SqlMarketDataRepository, folder: Path) -> list:
    service = MarketDataImportService(repository)
    return [service.import_frames(g.source, g.frames) for g in read_parquet_folder(folder)]


def read_export(folder: Path) -> dict[str, pd.DataFrame]:
    return {kind: pd.read_parquet(folder / f"{kind}.parquet") for kind in TABLES}


def test_export_import_export_round_trip_is_exact(
    repository: SqlMarketDataRepository, fresh: SqlMarketDataRepository, tmp_path: Path
) -> None:
    rows = export_all(repository, tmp_path / "first", chunk_rows=3)  # several row groups per table
    assert rows == repository.counts()
    assert all(rows.values())
    import_all(fresh, tmp_path / "first")
    assert fresh.counts() == repository.counts()
    export_all(fresh, tmp_path / "second")
    first, second = read_export(tmp_path / "first"), read_export(tmp_path / "second")
    for kind in TABLES:
        pd.testing.assert_frame_equal(first[kind], second[kind], check_exact=True, obj=kind)
    # and the store read back is the one written, not merely stable
    for symbol in ("600519.SH", "AAPL"):
        assert fresh.get_security(symbol) == repository.get_security(symbol)
        assert fresh.get_bars(symbol, FAR) == repository.get_bars(symbol, FAR)
        assert fresh.get_valuations(symbol, FAR) == repository.get_valuations(symbol, FAR)
        assert fresh.get_financials(symbol, FAR) == repository.get_financials(symbol, FAR)
        assert fresh.get_news(symbol, FAR) == repository.get_news(symbol, FAR)
        assert fresh.get_filings(symbol, FAR) == repository.get_filings(symbol, FAR)


def test_exported_columns_keep_json_dates_booleans_and_nulls(
    repository: SqlMarketDataRepository, tmp_path: Path
) -> None:
    export_all(repository, tmp_path)
    schema = pq.read_schema(tmp_path / "valuations.parquet")
    assert schema.field("trade_date").type == pa.date32() and schema.field("is_derived").type == pa.bool_()
    frames = read_export(tmp_path)
    securities = frames["securities"].set_index("symbol")
    assert json.loads(securities.loc["AAPL", "provider_codes"]) == {"sec": "0000320193", "yf": "AAPL"}
    assert securities.loc["600519.SH", "list_date"] == date(2001, 8, 27)
    assert securities.loc["AAPL", "list_date"] is None
    assert frames["valuations"]["is_derived"].tolist() == sample_store.valuations()["is_derived"].tolist()
    extras = [json.loads(e) if isinstance(e, str) else None for e in frames["financials"]["extra"]]
    assert extras == sample_store.financials()["extra"].tolist()
    assert frames["news"]["published_at"].iloc[0] == pd.Timestamp(datetime(2024, 1, 5, 9, 30, 15, 123456))
    assert pd.isna(frames["bars"]["adj_factor"].iloc[0])


def stored_5m(repository: SqlMarketDataRepository) -> pd.DataFrame:
    """Every stored 5-minute bar with when it was written (which the export leaves out)."""
    with repository._db.engine.connect() as conn:
        frame = pd.read_sql(select(IntradayBarRow.__table__), conn)
    frame["ts_utc"] = pd.to_datetime(frame["ts_utc"], utc=True)
    return frame.sort_values(["symbol", "ts_utc"]).reset_index(drop=True)


def test_5_minute_bars_round_trip_with_utc_starts_and_reimport_changes_nothing(
    repository: SqlMarketDataRepository, fresh: SqlMarketDataRepository, tmp_path: Path
) -> None:
    export_all(repository, tmp_path, chunk_rows=4)
    schema = pq.read_schema(tmp_path / "bars_5m.parquet")
    assert schema.field("ts_utc").type == pa.timestamp("us", tz="UTC")
    assert schema.field("trade_date").type == pa.date32()
    assert "imported_at" not in schema.names  # the store's own bookkeeping, not data
    exported = pd.read_parquet(tmp_path / "bars_5m.parquet")
    sample = sample_store.bars_5m().sort_values(["symbol", "ts_utc"]).reset_index(drop=True)
    assert exported["symbol"].tolist() == sample["symbol"].tolist()
    assert exported["ts_utc"].tolist() == sample["ts_utc"].tolist()  # the same instants, aware UTC
    march = exported[exported["symbol"] == "AAPL"]["ts_utc"].dt.strftime("%m-%d %H:%M UTC").tolist()
    assert march == [
        "03-08 14:30 UTC",
        "03-08 14:35 UTC",
        "03-11 13:30 UTC",
        "03-11 13:35 UTC",
        "03-11 19:55 UTC",
    ]
    for column in ["open", "high", "low", "close", "volume", "amount"]:
        assert exported[column].tolist() == pytest.approx(sample[column].tolist(), abs=0, nan_ok=True)
    assert exported["amount"].isna().tolist() == (sample["source"] == "yfinance").tolist()

    results = import_all(fresh, tmp_path)
    bars_5m = next(r for r in results if r.source == "bars_5m.parquet")
    assert bars_5m.rows == {"bars_5m": len(sample)} and bars_5m.new_rows == {"bars_5m": len(sample)}
    before = stored_5m(fresh)
    columns = [c for c in before.columns if c != "imported_at"]
    pd.testing.assert_frame_equal(before[columns], stored_5m(repository)[columns], check_exact=True)
    for symbol in ("600519.SH", "000858.SZ", "AAPL"):
        assert fresh.get_intraday_bars(symbol, FAR) == repository.get_intraday_bars(symbol, FAR)
    assert fresh.get_intraday_bars("AAPL", FAR)[2].ts.isoformat() == "2024-03-11T09:30:00-04:00"

    again = next(r for r in import_all(fresh, tmp_path) if r.source == "bars_5m.parquet")
    assert again.rows == {"bars_5m": 0} and again.new_rows == {"bars_5m": 0}
    pd.testing.assert_frame_equal(stored_5m(fresh), before, check_exact=True)  # imported_at too


def test_a_5_minute_bar_file_is_checked_symbol_by_symbol_and_refused_whole(
    repository: SqlMarketDataRepository, fresh: SqlMarketDataRepository, tmp_path: Path
) -> None:
    export_all(repository, tmp_path)
    frame = pq.read_table(tmp_path / "bars_5m.parquet").to_pandas()
    assert frame["symbol"].tolist() == ["000858.SZ"] * 4 + ["600519.SH"] * 4 + ["AAPL"] * 5
    frame.loc[2, "ts_utc"] = frame.loc[1, "ts_utc"]  # two bars of one symbol at one instant
    frame.loc[7, "trade_date"] = date(2024, 1, 4)  # 600519.SH's 13:00 bar is on 2024-01-03 in Shanghai
    frame.loc[9, "high"] = 1.0
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "bars_5m.parquet")
    group = next(g for g in read_parquet_folder(tmp_path) if g.source == "bars_5m.parquet")
    with pytest.raises(ImportValidationError) as info:
        MarketDataImportService(fresh).import_frames(group.source, group.frames)
    reasons = {p.row: p.reason for p in info.value.problems}
    assert list(reasons) == [3, 8, 10]  # and nothing about the instants both A-shares' bars share
    assert reasons[3] == "bar start 2024-01-03T01:35:00+00:00 repeats row 2"
    assert reasons[8].startswith("trade_date 2024-01-04 is not the Asia/Shanghai date 2024-01-03 of the bar")
    assert reasons[10].startswith("high 1 is below max(open, close) 170.4")
    assert fresh.count_intraday_bars() == 0


def test_cli_show_gives_5_minute_coverage_and_lists_the_newest_bars_as_of(
    repository: SqlMarketDataRepository, cli_app: typer.Typer
) -> None:
    args = ["data", "show", "AAPL", "--as-of", "2024-03-08", "--dataset", "bars_5m", "--rows", "1"]
    body = json.loads(CliRunner().invoke(cli_app, [*args, "--json"]).stdout)
    assert body["bars_5m"] == {
        "count": 2, "first": "2024-03-08T09:30:00-05:00", "last": "2024-03-08T09:35:00-05:00"
    }  # fmt: skip
    assert body["recent"]["dataset"] == "bars_5m"
    close = 170.1 + 0.2 + 0.1  # the sample's float, exactly
    assert [(r["ts"], r["close"]) for r in body["recent"]["rows"]] == [("2024-03-08T09:35:00-05:00", close)]
    text = CliRunner(env={"COLUMNS": "200"}).invoke(cli_app, [*args[:3], "--dataset", "bars_5m"])
    assert text.exit_code == 0, text.output
    coverage = next(line for line in text.stdout.splitlines() if "5-minute bars" in line and "│" in line)
    assert [c.strip() for c in coverage.split("│")[1:5]] == [
        "5-minute bars", "5", "2024-03-08 09:30-05:00", "2024-03-11 15:55-04:00"
    ]  # fmt: skip
    assert "the newest 5 5-minute bars" in text.stdout and "volume (shares)" in text.stdout
    assert "2024-03-11 15:55-04:00 │ 170.3" in text.stdout
    plain = json.loads(CliRunner().invoke(cli_app, ["data", "show", "AAPL", "--json"]).stdout)
    assert "recent" not in plain and plain["bars_5m"]["count"] == 5
    wrong = CliRunner().invoke(cli_app, ["data", "show", "AAPL", "--dataset", "minutes"])
    assert isinstance(wrong.exception, BadRequestException) and wrong.exception.code == "INVALID_DATASET"


def test_a_bad_file_is_rejected_whole_and_the_others_still_import(
    repository: SqlMarketDataRepository, fresh: SqlMarketDataRepository, tmp_path: Path
) -> None:
    export_all(repository, tmp_path)
    bars = pq.read_table(tmp_path / "bars.parquet").to_pandas()
    bars.loc[4, "close"] = -1.0
    pq.write_table(pa.Table.from_pandas(bars, preserve_index=False), tmp_path / "bars.parquet")
    service = MarketDataImportService(fresh)
    rejected = []
    for group in read_parquet_folder(tmp_path):
        try:
            service.import_frames(group.source, group.frames)
        except ImportValidationError as exc:
            rejected.append(exc)
    assert [r.source for r in rejected] == ["bars.parquet"]
    assert [p.row for p in rejected[0].problems] == [5]
    counts = fresh.counts()
    assert counts["bars"] == 0
    assert counts["valuations"] == repository.counts()["valuations"] > 0


def test_a_file_with_other_columns_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    frame = sample_store.bars().drop(columns=["close"])
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "bars.parquet")
    with pytest.raises(ImportValidationError) as info:
        read_parquet_folder(tmp_path)
    assert info.value.source == "bars.parquet"
    assert "missing column(s) close" in info.value.message


def test_a_folder_without_export_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not an export")
    with pytest.raises(ImportValidationError, match="no stockdesk Parquet files"):
        read_parquet_folder(tmp_path)


def stockdesk(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STOCKDESK_HOME": str(home), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_cli_export_then_import_parquet_into_another_home(
    repository: SqlMarketDataRepository, isolated_home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    exported = stockdesk("data", "export", str(out), "--json", home=isolated_home)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["rows"] == repository.counts()
    other = tmp_path / "other-home"
    imported = stockdesk("data", "import", "parquet", str(out), "--json", home=other)
    assert imported.returncode == 0, imported.stderr
    body = json.loads(imported.stdout)
    assert body["rejected"] == []
    assert {r["source"] for r in body["imported"]} == {f"{k}.parquet" for k in TABLES}
    again = json.loads(stockdesk("data", "import", "parquet", str(out), "--json", home=other).stdout)
    assert all(n == 0 for r in again["imported"] for n in r["new_rows"].values())  # reruns add nothing
    shown = stockdesk("data", "show", "600519.SH", "--as-of", "2024-05-01", "--json", home=other)
    assert json.loads(shown.stdout)["latest_financial"]["eps"] == 19.16
