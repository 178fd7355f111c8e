"""Property: the store's use cases never show anything announced or traded after `as_of`.

For random small stores (bars and valuations on random days; reports with random end dates, each
announced once or restated with later ann_dates) and a random `as_of` (often exactly a stored date),
bars/valuations are exactly the stored rows with trade_date <= as_of inside the window, and
financials are exactly the latest version announced by as_of of each period, newest period first,
as a brute-force reference computed here says. Everything goes through the real import service
and a real SQLite store, cleared between examples.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.application.use_cases import (
    GetDailyBarsUseCase,
    GetFinanceForTickerUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.data_engineering.infrastructure.persistence.models import (
    DailyBarRow,
    DailyValuationRow,
    FinancialReportRow,
    SecurityRow,
)
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

SYMBOLS = ("600519.SH", "000001.SZ", "AAPL")
BASE = date(2021, 1, 1)
SPAN = 500  # days of trading history after BASE
Report = tuple[date, date, float]  # end_date, ann_date, eps (unique per version, to tell them apart)


@dataclass
class Stock:
    bars: set[date] = field(default_factory=set)
    valuations: set[date] = field(default_factory=set)
    reports: list[Report] = field(default_factory=list)


def day(offset: int) -> date:
    return BASE + timedelta(days=offset)


@st.composite
def stores(draw: st.DrawFn) -> dict[str, Stock]:
    days = st.integers(0, SPAN).map(day)
    store: dict[str, Stock] = {}
    serial = 0
    for symbol in draw(st.lists(st.sampled_from(SYMBOLS), min_size=1, max_size=3, unique=True)):
        stock = Stock(bars=draw(st.sets(days, max_size=12)), valuations=draw(st.sets(days, max_size=12)))
        for end in draw(st.sets(st.integers(-200, SPAN).map(day), max_size=5)):
            lags = draw(st.lists(st.integers(0, 300), min_size=1, max_size=3, unique=True))
            for lag in sorted(lags):  # the first announcement, then restatements
                serial += 1
                stock.reports.append((end, end + timedelta(days=lag), float(serial)))
        store[symbol] = stock
    return store


def write(service: MarketDataImportService, store: dict[str, Stock]) -> None:
    """The whole store as one import (one transaction keeps each example quick)."""
    bars, valuations, reports = [], [], []
    for symbol, stock in store.items():
        bars.append(pd.DataFrame({"trade_date": sorted(stock.bars)}).assign(symbol=symbol))
        valuations.append(pd.DataFrame({"trade_date": sorted(stock.valuations)}).assign(symbol=symbol))
        reports.append(
            pd.DataFrame(stock.reports, columns=["end_date", "ann_date", "eps"]).assign(symbol=symbol)
        )
    frames = {
        "securities": pd.DataFrame({"symbol": list(store), "market": "CN"}),
        "bars": pd.concat(bars, ignore_index=True).assign(close=12.5),
        "valuations": pd.concat(valuations, ignore_index=True).assign(pe_ttm=12.5),
        "financials": pd.concat(reports, ignore_index=True),
    }
    service.import_frames("random store", frames)


def clear(database: Database) -> None:
    with database.engine.begin() as conn:
        for model in (DailyBarRow, DailyValuationRow, FinancialReportRow, SecurityRow):
            conn.execute(model.__table__.delete())


def expected_reports(reports: list[Report], as_of: date) -> list[Report]:
    """Brute force: per period, the version with the latest ann_date on or before as_of."""
    latest: dict[date, Report] = {}
    for report in reports:
        end, ann, _eps = report
        if ann <= as_of and (end not in latest or ann > latest[end][1]):
            latest[end] = report
    return [latest[end] for end in sorted(latest, reverse=True)]


def test_use_cases_show_only_what_was_known_at_as_of(database: Database) -> None:
    repository = SqlMarketDataRepository(database)
    service = MarketDataImportService(repository)
    bars_uc = GetDailyBarsUseCase(repository)
    valuations_uc = GetValuationDailiesForTickerUseCase(repository)
    finance_uc = GetFinanceForTickerUseCase(repository)
    database.ensure_schema()

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(store=stores(), data=st.data())
    def check(store: dict[str, Stock], data: st.DataObject) -> None:
        clear(database)
        write(service, store)
        stored_days = sorted(
            {d for s in store.values() for d in (*s.bars, *s.valuations, *(r[1] for r in s.reports))}
        )
        any_day = st.integers(-250, SPAN + 50).map(day)
        as_of = data.draw(st.one_of(any_day, st.sampled_from(stored_days)) if stored_days else any_day)
        start = data.draw(st.none() | any_day)
        end = data.draw(st.none() | any_day)
        limit = data.draw(st.none() | st.integers(1, 5))
        for symbol in SYMBOLS:
            stock = store.get(symbol, Stock())
            last = min(as_of, end) if end else as_of

            def window(days: set[date], last: date = last) -> list[date]:
                return sorted(d for d in days if d <= last and (start is None or d >= start))

            bars = bars_uc.execute(symbol, as_of, start, end)
            assert all(b.trade_date <= as_of and b.symbol == symbol for b in bars)
            assert [b.trade_date for b in bars] == window(stock.bars)
            valuations = valuations_uc.execute(symbol, as_of, start, end)
            assert all(v.trade_date <= as_of and v.symbol == symbol for v in valuations)
            assert [v.trade_date for v in valuations] == window(stock.valuations)
            reports = finance_uc.execute(symbol, as_of, limit)
            assert all(r.ann_date <= as_of and r.symbol == symbol for r in reports)
            expected = expected_reports(stock.reports, as_of)
            assert [(r.end_date, r.ann_date, r.eps) for r in reports] == expected[:limit]

    check()
