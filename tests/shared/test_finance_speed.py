"""The numpy finance arithmetic against plain definitions, and the batch path's report states against
the records route they replace (identical numbers, a fraction of the time)."""

from __future__ import annotations

import math
from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.research.application.snapshot.financial_snapshot_builder import latest_rule_period
from stockdesk.research.application.snapshot.rules_fields import _Reports
from stockdesk.research.application.snapshot.valuation_snapshot_builder import record_figures
from stockdesk.research.application.stock_data import PERIODS_NEEDED
from stockdesk.research.domain.dtos.financial import AuditFinanceRecordInput
from stockdesk.research.domain.dtos.valuation import FinanceRecordInput
from stockdesk.shared.finance import by_period, ttm, year_earlier

BASE = pd.Timestamp("2019-02-28")
KIND_BY_MONTH = {3: "Q1", 6: "H1", 9: "Q3", 12: "A"}
report_types = st.sampled_from(["Q1", "H1", "Q3", "A", None])
values = st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 2)))


def kind_of(end: pd.Timestamp, report_type: str | None) -> str | None:
    return report_type if report_type is not None else KIND_BY_MONTH.get(end.month)


def plain_ttm(rows: list[tuple[str, pd.Timestamp, str | None, float]]) -> list[float]:
    """TTM by its definition, row by row: an annual row is its own; otherwise the row + the last
    annual ending before it within 380 days - the same type's report nearest a year earlier within 20
    days (the earlier on a tie). The last row given for a symbol's period end stands for the period."""
    periods = {(s, end): (kind, v) for s, end, kind, v in rows}
    out = []
    for s, end, kind, v in rows:
        if kind == "A":
            out.append(v)
            continue
        annuals = sorted(
            (e, pv) for (ps, e), (pk, pv) in periods.items()
            if ps == s and pk == "A" and e < end and end - e <= pd.Timedelta(days=380)
        )  # fmt: skip
        probe = end - pd.DateOffset(years=1)
        priors = sorted(
            (abs(e - probe), e, pv) for (ps, e), (pk, pv) in periods.items()
            if ps == s and pk == kind and abs(e - probe) <= pd.Timedelta(days=20)
        )  # fmt: skip
        annual = annuals[-1][1] if annuals else math.nan
        prior = priors[0][2] if priors else math.nan
        out.append(v + annual - prior)
    return out


ANCHORS = {0: "Q1", 91: "H1", 182: "Q3", 274: "A"}  # days into a fiscal year starting BASE
DRIFTS = [-21, -20, -15, -10, -5, 0, 5, 10, 15, 20, 21]  # days: 20 in, 21 out; a year + 15 is 380


@st.composite
def report_rows(draw: st.DrawFn) -> pd.DataFrame:
    """Two companies' periods over three years near four dates of the year, drifting by days, so that
    ties, the 20-day and 380-day edges and repeated ends are common; report types mostly those of the
    date, some missing (then from the month: mostly none) or odd; rows in any order."""
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["A", "B"]),
                st.integers(0, 2),
                st.sampled_from(list(ANCHORS)),
                st.sampled_from(DRIFTS),
                st.one_of(st.just("usual"), st.just("usual"), report_types),
                st.one_of(st.floats(-100, 100, allow_nan=False), st.floats(1, 9), st.just(math.nan)),
            ),
            min_size=10,
            max_size=40,
        )
    )
    return pd.DataFrame(
        {
            "symbol": [r[0] for r in rows],
            "end_date": pd.to_datetime([BASE + pd.Timedelta(days=365 * r[1] + r[2] + r[3]) for r in rows]),
            "report_type": pd.Series(
                [ANCHORS[r[2]] if r[4] == "usual" else r[4] for r in rows], dtype=object
            ),
            "eps": [r[5] for r in rows],
        }
    )


@settings(max_examples=300, deadline=None)
@given(report_rows())
def test_ttm_follows_its_definition_and_each_symbol_alone_gives_the_same(reports: pd.DataFrame) -> None:
    rows = [
        (s, end, kind_of(end, rt), v)
        for s, end, rt, v in zip(
            reports["symbol"], reports["end_date"], reports["report_type"], reports["eps"], strict=True
        )
    ]
    got = ttm(reports, "eps")
    np.testing.assert_array_equal(got.to_numpy(), np.array(plain_ttm(rows), dtype="float64"))
    assert got.index.equals(reports.index) and got.name == "eps_ttm"
    for _, one in reports.groupby("symbol"):  # the data store's frames hold many symbols at once
        np.testing.assert_array_equal(ttm(one, "eps").to_numpy(), got.loc[one.index].to_numpy())
        np.testing.assert_array_equal(
            ttm(one.drop(columns="symbol"), "eps").to_numpy(), got.loc[one.index].to_numpy()
        )


