"""A hand-built A-share store shaped like the sample's end: three names with a year of daily bars on
weekdays up to 2020-06-16 (no bars on weekends, none after the 16th), imported into a real store."""

from __future__ import annotations

import math
from datetime import date

import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

SYMBOLS = ("000338.SZ", "000783.SZ", "300027.SZ")
NAMES = {"000338.SZ": "潍柴动力", "000783.SZ": "长江证券", "300027.SZ": "华谊兄弟"}
LAST_DAY = date(2020, 6, 16)
DAYS = [d.date() for d in pd.bdate_range(date(2019, 6, 3), LAST_DAY)]


def _bars(symbol: str, index: int) -> pd.DataFrame:
    rows, close = [], 10.0 + index
    for n, day in enumerate(DAYS):
        pre = close
        # a different drift per name (one rises, one falls, one waves) so the rules verdicts differ
        drift = (0.004, -0.004, 0.0)[index] + 0.01 * math.sin(n / (5 + index))
        close = round(pre * (1 + drift), 2)
        rows.append(
            {"symbol": symbol, "trade_date": pd.Timestamp(day), "open": pre, "high": max(pre, close) * 1.01,
             "low": min(pre, close) * 0.99, "close": close, "pre_close": pre, "volume": 1e6 + n * 1e3,
             "amount": 1e7, "adj_factor": 1.0}
        )  # fmt: skip
    return pd.DataFrame(rows)


def populate(database: Database) -> None:
    securities = pd.DataFrame(
        [
            {"symbol": s, "name": NAMES[s], "industry": "测试", "market": "CN", "exchange": "SZ",
             "currency": "CNY", "list_date": "2000-01-01"}
            for s in SYMBOLS
        ]
    )  # fmt: skip
    bars = pd.concat([_bars(s, i) for i, s in enumerate(SYMBOLS)], ignore_index=True)
    MarketDataImportService(SqlMarketDataRepository(database)).import_frames(
        "scheduling-test", {"securities": securities, "bars": bars}
    )


US_NAME = "AAPL"


def populate_us(database: Database, last_day: date) -> None:
    """One US name with weekday bars to `last_day`: a market whose trading days differ from the A-shares'."""
    securities = pd.DataFrame(
        [{"symbol": US_NAME, "name": "Apple Inc.", "industry": "Technology", "market": "US",
          "exchange": "NASDAQ", "currency": "USD", "list_date": "1980-12-12"}]
    )  # fmt: skip
    bars = _bars(US_NAME, 2)
    bars = bars[bars["trade_date"] <= pd.Timestamp(last_day)]
    MarketDataImportService(SqlMarketDataRepository(database)).import_frames(
        "scheduling-test-us", {"securities": securities, "bars": bars}
    )
