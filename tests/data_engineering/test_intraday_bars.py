"""5-minute bars: yfinance and AkShare (em, sina) files, UTC bar starts across DST, all-or-nothing
rejection naming the line, wrong intervals refused, idempotent reruns, resampling, point in time, CLI."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import typer
from alembic.script import ScriptDirectory
from sqlalchemy import select
from typer.testing import CliRunner

from stockdesk.data_engineering.application import GetIntradayBarsUseCase, IntradayBarDTO
from stockdesk.data_engineering.application.intraday_import import IntradayImportResult, IntradayImportService
from stockdesk.data_engineering.domain.exceptions import IntradayImportError
from stockdesk.data_engineering.infrastructure.importers.intraday_csv import read_intraday_csv
from stockdesk.data_engineering.infrastructure.persistence.models import IntradayBarRow
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException

FIXTURES = Path(__file__).parent / "fixtures" / "intraday"
YF = FIXTURES / "AAPL_5m_yfinance.csv"  # Datetime,Open,High,Low,Close,Adj Close,Volume; 2024-07-26 and -11-04
YF_MULTI = FIXTURES / "MSFT_5m_yfinance_multiindex.csv"  # yfinance 1.x download(): Price/Ticker/Datetime
EM = FIXTURES / "600519_5m_akshare_em.csv"  # stock_zh_a_hist_min_em(period="5"), 2024-07-26
SINA = FIXTURES / "600519_5m_akshare_sina.csv"  # stock_zh_a_minute(period="5") with to_csv's index
DAILY = Path(__file__).parent / "fixtures" / "yfinance" / "ACME_historical_data.csv"
JULY, NOVEMBER = date(2024, 7, 26), date(2024, 11, 4)


@pytest.fixture
def store(database: Database) -> SqlMarketDataRepository:
    return SqlMarketDataRepository(database)


@pytest.fixture
def service(store: SqlMarketDataRepository) -> IntradayImportService:
    return IntradayImportService(store)


def load(path: Path, symbol: str, service: IntradayImportService, **options: str) -> IntradayImportResult:
    return service.import_file(read_intraday_csv(path, symbol, **options))


def bars(store: SqlMarketDataRepository, symbol: str, **options: object) -> list[IntradayBarDTO]:
    options.setdefault("as_of", date(2025, 1, 1))
    return GetIntradayBarsUseCase(store).execute(symbol, **options)  # type: ignore[arg-type]


def variant(tmp_path: Path, source: Path, line: int, old: str, new: str, name: str = "") -> Path:
    """`source` with `old` replaced by `new` on one 1-based file line (the header is line 1)."""
    lines = source.read_text("utf-8").splitlines()
    assert old in lines[line - 1], f"{old!r} not on line {line}: {lines[line - 1]}"
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    path = tmp_path / (name or f"bad_{source.name}")
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


# ---- importers ------------------------------------------------------------------------------------------
def test_yfinance_bars_are_stored_by_their_start_in_utc_on_both_sides_of_a_dst_change(
    store: SqlMarketDataRepository, service: IntradayImportService
) -> None:
    result = load(YF, "aapl", service)
    assert (result.layout, result.time_zone, result.rows_read, result.new) == (
        "yfinance",
        "America/New_York",
        25,
        25,
    )
    assert result.trading_days == 2
    stored = bars(store, "AAPL")
    first, november = stored[0], stored[21]
    assert first.ts_utc == datetime(2024, 7, 26, 13, 30, tzinfo=UTC)  # 09:30 EDT (-04:00)
    assert first.ts.isoformat() == "2024-07-26T09:30:00-04:00" and first.trade_date == JULY
    assert (first.open, first.high, first.low, first.close) == (217.96, 218.18, 217.95, 218.06)
    assert first.volume == 1_166_082 and first.amount is None
    assert november.ts_utc == datetime(2024, 11, 4, 14, 30, tzinfo=UTC)  # 09:30 EST (-05:00)
    assert november.ts.isoformat() == "2024-11-04T09:30:00-05:00" and november.trade_date == NOVEMBER
    assert stored[20].ts.isoformat() == "2024-07-26T15:55:00-04:00"
    assert store.count_intraday_bars("AAPL") == 25


def test_naive_timestamps_are_read_in_the_exchange_zone_unless_tz_says_otherwise(tmp_path: Path) -> None:
    naive = tmp_path / "AAPL_naive.csv"
    naive.write_text(YF.read_text().replace("-04:00,", ",").replace("-05:00,", ","))
    with_offsets = read_intraday_csv(YF, "AAPL").frame["ts_utc"]
    assert read_intraday_csv(naive, "AAPL").frame["ts_utc"].equals(with_offsets)
    in_tokyo = read_intraday_csv(naive, "AAPL", tz="Asia/Tokyo")
    assert in_tokyo.time_zone == "Asia/Tokyo"
    assert in_tokyo.frame["ts_utc"].iloc[0] == datetime(2024, 7, 26, 0, 30, tzinfo=UTC)
    with pytest.raises(BadRequestException, match="unknown time zone 'Mars/Olympus'"):
        read_intraday_csv(naive, "AAPL", tz="Mars/Olympus")


def test_yfinance_multi_level_header_is_read_and_its_ticker_must_be_the_symbol(
    store: SqlMarketDataRepository, service: IntradayImportService
) -> None:
    with pytest.raises(IntradayImportError, match="names ticker MSFT, not AAPL"):
        load(YF_MULTI, "AAPL", service)
    assert store.count_intraday_bars() == 0
    assert load(YF_MULTI, "MSFT", service).new == 6
    stored = bars(store, "MSFT")
    assert [b.ts_utc.hour for b in stored] == [14, 14, 14, 13, 13, 13]  # EST, then EDT from 2024-03-10
    assert (stored[0].open, stored[0].close, stored[0].volume) == (406.12, 406.22, 767_000)


def test_akshare_em_bar_ends_become_starts_and_lots_become_shares(
    store: SqlMarketDataRepository, service: IntradayImportService
) -> None:
    result = load(EM, "600519.SH", service)
    assert (result.layout, result.time_zone, result.new) == ("akshare-em", "Asia/Shanghai", 20)
    stored = bars(store, "600519.SH")
    first, last = stored[0], stored[-1]
    # 时间 09:35 labels the bar 09:30-09:35 (Beijing, UTC+8)
    assert first.ts.isoformat() == "2024-07-26T09:30:00+08:00"
    assert first.ts_utc == datetime(2024, 7, 26, 1, 30, tzinfo=UTC)
    assert (first.open, first.close, first.high, first.low) == (1452.0, 1449.0, 1453.2, 1447.8)
    assert first.volume == 82_000 and first.amount == 118_941_000.0  # 820 手 = 82,000 shares; CNY
    assert last.ts.isoformat() == "2024-07-26T14:55:00+08:00"  # the 15:00 bar started at 14:55
    assert {b.trade_date for b in stored} == {JULY}


def test_akshare_sina_file_with_a_pandas_index_column_keeps_volume_in_shares(
    store: SqlMarketDataRepository, service: IntradayImportService
) -> None:
    result = load(SINA, "600519", service, fmt="akshare")
    assert (result.symbol, result.layout, result.new) == ("600519.SH", "akshare-sina", 20)
    first = bars(store, "600519.SH")[0]
    assert first.ts.isoformat() == "2024-07-29T09:30:00+08:00"
    assert (first.open, first.high, first.low, first.close) == (1430.0, 1431.2, 1428.6, 1429.2)
    assert first.volume == 22_000 and first.amount == 31_457_800.0


def test_format_detection_can_be_forced_and_akshare_files_are_a_share_only(
    service: IntradayImportService, store: SqlMarketDataRepository
) -> None:
    with pytest.raises(IntradayImportError, match="does not match the akshare layout"):
        load(YF, "AAPL", service, fmt="akshare")
    with pytest.raises(IntradayImportError, match="does not match the yfinance layout"):
        load(EM, "600519.SH", service, fmt="yfinance")
    with pytest.raises(IntradayImportError, match="AAPL is not an A-share"):
        load(EM, "AAPL", service)
    with pytest.raises(BadRequestException, match="--format must be one of auto, yfinance, akshare"):
        load(YF, "AAPL", service, fmt="excel")
    assert store.count_intraday_bars() == 0


def test_rerun_changes_nothing_not_even_imported_at_and_a_corrected_bar_is_updated(
    store: SqlMarketDataRepository, service: IntradayImportService, database: Database, tmp_path: Path
) -> None:
    def stamps() -> list[tuple[datetime, datetime]]:
        table = IntradayBarRow.__table__
        with database.engine.connect() as conn:
            return list(conn.execute(select(table.c.ts_utc, table.c.imported_at).order_by(table.c.ts_utc)))

    assert load(EM, "600519.SH", service).new == 20
    before = stamps()
    again = load(EM, "600519.SH", service)
    assert (again.new, again.changed, again.unchanged) == (0, 0, 20)
    assert stamps() == before and store.count_intraday_bars() == 20
    fixed = variant(tmp_path, EM, 2, ",1449.00,", ",1449.50,", name=EM.name)  # the first bar's 收盘
    corrected = load(fixed, "600519.SH", service)
    assert (corrected.new, corrected.changed, corrected.unchanged) == (0, 1, 19)
    assert bars(store, "600519.SH")[0].close == 1449.5
    after = stamps()
    assert after[1:] == before[1:] and after[0][1] > before[0][1]


@pytest.mark.parametrize(
    ("line", "old", "new", "reason"),
    [
        (5, ",217.51,", ",217.30,", "line 5: high 217.3 is below max(open, close) 217.38"),
        (6, ",217.03,", ",217.05,", "line 6: low 217.05 is above min(open, close) 217.04"),
        (7, ",216.77,", ",-216.77,", "line 7: low must be positive, got -216.77"),
        (8, ",1276285", ",-5", "line 8: volume cannot be negative, got -5"),
        (9, ",217.05,", ",n/a,", "line 9: High: not a number 'n/a'"),
        (
            10,
            "10:10:00",
            "10:12:00",
            "line 10: bar start 2024-07-26T14:12:00+00:00 is not on a 5-minute boundary",
        ),
        (11, "10:15:00", "10:10:00", "line 11: bar start 2024-07-26T14:10:00+00:00 repeats line 10"),
        (
            26,
            "2024-11-04 09:45:00-05:00",
            "2024-11-04 9h45",
            "line 26: unparsable timestamp '2024-11-04 9h45'",
        ),
    ],
)
def test_one_bad_row_rejects_the_whole_file_naming_its_line(
    store: SqlMarketDataRepository,
    service: IntradayImportService,
    tmp_path: Path,
    line: int,
    old: str,
    new: str,
    reason: str,
) -> None:
    bad = variant(tmp_path, YF, line, old, new)
    with pytest.raises(IntradayImportError) as caught:
        load(bad, "AAPL", service)
    assert caught.value.message.startswith(f"{bad.name}: ")
    assert reason in caught.value.message and caught.value.message.endswith("; nothing imported")
    assert "\n" not in caught.value.message
    assert store.count_intraday_bars() == 0  # the 24 good rows are not written either


def test_volume_in_the_wrong_unit_is_caught_by_the_average_price(
    store: SqlMarketDataRepository, service: IntradayImportService, tmp_path: Path
) -> None:
    in_shares = variant(tmp_path, EM, 3, ",437,", ",43700,")  # 成交量 already x 100: now 100x too much
    with pytest.raises(IntradayImportError, match=r"line 3: average price amount/volume 14\.5 is outside"):
        load(in_shares, "600519.SH", service)
    assert store.count_intraday_bars() == 0


def one_minute_bars(tmp_path: Path, minutes: int) -> Path:
    rows = ["Datetime,Open,High,Low,Close,Adj Close,Volume"]
    for i in range(6):
        at = 9 * 60 + 30 + i * minutes
        rows.append(f"2024-07-26 {at // 60:02d}:{at % 60:02d}:00-04:00,10.0,10.2,9.9,10.1,10.1,1000")
    path = tmp_path / f"AAPL_{minutes}m.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize(
    ("make", "detected"),
    [
        (lambda tmp: one_minute_bars(tmp, 1), "detected 1-minute bars"),
        (lambda tmp: one_minute_bars(tmp, 15), "detected 15-minute bars"),
        (lambda tmp: one_minute_bars(tmp, 60), "detected 1-hour bars"),
        (lambda tmp: DAILY, "detected daily bars"),
    ],
)
def test_other_intervals_are_refused_saying_what_was_detected(
    store: SqlMarketDataRepository, service: IntradayImportService, tmp_path: Path, make, detected: str
) -> None:
    with pytest.raises(IntradayImportError) as caught:
        load(make(tmp_path), "AAPL", service)
    assert detected in caught.value.message and "only 5-minute bars can be imported" in caught.value.message
    assert store.count_intraday_bars() == 0


# ---- reading: resampling and point in time --------------------------------------------------------------
def test_us_bars_aggregate_from_the_0930_open_within_one_day(
    store: SqlMarketDataRepository, service: IntradayImportService
) -> None:
    load(YF, "AAPL", service)
    fives = bars(store, "AAPL", start=JULY, end=JULY)
    quarter = bars(store, "AAPL", start=JULY, end=JULY, interval="15m")
    assert [b.ts.strftime("%H:%M") for b in quarter] == [
        "09:30",
        "09:45",
        "10:00",
        "10:15",
        "10:30",
        "15:30",
        "15:45",
    ]
    q = quarter[0]
    assert (q.interval, q.bars, q.ts.isoformat()) == ("15m", 3, "2024-07-26T09:30:00-04:00")
    assert (q.open, q.high, q.low, q.close) == (217.96, 218.18, 217.37, 217.38)
    assert q.volume == 1_166_082 + 490_459 + 972_562
    hourly = bars(store, "AAPL", interval="60m")
    # counted from 09:30, not from the clock hour; November's first hour is not merged into July's last
    assert [(b.ts.isoformat(), b.bars) for b in hourly] == [
        ("2024-07-26T09:30:00-04:00", 12),
        ("2024-07-26T10:30:00-04:00", 3),
        ("2024-07-26T15:30:00-04:00", 6),
        ("2024-11-04T09:30:00-05:00", 4),
    ]
    assert hourly[0].close == fives[11].close and hourly[0].open == fives[0].open
    assert hourly[0].high == max(b.high for b in fives[:12]) and hourly[0].low == min(
        b.low for b in fives[:12]
    )
    assert sum(b.volume for b in hourly[:3]) == sum(b.volume for b in fives)
    assert [b.model_dump(exclude={"interval"}) for b in bars(store, "AAPL", interval="1h")] == [
        b.model_dump(exclude={"interval"}) for b in hourly
    ]
    thirty = bars(store, "AAPL", start=NOVEMBER, interval="30m")
    assert [(b.ts.strftime("%H:%M"), b.bars) for b in thirty] == [("09:30", 4)]


def test_a_share_bars_aggregate_per_session_with_the_afternoon_from_1300(
    store: SqlMarketDataRepository, service: IntradayImportService
) -> None:
    load(EM, "600519.SH", service)
    hourly = bars(store, "600519.SH", interval="60m")
    assert [(b.ts.strftime("%H:%M"), b.bars) for b in hourly] == [
        ("09:30", 12),
        ("10:30", 4),
        ("13:00", 2),
        ("14:00", 2),
    ]
    assert hourly[-1].close == 1451.2 and hourly[-1].amount == 130_178_570.0 + 107_039_520.0
    thirty = bars(store, "600519.SH", interval="30m")
    assert [b.ts.strftime("%H:%M") for b in thirty] == ["09:30", "10:00", "10:30", "11:00", "13:00", "14:30"]


def test_no_bar_of_a_day_after_as_of_is_returned(
    store: SqlMarketDataRepository, service: IntradayImportService
) -> None:
    load(YF, "AAPL", service)
    use_case = GetIntradayBarsUseCase(store)
    before = use_case.execute("AAPL", as_of=date(2024, 11, 1), end=date(2024, 12, 31))
    assert len(before) == 21 and max(b.trade_date for b in before) == JULY
    assert use_case.execute("AAPL", as_of=date(2024, 11, 1), start=NOVEMBER) == []
    assert use_case.execute("AAPL", as_of=date(2024, 11, 1), interval="60m")[-1].ts.date() == JULY
    assert len(use_case.execute("AAPL", as_of=NOVEMBER)) == 25
    assert use_case.execute("AAPL", as_of=date(2024, 7, 25)) == []


@pytest.mark.parametrize("interval", ["1m", "2h", "1d", "45m"])
def test_intervals_other_than_5_15_30_60_minutes_are_bad_requests(
    store: SqlMarketDataRepository, interval: str
) -> None:
    with pytest.raises(BadRequestException, match="intraday interval must be one of 5m, 15m, 30m, 60m, 1h"):
        GetIntradayBarsUseCase(store).execute("AAPL", as_of=JULY, interval=interval)


def test_the_migration_follows_0007_and_builds_the_table(database: Database) -> None:
    script = ScriptDirectory.from_config(database._alembic_config())
    assert script.get_revision("0008_intraday_bars").down_revision == "0007_jobs_and_tasks"
    database.upgrade()
    SqlMarketDataRepository(database).write_intraday_bars(
        read_intraday_csv(YF_MULTI, "MSFT").frame.drop(columns="_row")
    )
    assert SqlMarketDataRepository(database).count_intraday_bars("MSFT") == 6


# ---- CLI ------------------------------------------------------------------------------------------------
def test_cli_imports_a_file_and_a_rerun_reports_every_bar_unchanged(cli_app: typer.Typer) -> None:
    args = ["data", "import", "intraday-csv", str(EM), "--symbol", "600519.SH", "--json"]
    first = CliRunner().invoke(cli_app, args)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert (report["layout"], report["new_bars"], report["trading_days"]) == ("akshare-em", 20, 1)
    assert report["first_bar"] == "2024-07-26T09:30:00+08:00"
    again = json.loads(CliRunner().invoke(cli_app, args).stdout)
    assert (again["new_bars"], again["unchanged_bars"]) == (0, 20)
    text = CliRunner().invoke(cli_app, args[:-1])
    assert text.exit_code == 0 and "unchanged bars: 20" in text.stdout


def test_cli_bad_file_prints_one_error_line_and_exits_non_zero(cli_app: typer.Typer, tmp_path: Path) -> None:
    bad = variant(tmp_path, YF, 5, ",217.51,", ",217.30,")
    result = CliRunner().invoke(cli_app, ["data", "import", "intraday-csv", str(bad), "--symbol", "AAPL"])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {bad.name}: line 5: high 217.3 is below max(open, close)")
    assert result.stdout == ""
    wrong = CliRunner().invoke(cli_app, ["data", "import", "intraday-csv", str(DAILY), "--symbol", "ACME"])
    assert wrong.exit_code == 2 and "detected daily bars" in wrong.stderr
