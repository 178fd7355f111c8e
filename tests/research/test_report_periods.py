"""One symbol's report periods in numpy (the snapshots' period rules) against the shared kernel's
frame functions stating the same rules for the data store: which row stands for a period, the
report types and months, the year-earlier positions and the YoY growth of every period."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
from hypothesis import given, settings

from stockdesk.research.application.snapshot.financial_snapshot_builder import latest_rule_period
from stockdesk.research.application.snapshot.report_periods import report_periods
from stockdesk.research.domain.dtos.financial import AuditFinanceRecordInput
from stockdesk.research.domain.dtos.valuation import NA, FinanceRecordInput
from stockdesk.shared.finance import by_period, period_months, prior_position, yoy_growth
from tests.research.test_valuation_ttm_reference import reports

COLUMNS = list(FinanceRecordInput.model_fields)
FIGURES = ("eps", "profit_dedt", "net_profit", "grossprofit_margin")


@settings(max_examples=300, deadline=None)
@given(reports())
def test_periods_follow_the_shared_frame_functions(finance: list[FinanceRecordInput]) -> None:
    periods = report_periods(finance, FIGURES)
    frame = by_period(
        pd.DataFrame([f.model_dump() for f in finance], columns=COLUMNS),
        COLUMNS,
        text=("ann_date", "report_type"),
    )
    np.testing.assert_array_equal(periods.ends, frame["end_date"].to_numpy().astype("datetime64[D]"))
    np.testing.assert_array_equal(periods.priors, prior_position(frame))
    np.testing.assert_array_equal(periods.months(), period_months(frame).to_numpy())
    for name in FIGURES:
        np.testing.assert_array_equal(periods.figures[name], frame[name].to_numpy(), err_msg=name)
        np.testing.assert_array_equal(periods.yoy(name), yoy_growth(frame, name).to_numpy(), err_msg=name)


def test_hand_worked_periods_and_the_latest_rule_period() -> None:
    def record(end: date, revenue: float, report_type: str | None = None) -> AuditFinanceRecordInput:
        return AuditFinanceRecordInput(
            end_date=end, ann_date=end + timedelta(days=30), revenue=revenue, eps=1.0, ocfps=1.5,
            roe=8.0, report_type=report_type,
        )  # fmt: skip

    rows = [
        record(date(2023, 6, 30), 100.0),
        record(date(2023, 3, 31), 40.0),
        record(date(2024, 3, 31), 50.0),
        record(date(2024, 6, 30), 90.0),
        record(date(2023, 6, 30), 80.0),  # restated H1 2023: the last given stands for the period
    ]
    periods = report_periods(rows, ("revenue",))
    assert [str(d) for d in periods.ends] == ["2023-03-31", "2023-06-30", "2024-03-31", "2024-06-30"]
    assert periods.kinds == ["Q1", "H1", "Q1", "H1"] and periods.priors.tolist() == [-1, -1, 0, 1]
    # 2024Q1 50 vs 40 = +25%; 2024H1 90 vs the restated 80 = +12.5%
    assert np.isnan(periods.yoy("revenue")[:2]).all() and periods.yoy("revenue")[2:].tolist() == [25.0, 12.5]
    assert latest_rule_period(rows) == {
        "period": "2024H1",
        "revenue_yoy": 12.5,
        "profit_dedt_yoy": NA,  # no profit reported
        "roe": 8.0,
        "debt_to_assets": NA,
        "cash_quality": 1.5,  # OCF per share 1.5 / EPS 1.0
    }
