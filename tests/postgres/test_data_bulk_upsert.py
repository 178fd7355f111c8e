"""Bulk upserts on PostgreSQL (`INSERT ... ON CONFLICT`): rows stored exactly as the ORM stores them,
NULLs never erase, NaN is NULL, and JSON with non-finite numbers is stored (as null), not refused.

tests/data_engineering/test_bulk_upsert.py checks the same on SQLite with SQLite's typeof()."""

from __future__ import annotations

import math
from datetime import date, datetime

import pandas as pd
from sqlalchemy import text

from stockdesk.data_engineering.infrastructure.persistence.models import (
    DailyValuationRow,
    FinancialReportRow,
    NewsItemRow,
)
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database


def raw(database: Database, sql: str) -> list[tuple]:
    with database.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(sql))]


def test_the_server_is_postgresql(database: Database) -> None:
    assert database.engine.dialect.name == "postgresql"
    assert raw(database, "SELECT current_setting('server_version_num')::int >= 120000") == [(True,)]


def test_bulk_rows_are_stored_as_the_orm_stores_them(database: Database) -> None:
    day, extra = date(2024, 3, 29), {"note": "年报", "flag": True, "n": 1, "nested": [1, None]}
    published = datetime(2024, 3, 29, 18, 5, 7, 250)
    with database.session() as session:
        session.add(DailyValuationRow(symbol="ORM", trade_date=day, close=1.5, is_derived=True))
        session.add(
            FinancialReportRow(symbol="ORM", end_date=day, ann_date=day, report_type="Q1", extra=extra)
        )
        session.add(NewsItemRow(symbol="ORM", published_at=published, title="t", url="u"))
    SqlMarketDataRepository(database).write_batch(
        {
            "valuations": pd.DataFrame(
                [{"symbol": "BULK", "trade_date": pd.Timestamp(day), "close": 1.5, "is_derived": True}]
            ),
            "financials": pd.DataFrame(
                [{"symbol": "BULK", "end_date": day, "ann_date": day, "report_type": "Q1", "extra": extra}]
            ),
            "news": pd.DataFrame([{"symbol": "BULK", "published_at": published, "title": "t", "url": "u"}]),
        }
    )
    for sql in (
        "SELECT symbol, trade_date, pg_typeof(trade_date)::text, close, is_derived,"
        " pg_typeof(is_derived)::text FROM daily_valuations",
        "SELECT symbol, end_date, ann_date, extra::text FROM financial_reports",
        "SELECT symbol, published_at, pg_typeof(published_at)::text FROM news_items",
    ):
        rows = {r[0]: r[1:] for r in raw(database, sql)}
        assert rows["BULK"] == rows["ORM"], sql
    assert rows["BULK"] == (published, "timestamp without time zone")


def test_conflicts_update_and_incoming_nulls_or_nan_never_erase(database: Database) -> None:
    with database.session() as session:
        session.add(
            DailyValuationRow(symbol="A", trade_date=date(2024, 1, 2), pe=10.0, pb=2.0, is_derived=False)
        )
    repository = SqlMarketDataRepository(database)
    day = pd.Timestamp("2024-01-02")
    update = [
        {"symbol": "A", "trade_date": day, "pe": 11.0, "pb": None, "is_derived": False},
        {"symbol": "B", "trade_date": day, "pe": math.nan, "pb": 1.0, "is_derived": True},
    ]
    assert repository.upsert_valuations(pd.DataFrame(update)) == 2
    assert repository.upsert_valuations(pd.DataFrame(update)) == 2  # a rerun: same rows, no duplicates
    stored = raw(database, "SELECT symbol, trade_date, pe, pb, is_derived FROM daily_valuations ORDER BY 1")
    assert stored == [
        ("A", date(2024, 1, 2), 11.0, 2.0, False),
        ("B", date(2024, 1, 2), None, 1.0, True),
    ]  # fmt: skip


def test_json_with_non_finite_numbers_is_stored_as_null(database: Database) -> None:
    extra = {"ok": 1.5, "nan": math.nan, "inf": [math.inf, -math.inf, 2]}
    report = {"symbol": "X", "end_date": date(2023, 12, 31), "ann_date": date(2024, 3, 1), "report_type": "A"}
    SqlMarketDataRepository(database).upsert_financials(pd.DataFrame([{**report, "extra": extra}]))
    with database.session() as session:
        session.add(FinancialReportRow(**{**report, "ann_date": date(2024, 4, 1)}, extra=extra))
    stored = raw(database, "SELECT ann_date, extra FROM financial_reports ORDER BY ann_date")
    expected = {"ok": 1.5, "nan": None, "inf": [None, None, 2]}
    assert stored == [(date(2024, 3, 1), expected), (date(2024, 4, 1), expected)]
