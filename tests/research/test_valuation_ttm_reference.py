"""The valuation's report rules (`record_figures`, one symbol's records in numpy/Python) against the
shared kernel's frame functions that state the same definitions for the data store (`by_period`,
`ttm`, `yoy_growth`, `prior_position`, `period_months`), on awkward generated data: repeated and
unsorted period ends, US 52/53-week ends, unknown report types, missing, zero and negative figures;
the rows of stored versions in columns (the evaluation's batch path) give the same as records; the
percentile window against a pandas date filter; and the edges the generator rarely draws, worked by
hand."""

from __future__ import annotations

import math
from datetime import date, timedelta

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.research.application.snapshot.valuation_snapshot_builder import (
    ANNUALISED,
    FIGURES,
    GROWTH_PERIODS,
    HISTORY_YEARS,
    _window,
    margin_change,
    record_figures,
)
from stockdesk.research.domain.dtos.valuation import (
    DEDUCTED_PROFIT,
    EPS_TTM,
    NA,
    NET_PROFIT_FALLBACK,
    FinanceRecordInput,
    ValuationDailyInput,
)
from stockdesk.shared.finance import by_period, period_months, prior_position, ttm, yoy_growth

COLUMNS = list(FinanceRecordInput.model_fields)
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


def frame_reference(finance: list[FinanceRecordInput]) -> dict:
    """The valuation's definitions (module docstring) through the shared kernel's frame functions."""
    frame = pd.DataFrame([f.model_dump() for f in finance], columns=COLUMNS)
    frame = by_period(frame, COLUMNS, text=("ann_date", "report_type"))
    recent, basis = [], DEDUCTED_PROFIT
    for column, name in (("profit_dedt", DEDUCTED_PROFIT), ("net_profit", NET_PROFIT_FALLBACK)):
        growth = yoy_growth(frame, column).to_numpy()
        kept = growth[~np.isnan(growth)][-GROWTH_PERIODS:]
        if len(kept):
            recent, basis = kept.tolist(), name
            break
    if frame.empty:
        return {"recent": recent, "basis": basis, "eps_ttm": math.nan, "eps_basis": EPS_TTM, "latest": None}
    eps_ttm, eps_basis = float(ttm(frame, "eps").iloc[-1]), EPS_TTM
    months, latest_eps = float(period_months(frame).iloc[-1]), frame["eps"].iloc[-1]
    if not np.isfinite(eps_ttm) and not pd.isna(latest_eps) and months in ANNUALISED:
        eps_ttm, eps_basis = float(latest_eps) * 12 / months, ANNUALISED[int(months)]
    prior = int(prior_position(frame)[-1])
    margins = frame["grossprofit_margin"]
    trend = margin_change(margins.iloc[-1], margins.iloc[prior]) if prior >= 0 else NA
    return {"recent": recent, "basis": basis, "eps_ttm": eps_ttm, "eps_basis": eps_basis,
            "latest": frame.iloc[-1], "trend": trend}  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(reports())
def test_record_figures_follow_the_shared_frame_definitions(finance: list[FinanceRecordInput]) -> None:
    fast, reference = record_figures(finance), frame_reference(finance)
    assert fast.recent.tolist() == reference["recent"]
    assert fast.growth_basis == reference["basis"]
    assert same(fast.eps_ttm, reference["eps_ttm"]) and fast.eps_basis == reference["eps_basis"]
    latest = reference["latest"]
    if latest is None:
        assert fast.latest is None and fast.latest_end is None and fast.margin_trend == NA
        return
    assert fast.margin_trend == reference["trend"]
    assert same(fast.bps, float(latest["bps"]))
    assert fast.latest_end == latest["end_date"].date()
    for name, value in (fast.latest or {}).items():
        assert same(value, None if pd.isna(latest[name]) else float(latest[name])), name


@settings(max_examples=100, deadline=None)
@given(reports())
def test_rows_in_columns_give_what_the_records_give(finance: list[FinanceRecordInput]) -> None:
    """The batch path hands stored rows over as arrays (dates as datetime64, None for NaN)."""
    frame = pd.DataFrame([f.model_dump() for f in finance], columns=COLUMNS)
    columns = {
        "end_date": pd.to_datetime(frame["end_date"]).to_numpy(),
        "report_type": frame["report_type"].to_numpy(dtype=object),
        **{c: pd.to_numeric(frame[c]).to_numpy(dtype="float64") for c in FIGURES},
    }
    from_records, from_columns = record_figures(finance), record_figures(columns)
    assert from_columns.recent.tolist() == from_records.recent.tolist()
    assert (from_columns.growth_basis, from_columns.eps_basis, from_columns.margin_trend) == (
        from_records.growth_basis, from_records.eps_basis, from_records.margin_trend
    )  # fmt: skip
    assert same(from_columns.eps_ttm, from_records.eps_ttm) and same(from_columns.bps, from_records.bps)
    assert from_columns.latest == from_records.latest and from_columns.latest_end == from_records.latest_end


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


def test_two_year_earlier_candidates_equally_near_the_earlier_wins() -> None:
    figures = record_figures(
        [
            row(date(2020, 12, 31), "A", 4.0, 30.0),
            row(date(2021, 3, 28), "Q1", 1.0, 31.0),
            row(date(2021, 4, 3), "Q1", 2.0, 35.0),
            row(date(2021, 12, 31), "A", 5.0, 33.0),
            row(date(2022, 3, 31), "Q1", 1.5, 32.0),
        ]
    )
    # 2022-03-31's year-earlier Q1: 2021-03-28 and 2021-04-03 are both 3 days off 2021-03-31 -> 2021-03-28
    assert figures.eps_ttm == 5.5 and figures.eps_basis == EPS_TTM  # 1.5 + 5 (2021A) - 1.0
    assert figures.margin_trend == "同比上升 1.0%"  # 32 - 31
    # deducted profit (eps x 10): 2021A 50 vs 2020A 40 = +25%, 2022Q1 15 vs 10 = +50%; the 2021 Q1s
    # have no 2020 Q1
    assert figures.recent.tolist() == [25.0, 50.0] and figures.growth == 37.5
    assert figures.growth_basis == DEDUCTED_PROFIT and figures.latest_end == date(2022, 3, 31)


def test_an_unknown_report_type_pairs_with_question_mark_for_growth_but_not_for_ttm() -> None:
    """prior_position matches a report of unknown type (July end, no type) with one typed "?"; ttm
    keeps them apart."""
    figures = record_figures(
        [
            row(date(2022, 12, 31), "A", 4.0, 30.0),
            row(date(2022, 7, 31), "?", 1.0, 31.0),
            row(date(2023, 7, 31), None, 2.0, 35.0),
        ]
    )
    assert figures.recent.tolist() == [100.0]  # 20 vs 10; the annual has no year-earlier report
    assert figures.margin_trend == "同比上升 4.0%"  # 35 - 31
    assert math.isnan(figures.eps_ttm) and figures.eps_basis == EPS_TTM  # no prior; no months to annualise
    assert figures.latest_end == date(2023, 7, 31) and figures.bps == 4.0


def test_no_reports() -> None:
    figures = record_figures([])
    assert figures.latest is None and figures.latest_end is None and figures.margin_trend == NA
    assert len(figures.recent) == 0 and math.isnan(figures.growth) and math.isnan(figures.eps_ttm)
