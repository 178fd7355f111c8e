"""The panel's get_ohlcv on intraday intervals: stored 5-minute bars (or aggregates) in the daily rows'
shape, point in time, and `no_intraday_data` only when the window really has no bar."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from stockdesk.data_engineering.application import (
    GetDailyBarsUseCase,
    GetFilingPagesUseCase,
    GetFilingsUseCase,
    GetIntradayBarsUseCase,
    GetNewsUseCase,
)
from stockdesk.data_engineering.application.intraday_import import IntradayImportService
from stockdesk.data_engineering.infrastructure.importers.intraday_csv import read_intraday_csv
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.debate.application.panel_context import NO_INTRADAY, load_context
from stockdesk.debate.application.panel_tools import PanelData, PanelTools
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException

YF = Path(__file__).parents[1] / "data_engineering" / "fixtures" / "intraday" / "AAPL_5m_yfinance.csv"
DAY = date(2024, 7, 26)


class NoIndex:
    """get_ohlcv never summarises filings; any use of the index is a test failure."""

    def index(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the page index was used")


def tools(database: Database, *, intraday: bool = True, max_rows: int = 500) -> PanelTools:
    market = SqlMarketDataRepository(database)
    data = PanelData(
        news=GetNewsUseCase(market),
        bars=GetDailyBarsUseCase(market),
        filings=GetFilingsUseCase(market),
        filing_pages=GetFilingPagesUseCase(market),
        intraday=GetIntradayBarsUseCase(SqlMarketDataRepository(database)) if intraday else None,
    )
    return PanelTools(data, NoIndex().index, max_ohlcv_rows=max_rows)


@pytest.fixture
def imported(database: Database) -> Database:
    IntradayImportService(SqlMarketDataRepository(database)).import_file(read_intraday_csv(YF, "AAPL"))
    return database


def test_5m_rows_have_the_daily_shape_with_local_exchange_time(imported: Database) -> None:
    answer = tools(imported).get_ohlcv("AAPL", "2024-07-26", "2024-07-26", interval="5m", as_of=DAY)
    assert set(answer) == {"ticker", "start_date", "end_date", "interval", "rows"}
    assert answer["interval"] == "5m" and len(answer["rows"]) == 21
    assert answer["rows"][0] == {
        "ts": "2024-07-26T09:30:00-04:00",
        "open": 217.96,
        "high": 218.18,
        "low": 217.95,
        "close": 218.06,
        "volume": 1_166_082.0,
    }
    assert answer["rows"][-1]["ts"] == "2024-07-26T15:55:00-04:00"
    daily_keys = {"ts", "open", "high", "low", "close", "volume"}
    assert all(set(row) == daily_keys for row in answer["rows"])


def test_coarser_intervals_are_aggregated_from_the_5m_bars(imported: Database) -> None:
    panel = tools(imported)
    hourly = panel.get_ohlcv("AAPL", "2024-07-26", "2024-07-26", interval="1h", as_of=DAY)["rows"]
    assert [r["ts"] for r in hourly] == [
        "2024-07-26T09:30:00-04:00",
        "2024-07-26T10:30:00-04:00",
        "2024-07-26T15:30:00-04:00",
    ]
    assert hourly == panel.get_ohlcv("AAPL", "2024-07-26", "2024-07-26", interval="60m", as_of=DAY)["rows"]
    quarter = panel.get_ohlcv("AAPL", "2024-07-26", "2024-07-26", interval="15m", as_of=DAY)["rows"]
    assert quarter[0] == {
        "ts": "2024-07-26T09:30:00-04:00",
        "open": 217.96,
        "high": 218.18,
        "low": 217.37,
        "close": 217.38,
        "volume": 1_166_082.0 + 490_459.0 + 972_562.0,
    }
    thirty = panel.get_ohlcv("AAPL", "2024-07-26", "2024-07-26", interval="30m", as_of=DAY)["rows"]
    assert [r["ts"][11:16] for r in thirty] == ["09:30", "10:00", "10:30", "15:30"]


def test_no_intraday_data_only_when_the_window_has_no_bar(imported: Database, database: Database) -> None:
    panel = tools(imported)
    empty = panel.get_ohlcv("AAPL", "2024-07-25", "2024-07-25", interval="5m", as_of=DAY)
    assert empty["rows"] == [] and empty["error"] == "no_intraday_data"
    assert panel.get_ohlcv("MSFT", "2024-07-26", "2024-07-26", interval="5m", as_of=DAY)["error"] == (
        "no_intraday_data"
    )
    # end_date is clipped to as_of: November's bars exist but are after the analysis date
    later = panel.get_ohlcv("AAPL", "2024-11-04", "2024-11-04", interval="5m", as_of=date(2024, 11, 1))
    assert later["rows"] == [] and later["error"] == "no_intraday_data"
    clipped = panel.get_ohlcv("AAPL", "2024-07-01", "2024-12-31", interval="5m", as_of=date(2024, 11, 1))
    assert "error" not in clipped and {r["ts"][:10] for r in clipped["rows"]} == {"2024-07-26"}
    assert (
        len(
            panel.get_ohlcv("AAPL", "2024-07-01", "2024-12-31", interval="5m", as_of=date(2024, 11, 4))[
                "rows"
            ]
        )
        == 25
    )
    without_store = tools(database, intraday=False)
    answer = without_store.get_ohlcv("AAPL", "2024-07-26", "2024-07-26", interval="5m", as_of=DAY)
    assert answer["rows"] == [] and answer["error"] == "no_intraday_data"


def test_too_many_rows_and_unsupported_intervals(imported: Database) -> None:
    panel = tools(imported, max_rows=10)
    crowded = panel.get_ohlcv("AAPL", "2024-07-26", "2024-07-26", interval="5m", as_of=DAY)
    assert crowded["rows"] == [] and crowded["error"] == "too_many_rows"
    assert len(panel.get_ohlcv("AAPL", "2024-07-26", "2024-07-26", interval="60m", as_of=DAY)["rows"]) == 3
    for interval in ("1m", "2h", "1wk"):
        with pytest.raises(BadRequestException, match="interval must be one of 1d, 5m, 15m, 30m, 60m, 1h"):
            panel.get_ohlcv("AAPL", "2024-07-26", "2024-07-26", interval=interval, as_of=DAY)


def test_the_panel_context_summarises_the_days_5m_rows(imported: Database) -> None:
    context = load_context(tools(imported), "AAPL", DAY)
    rows = tools(imported).get_ohlcv("AAPL", "2024-07-26", "2024-07-26", interval="5m", as_of=DAY)["rows"]
    high = max(rows, key=lambda r: r["high"])
    assert context.intraday.startswith(f"2024-07-26 5m（{len(rows)} 根，09:30-{rows[-1]['ts'][11:16]}）")
    assert f"开 {rows[0]['open']:g} → 收 {rows[-1]['close']:g}" in context.intraday
    assert f"最高 {high['high']:g}（{high['ts'][11:16]}）" in context.intraday
    assert f"成交量 {sum(r['volume'] for r in rows):,.0f}" in context.intraday
    assert "217.38" in context.intraday and "218.18" in context.intraday  # last close, the day's high
    saturday = load_context(tools(imported), "AAPL", date(2024, 7, 27)).intraday
    assert saturday.startswith("2024-07-26 5m")  # the latest trading day at or before as_of
    assert load_context(tools(imported), "AAPL", date(2024, 7, 25)).intraday == NO_INTRADAY
