"""The 5-minute bars (`bars_5m`) of the SQL market store (SqlMarketDataRepository, repository.py).

Bar starts are written as timezone-aware UTC: PostgreSQL keeps a timestamptz, SQLite the UTC wall
time as text (its DateTime drops the offset, so nothing but UTC may ever be bound), read back naive
and marked UTC again. A write compares each incoming bar with the stored one in the same transaction
and sends only new or changed bars, so a rerun of the same file changes nothing, `imported_at`
included.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pandas as pd
from sqlalchemy import Connection, Table, func, select

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.dtos import IntradayBarDTO, IntradayCoverage, IntradayWriteCounts
from stockdesk.data_engineering.domain.intraday import BASE_INTERVAL
from stockdesk.data_engineering.domain.symbols import exchange_timezone
from stockdesk.data_engineering.infrastructure.persistence.models import IntradayBarRow
from stockdesk.shared.db import Database
from stockdesk.shared.db.timestamps import as_utc
from stockdesk.shared.db.upsert import upsert_columns

_TABLE: Table = IntradayBarRow.__table__  # type: ignore[assignment]
_VALUES = ["trade_date", "open", "high", "low", "close", "volume", "amount", "source"]


def _plain(value: Any) -> Any:
    """NaN -> None (numbers come as Python floats from `tolist()`)."""
    return None if isinstance(value, float) and math.isnan(value) else value


def _rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Canonical frame -> Python rows: bar starts as aware UTC datetimes, exchange dates as dates."""
    columns: dict[str, list[Any]] = {
        "ts_utc": [t.astimezone(UTC) for t in pd.to_datetime(frame["ts_utc"], utc=True).dt.to_pydatetime()],
        "trade_date": list(pd.to_datetime(frame["trade_date"]).dt.date),
    }
    for name in F.INTRADAY_COLUMNS:
        if name not in columns:
            columns[name] = (
                [_plain(v) for v in frame[name].tolist()] if name in frame else [None] * len(frame)
            )
    return [dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)]


def _same(incoming: dict[str, Any], stored: dict[str, Any]) -> bool:
    """Equal as the upsert would leave them: an incoming NULL keeps the stored value."""
    return all(incoming[c] is None or incoming[c] == stored[c] for c in _VALUES)


class SqlIntradayBars:
    """The intraday part of SqlMarketDataRepository, which gives it the database."""

    _db: Database

    def _stored(self, conn: Connection, symbol: str, first: datetime, last: datetime) -> dict[datetime, dict]:
        stmt = select(_TABLE).where(
            _TABLE.c.symbol == symbol, _TABLE.c.ts_utc >= first, _TABLE.c.ts_utc <= last
        )
        return {as_utc(r["ts_utc"]): dict(r) for r in conn.execute(stmt).mappings()}  # type: ignore[misc]

    def write_intraday_bars(self, frame: pd.DataFrame) -> IntradayWriteCounts:
        if frame.empty:
            return IntradayWriteCounts()
        self._db.ensure_schema()
        with self._db.engine.begin() as conn:
            return self.write_intraday_in(conn, frame)

    def write_intraday_in(self, conn: Connection, frame: pd.DataFrame) -> IntradayWriteCounts:
        """The write of `write_intraday_bars` inside a transaction the caller holds (`write_batch`
        writes 5-minute bars together with other tables, e.g. a Parquet import or a sync)."""
        rows = _rows(frame)
        counts = IntradayWriteCounts()
        now = datetime.now(UTC)
        send: list[dict[str, Any]] = []
        for symbol in sorted({r["symbol"] for r in rows}):
            mine = [r for r in rows if r["symbol"] == symbol]
            stored = self._stored(
                conn, symbol, min(r["ts_utc"] for r in mine), max(r["ts_utc"] for r in mine)
            )
            for row in mine:
                before = stored.get(row["ts_utc"])
                if before is None:
                    counts.new += 1
                elif _same(row, before):
                    counts.unchanged += 1
                    continue
                else:
                    counts.changed += 1
                send.append({**row, "imported_at": now})
        if send:
            columns = {c: [r[c] for r in send] for c in [*F.INTRADAY_COLUMNS, "imported_at"]}
            upsert_columns(conn, _TABLE, columns, F.INTRADAY_KEY)
        return counts

    def get_intraday_bars(
        self,
        symbol: str,
        as_of: date,
        start: date | None = None,
        end: date | None = None,
        limit: int | None = None,
    ) -> list[IntradayBarDTO]:
        last = min(as_of, end) if end else as_of
        clauses = [_TABLE.c.symbol == symbol, _TABLE.c.trade_date <= last]
        if start:
            clauses.append(_TABLE.c.trade_date >= start)
        stmt = select(_TABLE).where(*clauses)
        if limit is None:
            stmt = stmt.order_by(_TABLE.c.ts_utc)
        else:  # the newest `limit` bars, turned back to oldest first below
            stmt = stmt.order_by(_TABLE.c.ts_utc.desc()).limit(limit)
        zone = ZoneInfo(exchange_timezone(symbol))
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            rows = conn.execute(stmt).mappings().all()
        if limit is not None:
            rows = rows[::-1]
        out = []
        for r in rows:
            stamp = as_utc(r["ts_utc"])
            assert stamp is not None
            out.append(
                IntradayBarDTO(
                    symbol=r["symbol"],
                    interval=BASE_INTERVAL,
                    ts=stamp.astimezone(zone),
                    ts_utc=stamp,
                    trade_date=r["trade_date"],
                    open=r["open"],
                    high=r["high"],
                    low=r["low"],
                    close=r["close"],
                    volume=r["volume"],
                    amount=r["amount"],
                )
            )
        return out

    def intraday_span(self, symbol: str, as_of: date) -> IntradayCoverage:
        stmt = select(func.count(), func.min(_TABLE.c.ts_utc), func.max(_TABLE.c.ts_utc)).where(
            _TABLE.c.symbol == symbol, _TABLE.c.trade_date <= as_of
        )
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            count, first, last = conn.execute(stmt).one()
        zone = ZoneInfo(exchange_timezone(symbol))

        def local(value: Any) -> datetime | None:  # SQLite answers an aggregate of it as text
            if value is None:
                return None
            stamp = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
            utc = as_utc(stamp)
            return utc.astimezone(zone) if utc else None

        return IntradayCoverage(count=int(count or 0), first=local(first), last=local(last))

    def count_intraday_bars(self, symbol: str | None = None) -> int:
        stmt = select(func.count()).select_from(_TABLE)
        if symbol:
            stmt = stmt.where(_TABLE.c.symbol == symbol)
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            return int(conn.execute(stmt).scalar() or 0)
