"""A hand-built A-share market for the paper book's tests: three names at 10.00 with a limit-up open,
a limit-down open and a suspension on known days, imported into a real store."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

A, B, C = "600000.SH", "600001.SH", "600002.SH"
DAYS = [d.date() for d in pd.bdate_range(date(2024, 1, 2), date(2024, 1, 31))]
LIMIT_UP_DAY = DAYS[5]  # A opens at limit-up (+10 %)
LIMIT_DOWN_DAY = DAYS[9]  # B opens at limit-down (-10 %)
SUSPENDED_DAY = DAYS[12]  # C has no bar


def _bars(
    symbol: str, moves: Mapping[date, float], missing: set[date], after: date | None, bump: float
) -> pd.DataFrame:
    rows, close = [], 10.0
    for day in DAYS:
        if day in missing:
            continue
        pre = close
        change = moves.get(day, 0.002 if day.toordinal() % 2 else -0.001)
        if after is not None and day > after:
            change += bump
        opened = round(pre * (1 + change), 2)
        close = opened
        rows.append(
            {"symbol": symbol, "trade_date": pd.Timestamp(day), "open": opened, "high": opened, "low": opened,
             "close": close, "pre_close": pre, "volume": 1e6, "amount": 1e7, "adj_factor": 1.0}
        )  # fmt: skip
    return pd.DataFrame(rows)


def populate(database: Database, *, perturb_after: date | None = None) -> None:
    """Import the market; `perturb_after`: every move after that day shifted by +3 % (point-in-time tests)."""
    bump = 0.03
    bars = pd.concat(
        [
            _bars(A, {LIMIT_UP_DAY: 0.10}, set(), perturb_after, bump),
            _bars(B, {LIMIT_DOWN_DAY: -0.10}, set(), perturb_after, -bump),
            _bars(C, {}, {SUSPENDED_DAY}, perturb_after, bump),
        ],
        ignore_index=True,
    )
    securities = pd.DataFrame(
        [
            {"symbol": s, "name": f"测试{i}", "industry": "测试", "market": "CN", "exchange": "SH",
             "currency": "CNY", "list_date": "2000-01-01"}
            for i, s in enumerate((A, B, C))
        ]
    )  # fmt: skip
    MarketDataImportService(SqlMarketDataRepository(database)).import_frames(
        "paper-test", {"securities": securities, "bars": bars}
    )
