"""The valuation builder's per-symbol numpy/Python path (issue 20) against the frame route it replaced:
`finance_basis` (by_period, ttm, yoy_growth, prior_position) for the reports and a pandas date filter
for the percentile window. Same numbers on awkward generated data: repeated and unsorted period ends,
US 52/53-week ends, unknown report types, missing, zero and negative figures."""

from __future__ import annotations

import math
from datetime import date, timedelta

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.research.domain.dtos.valuation import FinanceRecordInput, ValuationDailyInput
from stockdesk.research.infrastructure.snapshot.valuation_snapshot_builder import (
    HISTORY_YEARS,
    _window,
    finance_basis,
    gross_margin_trend,
    record_figures,
)

QUARTER_ENDS = [date(2020, 3, 31) + pd.offsets.QuarterEnd(i) for i in range(16)]
numbers = st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 2))
figures = st.one_of(numbers, numbers, numbers, st.none(), st.just(0.0))  # mostly present


@st.composite
def reports(draw: st.DrawFn) -> list[FinanceRecordInput]:
    """A run of consecutive quarters (so that year-earlier reports exist), then jittered ends, odd
    report types ("?" too), repeated and shifted periods and a shuffle."""
    start, count = draw(st.integers(0, 8)), draw(st.integers(0, 12))
    rows = []
    for quarter in QUARTER_ENDS[start : start + count]:
        end = quarter.date() + timedelta(days=draw(st.sampled_from([0, 0, 0, -3, 3, 5, 31])))
        natural = {3: "Q1", 6: "H1", 9: "Q3", 12: "A"}.get(quarter.month)
        rows.append(
            FinanceRecordInput(
                end_date=end,
                ann_date=end + timedelta(days=30),
                eps=draw(figures),
                bps=draw(figures),
                roe=draw(figures),
                grossprofit_margin=draw(figures),
                netprofit_margin=draw(figures),
                debt_to_assets=draw(figures),
                profit_dedt=draw(figures),
                net_profit=draw(figures),
                report_type=draw(st.sampled_from([None, None, natural, natural, "Q1", "A", "?"])),
            )
        )
    if rows:
        repeats = draw(st.lists(st.integers(0, len(rows) - 1), max_size=3))
        shifts = st.sampled_from([0, 0, 6])  # 6: a second same-type period, ties a year on
        rows += [
            rows[i].model_copy(
                update={"eps": draw(figures), "end_date": rows[i].end_date + timedelta(draw(shifts))}
            )
            for i in repeats
        ]
    return draw(st.permutations(rows)) if draw(st.booleans()) else rows


def same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return (math.isnan(a) and math.isnan(b)) or a == b


@settings(max_examples=300, deadline=None)
@given(reports())
def test_record_figures_match_finance_basis(finance: list[FinanceRecordInput]) -> None:
    assert_matches(finance)


def assert_matches(finance: list[FinanceRecordInput]) -> None:
    fast, reference = record_figures(finance), finance_basis(finance)
    assert fast.recent.tolist() == reference.recent.tolist()
    assert fast.growth_basis == reference.growth_basis
    assert same(fast.growth, reference.growth)
    assert same(fast.eps_ttm, reference.eps_ttm) and fast.eps_basis == reference.eps_basis
    assert same(fast.bps, reference.bps)
    assert fast.margin_trend == gross_margin_trend(reference.frame)
    latest = reference.latest
    if latest is None:
        assert fast.latest is None and fast.latest_end is None
        return
    assert fast.latest_end == latest["end_date"].date()
    for name, value in (fast.latest or {}).items():
        assert same(value, None if pd.isna(latest[name]) else float(latest[name])), name


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1500), st.one_of(st.none(), st.floats(-5, 50))), max_size=40),
    st.sampled_from([date(2024, 2, 29), date(2024, 6, 28), date(2023, 3, 1)]),
)
def test_window_matches_pandas_filter(days: list[tuple[int, float | None]], as_of: date) -> None:
    dailies = [
        ValuationDailyInput(trade_date=as_of - timedelta(days=back - 10), pe_ttm=v, pb=v, ps_ttm=v)
        for back, v in days
    ]
    history = pd.DataFrame([d.model_dump() for d in dailies], columns=list(ValuationDailyInput.model_fields))
    stamps = pd.to_datetime(history["trade_date"])
    end = pd.Timestamp(as_of)
    window = history[(stamps > end - pd.DateOffset(years=HISTORY_YEARS)) & (stamps <= end)]
    expected = pd.to_numeric(window["pe_ttm"], errors="coerce").to_numpy(dtype="float64")
    for got in _window(dailies, as_of):
        np.testing.assert_array_equal(got, expected)


def test_edges_the_generator_rarely_draws() -> None:
    """Two year-earlier candidates equally near (the earlier wins); a report typed "?" beside one of
    unknown type (prior_position pairs them, ttm does not)."""

    def row(end: date, report_type: str | None, eps: float, margin: float) -> FinanceRecordInput:
        return FinanceRecordInput(
            end_date=end,
            ann_date=end + timedelta(days=30),
            eps=eps,
            bps=4.0,
            grossprofit_margin=margin,
            profit_dedt=eps * 10,
            report_type=report_type,
        )

    tie = [
        row(date(2020, 12, 31), "A", 4.0, 30.0),
        row(date(2021, 3, 28), "Q1", 1.0, 31.0),
        row(date(2021, 4, 3), "Q1", 2.0, 35.0),
        row(date(2021, 12, 31), "A", 5.0, 33.0),
        row(date(2022, 3, 31), "Q1", 1.5, 32.0),
    ]
    unknown = [
        row(date(2022, 12, 31), "A", 4.0, 30.0),
        row(date(2022, 7, 31), "?", 1.0, 31.0),
        row(date(2023, 7, 31), None, 2.0, 35.0),
    ]
    for finance in (tie, unknown):
        assert_matches(finance)