def frame_of(rows: list[tuple[str, str | None, float]], symbol: str = "X") -> pd.DataFrame:
    return pd.DataFrame(
        {"symbol": symbol, "end_date": pd.to_datetime([r[0] for r in rows]),
         "report_type": pd.Series([r[1] for r in rows], dtype=object), "eps": [r[2] for r in rows]}
    )  # fmt: skip


def test_ttm_edges_the_380_and_20_days_ties_and_repeated_ends() -> None:
    # 2023-12-16 (Q1): the annual 2022-12-01 is 380 days earlier, the Q1 2023-01-05 20 days off 2022-12-16
    base = [("2022-12-01", "A", 10.0), ("2023-01-05", "Q1", 1.0), ("2023-12-16", "Q1", 2.0)]
    assert ttm(frame_of(base), "eps").iloc[-1] == 2.0 + 10.0 - 1.0
    before = [base[0], ("2022-11-26", "Q1", 1.0), base[2]]  # 20 days off on the other side
    assert ttm(frame_of(before), "eps").iloc[-1] == 2.0 + 10.0 - 1.0
    one_more = [("2022-11-30", "A", 10.0), *base[1:]]  # 381 days: no annual
    assert math.isnan(ttm(frame_of(one_more), "eps").iloc[-1])
    for too_far in ("2023-01-06", "2022-11-25"):  # 21 days off: no prior
        assert math.isnan(ttm(frame_of([base[0], (too_far, "Q1", 1.0), base[2]]), "eps").iloc[-1])
    tie = [base[0], ("2022-12-06", "Q1", 3.0), ("2022-12-26", "Q1", 1.0), base[2]]  # 10 days either side
    assert ttm(frame_of(tie), "eps").iloc[-1] == 2.0 + 10.0 - 3.0  # the earlier
    same_end = [("2022-12-16", "Q1", 1.0), ("2023-12-16", "Q1", 2.0), ("2023-12-16", "A", 10.0)]
    assert math.isnan(ttm(frame_of(same_end), "eps").iloc[1])  # an annual must end before the row
    repeated = [*base, ("2022-12-01", "A", 12.0)]  # the last row given stands for 2022-12-01
    assert ttm(frame_of(repeated), "eps").iloc[2] == 2.0 + 12.0 - 1.0
    unknown = [("2022-12-01", "A", 10.0), ("2022-07-20", None, 1.0), ("2023-07-20", None, 2.0)]
    assert ttm(frame_of(unknown), "eps").iloc[-1] == 2.0 + 10.0 - 1.0  # unknown types compare alike
    two = pd.concat([frame_of(base), frame_of(base[1:], symbol="Y")], ignore_index=True)
    assert math.isnan(ttm(two, "eps").iloc[-1])  # Y has no annual of its own


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.datetimes(min_value=pd.Timestamp("1950-01-01"), max_value=pd.Timestamp("2100-12-31")), max_size=30
    )
)
def test_year_earlier_is_a_calendar_year_back_as_pandas_date_offset(stamps: list) -> None:
    index = pd.DatetimeIndex(stamps, dtype="datetime64[ns]")
    expected = (index - pd.DateOffset(years=1)).to_numpy()
    np.testing.assert_array_equal(year_earlier(index.to_numpy()), expected)
    days = index.to_numpy().astype("datetime64[D]")
    np.testing.assert_array_equal(year_earlier(days), expected.astype("datetime64[D]"))


def test_year_earlier_of_a_leap_day_is_the_28th_and_nat_stays_nat() -> None:
    got = year_earlier(np.array(["2024-02-29T10:30", "NaT"], dtype="datetime64[ns]"))
    assert str(got[0]) == "2023-02-28T10:30:00.000000000" and np.isnat(got[1])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 12), values, st.sampled_from(["Q1", "A", None])), max_size=40),
    st.booleans(),
)
def test_by_period_is_the_sorted_frame_without_repeated_ends(rows: list, as_dates: bool) -> None:
    """The last row given per end survives, as after `sort_values("end_date")` (quicksort, so also
    beyond 16 rows, where it is not stable)."""
    ends = [(BASE + pd.Timedelta(days=91 * r[0])).date() for r in rows]
    frame = pd.DataFrame(
        {"end_date": ends if as_dates else pd.to_datetime(ends), "v": [r[1] for r in rows],
         "report_type": [r[2] for r in rows]}
    )  # fmt: skip
    got = by_period(frame, ["end_date", "report_type", "v", "absent"], text=("report_type",))
    expected = frame.assign(end_date=pd.to_datetime(frame["end_date"])).sort_values("end_date")
    expected = expected.drop_duplicates("end_date", keep="last").reset_index(drop=True)
    assert list(got.columns) == ["end_date", "report_type", "v", "absent"]
    np.testing.assert_array_equal(got["end_date"].to_numpy(), expected["end_date"].to_numpy())
    np.testing.assert_array_equal(got["v"].to_numpy(), pd.to_numeric(expected["v"]).to_numpy(dtype="float64"))
    assert got["report_type"].tolist() == expected["report_type"].tolist()
    assert got["absent"].isna().all() and got["v"].dtype == "float64"


