"""The store: upserts never erase with NULLs, restatements are point in time, unknown symbols 404."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from stockdesk.data_engineering.application.use_cases import (
    GetFinanceForTickerUseCase,
    GetStockBasicInfoUseCase,
    GetStockDataSummaryUseCase,
)
from stockdesk.data_engineering.domain.exceptions import SymbolNotFoundError
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database


@pytest.fixture
def repository(database: Database) -> SqlMarketDataRepository:
    return SqlMarketDataRepository(database)


def test_partial_source_does_not_erase_stored_values(repository: SqlMarketDataRepository) -> None:
    day = pd.Timestamp("2024-01-02")
    repository.upsert_bars(
        pd.DataFrame([{"symbol": "A", "trade_date": day, "close": 10.0, "adj_factor": 1.5}])
    )
    repository.upsert_bars(
        pd.DataFrame([{"symbol": "A", "trade_date": day, "close": 10.1, "adj_factor": None}])
    )
    bar = repository.get_bars("A", date(2024, 1, 3))[0]
    assert (bar.close, bar.adj_factor) == (10.1, 1.5)
    assert repository.counts()["bars"] == 1


def test_restated_report_is_visible_only_from_its_own_announcement(
    repository: SqlMarketDataRepository,
) -> None:
    rows = [
        {"symbol": "A", "end_date": "2023-12-31", "ann_date": "2024-03-30", "report_type": "A", "eps": 1.0},
        {"symbol": "A", "end_date": "2023-12-31", "ann_date": "2024-06-15", "report_type": "A", "eps": 0.9},
    ]
    repository.upsert_financials(pd.DataFrame(rows).assign(end_date=lambda f: pd.to_datetime(f.end_date)))
    finance = GetFinanceForTickerUseCase(repository)
    assert finance.execute("A", as_of=date(2024, 3, 29)) == []
    assert [r.eps for r in finance.execute("A", as_of=date(2024, 5, 1))] == [1.0]
    assert [r.eps for r in finance.execute("A", as_of=date(2024, 7, 1))] == [0.9]


def test_unknown_symbol_is_a_distinguishable_not_found(repository: SqlMarketDataRepository) -> None:
    assert GetStockBasicInfoUseCase(repository).execute("600999.SH") is None
    with pytest.raises(SymbolNotFoundError) as info:
        GetStockDataSummaryUseCase(repository).execute("600999.SH")
    assert info.value.http_status == 404 and info.value.code == "STOCK_NOT_FOUND"
    assert "该标的不存在" in info.value.message


def test_a_missing_json_payload_does_not_erase_the_stored_one(repository: SqlMarketDataRepository) -> None:
    row = {
        "symbol": "A",
        "end_date": pd.Timestamp("2023-12-31"),
        "ann_date": "2024-03-30",
        "report_type": "A",
    }
    repository.upsert_financials(pd.DataFrame([{**row, "eps": 1.0, "extra": {"q_roe": 3.3}}]))
    repository.upsert_financials(pd.DataFrame([{**row, "eps": 1.0, "extra": None}]))
    assert repository.get_financials("A", date(2024, 4, 1))[0].extra == {"q_roe": 3.3}
