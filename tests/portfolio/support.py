"""A store for the portfolio tests: three A-shares and one US stock, each with daily bars whose close
climbs a cent a business day from 2024-01-01 to AS_OF (so a close names its date)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

FIXTURES = Path(__file__).parent / "fixtures"
AS_OF = date(2024, 6, 28)
START = date(2024, 1, 1)
SECURITIES = {  # symbol: (name, market, exchange, currency, first close)
    "600001.SH": ("示例银行", "CN", "SH", "CNY", 10.0),
    "000002.SZ": ("示例地产", "CN", "SZ", "CNY", 8.0),
    "600003.SH": ("示例银行二", "CN", "SH", "CNY", 5.0),
    "AAPL": ("Apple Inc", "US", "US", "USD", 150.0),
}


def close_on(symbol: str, day: date) -> float:
    """The close the store holds for `symbol` on business day `day`."""
    index = len(pd.bdate_range(START, day)) - 1
    return round(SECURITIES[symbol][4] + 0.01 * index, 2)


def seed(database: Database, end: date = AS_OF) -> None:
    dates = pd.bdate_range(START, end)
    securities = []
    bars = []
    for symbol, (name, market, exchange, currency, first) in SECURITIES.items():
        securities.append(
            {
                "symbol": symbol, "name": name, "industry": "测试", "market": market, "exchange": exchange,
                "currency": currency, "list_date": "2000-01-01", "provider_codes": {"tushare": symbol},
            }
        )  # fmt: skip
        closes = [round(first + 0.01 * i, 2) for i in range(len(dates))]
        bars.append(
            pd.DataFrame(
                {
                    "symbol": symbol, "trade_date": dates, "open": closes, "high": closes, "low": closes,
                    "close": closes, "volume": 1e6, "amount": 1e7, "adj_factor": 1.0,
                }
            )
        )  # fmt: skip
    service = MarketDataImportService(SqlMarketDataRepository(database))
    service.import_frames("test", {"securities": pd.DataFrame(securities), "bars": pd.concat(bars)})
