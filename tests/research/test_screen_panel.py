"""The screen's panel: one query per table whatever the number of symbols, only the windows needed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

import pandas as pd
import pytest
from sqlalchemy import event

from stockdesk.data_engineering.application.use_cases import (
    GetMarketFramesUseCase,
    GetStockBasicInfoUseCase,
    ListSecuritiesUseCase,
)
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.research.application.screen.panel import ScreenPanelReader
from stockdesk.shared.db import Database
from tests.research import screen_store

TABLES = ("securities", "daily_bars", "daily_valuations", "financial_reports")


@pytest.fixture
def adapter(database: Database) -> ScreenPanelReader:
    screen_store.populate(database)
    repository = SqlMarketDataRepository(database)
    return ScreenPanelReader(
        ListSecuritiesUseCase(repository),
        GetStockBasicInfoUseCase(repository),
        GetMarketFramesUseCase(repository),
    )


@pytest.fixture
def queries(database: Database) -> Iterator[list[str]]:
    seen: list[str] = []

    def note(
        conn: object, cursor: object, statement: str, parameters: object, context: object, many: bool
    ) -> None:
        seen.append(statement)

    event.listen(database.engine, "before_cursor_execute", note)
    yield seen
    event.remove(database.engine, "before_cursor_execute", note)


def reads_of(statements: list[str]) -> dict[str, int]:
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    return {t: sum(1 for s in selects if re.search(rf"\bFROM {t}\b", s)) for t in TABLES}


def test_all_symbols_load_with_one_query_per_table(adapter: ScreenPanelReader, queries: list[str]) -> None:
    panel = adapter.load(screen_store.AS_OF)
    assert reads_of(queries) == dict.fromkeys(TABLES, 1)
    assert list(panel.securities["symbol"]) == sorted(screen_store.SYMBOLS)


def test_the_panel_holds_only_the_windows_and_reports_announced_by_as_of(adapter: ScreenPanelReader) -> None:
    panel = adapter.load(screen_store.AS_OF)
    as_of = pd.Timestamp(screen_store.AS_OF)
    assert panel.bars["trade_date"].max() <= as_of  # 600001.SH has bars after it
    assert panel.bars["trade_date"].min() >= as_of - timedelta(days=550)  # the technical window
    assert panel.valuations["trade_date"].min() >= as_of - timedelta(days=3 * 366 + 7)
    assert panel.valuations["trade_date"].max() <= as_of
    assert panel.financials["ann_date"].max() <= as_of and "extra" not in panel.financials
    assert len(panel.bars) < 421 + 30 + 300 + 100 + 250  # the oldest bars of 600001.SH were not read


def test_a_universe_keeps_its_order_and_names_the_symbols_not_stored(
    adapter: ScreenPanelReader, queries: list[str]
) -> None:
    panel = adapter.load(screen_store.AS_OF, ["AAPL", "000002.SZ", "AAPL", "XYZ"])
    assert list(panel.securities["symbol"]) == ["AAPL", "000002.SZ"] and panel.unknown == ("XYZ",)
    assert set(panel.bars["symbol"]) == {"AAPL", "000002.SZ"}
    reads = reads_of(queries)
    assert reads["daily_bars"] == reads["daily_valuations"] == reads["financial_reports"] == 1
