"""The batch rules path gives the snapshot path's code signals, date by date (evaluate --mode rules)."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.research.application.code_signals import code_signal
from stockdesk.research.container import ResearchContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.errors import StockdeskError
from tests.evaluation.market import populate, symbols

NUMERIC = ("valuation_modeler", "technical_analyst", "financial_auditor")


def research(settings: Settings, database: Database) -> ResearchContainer:
    data = DataEngineeringContainer(settings, database)
    return ResearchContainer(
        basic_info=data.stock_basic_info,
        valuations=data.valuations,
        finance=data.finance,
        bars=data.daily_bars,
        llm_service=lambda: None,  # type: ignore[arg-type,return-value]
        search=lambda: None,  # type: ignore[arg-type,return-value]
        securities=data.securities,
        market_frames=data.market_frames,
    )


def snapshot_signal(container: ResearchContainer, expert: str, symbol: str, day: date) -> dict | None:
    try:
        snapshot = getattr(container, expert).build_snapshot(symbol, day)
    except StockdeskError:
        return None
    return code_signal(expert, snapshot.model_dump(mode="json")).model_dump(mode="json")


def test_batch_signals_equal_the_snapshot_paths_on_every_date(settings: Settings, database: Database) -> None:
    names = symbols(3)
    populate(database, names)
    container = research(settings, database)
    # from before the first report and the 20th bar to the end, every 9th business day
    dates = [d.date() for d in pd.bdate_range("2021-01-05", "2024-06-28", freq="9B")]
    evidence = container.rules_signals.evidence({s: dates for s in names}, list(NUMERIC))
    compared = errors = 0
    for symbol in names:
        for day in dates:
            point = evidence[symbol][day]
            for expert in NUMERIC:
                expected = snapshot_signal(container, expert, symbol, day)
                if expected is None:
                    assert expert in point.errors, (symbol, day, expert)
                    errors += 1
                else:
                    assert point.code_signals[expert] == expected, (symbol, day, expert)
                    compared += 1
    assert compared > 700 and errors > 0  # both branches ran


def test_the_technical_fields_carry_the_plan_prices_of_the_snapshot(
    settings: Settings, database: Database
) -> None:
    populate(database, symbols(1))
    container = research(settings, database)
    day = date(2023, 5, 17)
    point = container.rules_signals.evidence({symbols(1)[0]: [day]}, ["technical_analyst"])[symbols(1)[0]][
        day
    ]
    snapshot = container.technical_analyst.build_snapshot(symbols(1)[0], day).model_dump(mode="json")
    assert point.technical is not None
    for field in ("close", "atr14", "trade_date", "ma20", "rsi14", "macd_hist"):
        assert point.technical[field] == snapshot[field], field


def test_a_symbol_not_in_the_store_is_an_error_on_each_date(settings: Settings, database: Database) -> None:
    populate(database, symbols(1))
    evidence = research(settings, database).rules_signals.evidence(
        {"AAPL": [date(2023, 1, 3)]}, ["technical_analyst"]
    )
    assert "not in the store" in evidence["AAPL"][date(2023, 1, 3)].errors["*"]


def test_an_expert_without_a_rules_signal_is_refused(settings: Settings, database: Database) -> None:
    with pytest.raises(StockdeskError, match="no rules signal"):
        research(settings, database).rules_signals.evidence({"X": [date(2023, 1, 3)]}, ["astrologer"])
