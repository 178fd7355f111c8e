"""TTM and derived valuations, checked against numbers computed by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from stockdesk.data_engineering.application.derived_valuations import derive_valuations
from stockdesk.shared.finance import ttm

REPORTS = pd.DataFrame(
    {
        "symbol": ["X"] * 5,
        "end_date": pd.to_datetime(["2022-09-30", "2022-12-31", "2023-03-31", "2023-06-30", "2023-09-30"]),
        "ann_date": pd.to_datetime(["2022-10-28", "2023-03-30", "2023-04-25", "2023-08-20", "2023-10-27"]),
        "eps": [0.90, 1.20, 0.35, 0.70, 1.00],
        "bps": [8.0, 8.3, 8.5, 8.6, 8.8],
        "revenue": [900.0, 1200.0, 330.0, 640.0, 960.0],
        "total_shares": [100.0] * 5,
    }
)


def test_ttm_uses_ytd_plus_last_annual_minus_same_period_last_year() -> None:
    values = ttm(REPORTS, "eps")
    assert math.isnan(values.iloc[0])  # 2022Q3 lacks 2021 figures
    assert values.iloc[1] == pytest.approx(1.20)  # annual report is its own TTM
    assert math.isnan(values.iloc[2])  # 2023Q1 needs 2022Q1, absent
    assert values.iloc[4] == pytest.approx(1.00 + 1.20 - 0.90)  # 2023Q3


def bars(days: list[str], closes: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"symbol": "X", "trade_date": pd.to_datetime(days), "close": closes})


def test_each_day_uses_only_reports_announced_by_then() -> None:
    out = derive_valuations(bars(["2023-10-26", "2023-10-27", "2023-11-01"], [26.0, 26.0, 27.0]), REPORTS)
    before, on, after = out.to_dict("records")
    # before 2023Q3's announcement the latest is H1 (its TTM needs 2022H1: missing), annual EPS 1.20
    assert math.isnan(before["pe_ttm"]) and before["pe"] == pytest.approx(26.0 / 1.20)
    assert before["pb"] == pytest.approx(26.0 / 8.6)
    assert on["pe_ttm"] == pytest.approx(26.0 / 1.30)  # announced that day: visible
    assert after["pb"] == pytest.approx(27.0 / 8.8)
    assert after["total_mv"] == pytest.approx(2700.0)
    assert after["ps_ttm"] == pytest.approx(2700.0 / (960.0 + 1200.0 - 900.0))
    assert out["is_derived"].all()


def test_non_positive_earnings_leave_pe_empty_not_negative() -> None:
    losses = REPORTS.assign(eps=[-0.5, -1.0, -0.2, -0.4, -0.6])
    out = derive_valuations(bars(["2023-11-01"], [10.0]), losses)
    assert math.isnan(out.loc[0, "pe_ttm"]) and math.isnan(out.loc[0, "pe"])
    assert out.loc[0, "pb"] == pytest.approx(10.0 / 8.8)


def test_dividend_yield_counts_ex_dates_in_the_last_365_days() -> None:
    dividends = pd.DataFrame(
        {"symbol": "X", "ex_date": pd.to_datetime(["2022-06-01", "2023-06-01", "2023-10-01"]),
         "cash_per_share": [0.4, 0.5, 0.25]}
    )  # fmt: skip
    out = derive_valuations(
        bars(["2023-05-31", "2023-11-01", "2024-06-01"], [20.0, 25.0, 25.0]), REPORTS, dividends
    )
    assert out["dv_ttm"].tolist() == pytest.approx([0.4 / 20 * 100, 0.75 / 25 * 100, 0.25 / 25 * 100])


def test_no_financials_still_gives_rows_without_ratios() -> None:
    out = derive_valuations(bars(["2023-11-01"], [10.0]), pd.DataFrame())
    assert len(out) == 1 and out.loc[0, "close"] == 10.0 and math.isnan(out.loc[0, "pe_ttm"])


def test_a_later_restatement_does_not_rewrite_earlier_days() -> None:
    restated = pd.concat(
        [REPORTS, REPORTS.iloc[[4]].assign(ann_date=pd.Timestamp("2023-12-15"), eps=1.30)], ignore_index=True
    )
    out = derive_valuations(bars(["2023-11-01", "2023-12-20"], [26.0, 26.0]), restated)
    before, after = out["pe_ttm"].tolist()
    assert before == pytest.approx(26.0 / (1.00 + 1.20 - 0.90))  # as first announced
    assert after == pytest.approx(26.0 / (1.30 + 1.20 - 0.90))  # the restated figure, from its filing on


def test_fiscal_years_ending_in_september_use_report_types() -> None:
    fiscal = pd.DataFrame(
        {
            "symbol": "X",
            "end_date": pd.to_datetime(["2022-12-31", "2023-09-30", "2023-12-30"]),
            "ann_date": pd.to_datetime(["2023-02-01", "2023-11-03", "2024-02-02"]),
            "report_type": ["Q1", "A", "Q1"],
            "eps": [1.9, 6.1, 2.2],
            "bps": [4.0, 4.2, 4.4],
        }
    )
    out = derive_valuations(bars(["2024-02-05"], [190.0]), fiscal)
    assert out.loc[0, "pe_ttm"] == pytest.approx(190.0 / (2.2 + 6.1 - 1.9))
    assert out.loc[0, "pe"] == pytest.approx(190.0 / 6.1)