# ---- the batch path's states against the records route -----------------------------------------
@st.composite
def versions(draw: st.DrawFn) -> pd.DataFrame:
    """One company's stored versions: quarterly (or drifting 52/53-week) periods, some restated later."""
    start = BASE + pd.Timedelta(days=draw(st.integers(0, 400)))
    steps = draw(st.lists(st.sampled_from([84, 91, 91, 92, 98]), min_size=1, max_size=20))
    rows = []
    for i, end in enumerate(start + pd.to_timedelta(np.cumsum(steps), unit="D")):
        report_type = draw(st.one_of(st.just(kind_of(end, None)), report_types))
        row = {"end_date": end, "ann_date": end + pd.Timedelta(days=draw(st.integers(20, 100))),
               "report_type": report_type, "symbol": "X"}  # fmt: skip
        for column in ("eps", "bps", "profit_dedt", "net_profit", "revenue", "or_yoy", "roe", "ocfps",
                       "debt_to_assets", "grossprofit_margin"):  # fmt: skip
            row[column] = draw(values)
        rows.append(row)
        if draw(st.booleans()) and i % 2:  # restated later, with other figures
            rows.append(row | {"ann_date": row["ann_date"] + pd.Timedelta(days=draw(st.integers(1, 300))),
                               "eps": draw(values), "profit_dedt": draw(values)})  # fmt: skip
    frame = pd.DataFrame(rows).astype({c: "float64" for c in ("eps", "bps", "profit_dedt", "net_profit")})
    return frame.assign(netprofit_margin=None)  # a column no report fills comes back from SQL as None


def records_route(
    frame: pd.DataFrame, day: date
) -> tuple[list[FinanceRecordInput], list[AuditFinanceRecordInput]]:
    """What the adapters hand the builders on `day`: each period's latest version, newest 12, as records."""
    seen = frame[frame["ann_date"] <= pd.Timestamp(day)]
    latest = seen.loc[seen.groupby("end_date")["ann_date"].idxmax()]
    latest = latest.sort_values("end_date", ascending=False).head(PERIODS_NEEDED)
    rows = [{k: plain(v) for k, v in r.items()} for r in latest.to_dict("records")]
    valuation = [FinanceRecordInput.model_validate(r) for r in rows]
    return valuation, [AuditFinanceRecordInput.model_validate(r) for r in rows]


def plain(value: object) -> object:
    """As a record holds it: a date, None for NaN."""
    if isinstance(value, pd.Timestamp):
        return value.date()
    return None if isinstance(value, float) and math.isnan(value) else value


def same_number(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@settings(max_examples=60, deadline=None)
@given(versions())
def test_each_state_equals_the_builders_on_the_records_the_adapters_give(frame: pd.DataFrame) -> None:
    reports = _Reports(frame)
    days = sorted({d.date() for d in frame["ann_date"]})
    for day in [days[0] - timedelta(days=1), *days]:
        state = reports.state(day)
        valuation, audit = records_route(frame, day)
        if not valuation:
            assert state is None
            continue
        assert state is not None
        basis, expected = state[0], record_figures(valuation)
        np.testing.assert_array_equal(basis.recent, expected.recent)
        assert (basis.growth_basis, basis.eps_basis) == (expected.growth_basis, expected.eps_basis)
        assert all(same_number(getattr(basis, f), getattr(expected, f)) for f in ("eps_ttm", "bps", "growth"))
        assert state[1] == {"periods": [latest_rule_period(audit)]}


@pytest.mark.parametrize("rows", [0, 1])
def test_ttm_of_no_or_one_period(rows: int) -> None:
    frame = pd.DataFrame(
        {"symbol": ["X"] * rows, "end_date": pd.to_datetime(["2023-12-31"] * rows), "eps": [1.5] * rows}
    )
    assert ttm(frame, "eps").tolist() == [1.5] * rows
