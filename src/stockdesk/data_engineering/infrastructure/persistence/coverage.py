"""Coverage of the whole store in a few grouped queries: (rows, first, last) per symbol and dataset;
a part of the SQL market store (SqlMarketDataRepository, repository.py)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pandas as pd
from sqlalchemy import func, select

from stockdesk.data_engineering.infrastructure.persistence.models import (
    DailyBarRow,
    DailyValuationRow,
    FilingRow,
    FinancialReportRow,
    IntradayBarRow,
    NewsItemRow,
    SyncFailureRow,
    SyncStateRow,
)
from stockdesk.shared.db import Database

# dataset -> (symbol column, the date column its range is told by)
_RANGED: dict[str, tuple[Any, Any]] = {
    "bars": (DailyBarRow.symbol, DailyBarRow.trade_date),
    "valuations": (DailyValuationRow.symbol, DailyValuationRow.trade_date),
    "financials": (FinancialReportRow.symbol, FinancialReportRow.end_date),
    "news": (NewsItemRow.symbol, NewsItemRow.published_at),
    "filings": (FilingRow.symbol, FilingRow.filed_date),
    "bars_5m": (IntradayBarRow.symbol, IntradayBarRow.trade_date),
}
RANGE_COLUMNS = ["symbol", "dataset", "rows", "first", "last"]


def _day(value: Any) -> date | None:
    """SQLite may answer an aggregate of a date column as text; a datetime is cut to its date."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return pd.Timestamp(str(value)).date()


class SqlCoverageReads:
    """The coverage part of SqlMarketDataRepository, which gives it the database."""

    _db: Database

    def ranges(self) -> pd.DataFrame:
        self._db.ensure_schema()
        rows: list[tuple[Any, ...]] = []
        with self._db.engine.connect() as conn:
            for dataset, (symbol, day) in _RANGED.items():
                stmt = select(symbol, func.count(), func.min(day), func.max(day)).group_by(symbol)
                for sym, count, first, last in conn.execute(stmt):
                    rows.append((sym, dataset, int(count), _day(first), _day(last)))
        return pd.DataFrame(rows, columns=RANGE_COLUMNS)

    def bar_days(self, symbols: list[str] | None = None) -> pd.DataFrame:
        table = DailyBarRow.__table__
        stmt = select(table.c.symbol, table.c.trade_date)
        if symbols is not None:
            stmt = stmt.where(table.c.symbol.in_(symbols))
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            frame = pd.read_sql(stmt, conn)
        frame["trade_date"] = pd.to_datetime(frame["trade_date"])
        return frame

    def sync_marks(self) -> pd.DataFrame:
        done = select(SyncStateRow.symbol, func.max(SyncStateRow.done_through)).group_by(SyncStateRow.symbol)
        failed = select(SyncFailureRow.symbol, func.max(SyncFailureRow.created_at)).group_by(
            SyncFailureRow.symbol
        )
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            through = {sym: _day(day) for sym, day in conn.execute(done)}
            failures = {sym: pd.Timestamp(str(at)).to_pydatetime() for sym, at in conn.execute(failed) if at}
        symbols = sorted(set(through) | set(failures))
        return pd.DataFrame(
            {
                "symbol": symbols,
                "synced_through": [through.get(s) for s in symbols],
                "last_failure": [failures.get(s) for s in symbols],
            },
            columns=["symbol", "synced_through", "last_failure"],
        )
