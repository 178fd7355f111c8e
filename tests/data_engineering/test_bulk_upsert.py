"""The fast bulk write stores exactly what the ORM stores, and keeps COALESCE-on-conflict."""

from __future__ import annotations

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


def test_bulk_rows_are_stored_as_the_orm_stores_them(database: Database) -> None:
    day, extra = date(2024, 3, 29), {"note": "年报", "flag": True, "n": 1, "nested": [1, None]}
    published = datetime(2024, 3, 29, 18, 5, 7, 250)
    with database.session() as session:
        session.add(DailyValuationRow(symbol="ORM", trade_date=day, close=1.5, is_derived=True))
        session.add(
            FinancialReportRow(symbol="ORM", end_date=day, ann_date=day, report_type="Q1", extra=extra)
        )
        session.add(NewsItemRow(symbol="ORM", published_at=published, title="t", url="u"))
    repository = SqlMarketDataRepository(database)
    repository.write_batch(
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
        "SELECT symbol, trade_date, typeof(trade_date), close, is_derived, typeof(is_derived)"
        " FROM daily_valuations",
        "SELECT symbol, end_date, ann_date, extra FROM financial_reports",
        "SELECT symbol, published_at, typeof(published_at) FROM news_items",
    ):
        rows = {r[0]: r[1:] for r in raw(database, sql)}
        assert rows["BULK"] == rows["ORM"], sql


def test_bulk_upsert_hits_orm_written_keys_and_never_erases_with_nulls(database: Database) -> None:
    with database.session() as session:
        session.add(
            DailyValuationRow(symbol="A", trade_date=date(2024, 1, 2), pe=10.0, pb=2.0, is_derived=False)
        )
    repository = SqlMarketDataRepository(database)
    update = pd.DataFrame(
        [
            {
                "symbol": "A",
                "trade_date": pd.Timestamp("2024-01-02"),
                "pe": 11.0,
                "pb": None,
                "is_derived": False,
            }
        ]
    )
    repository.upsert_valuations(update)
    assert raw(database, "SELECT symbol, trade_date, pe, pb FROM daily_valuations") == [
        ("A", "2024-01-02", 11.0, 2.0)
    ]
