"""US filings: growth falls back to net profit, years of 52/53 weeks compare, EPS is annualised if need be.

All figures are made up and checked against hand calculations.
"""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd
import pytest

from stockdesk.data_engineering.domain.dtos import FinancialReportDTO
from stockdesk.research.application.snapshot.financial_snapshot_builder import FinancialSnapshotBuilder
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.research.application.stock_data import StockData
from stockdesk.research.domain.dtos.financial import AuditFinanceRecordInput
from stockdesk.research.domain.dtos.valuation import (
    DEDUCTED_PROFIT,
    NA,
    NET_PROFIT_FALLBACK,
    FinanceRecordInput,
)
from stockdesk.shared.finance import prior_position, yoy_growth
from stockdesk.shared.prompts import load_prompts
from tests.research.support import AS_OF, audit_records, dailies, finance_records, overview

build = ValuationSnapshotBuilder().build
VALUATION_PROMPTS = "stockdesk.research.infrastructure.agents.valuation_modeler"

# A fiscal year ending in late September on a 52/53-week calendar: period ends drift by days each year.
US_PERIODS = [
    # end_date, report_type, eps, net_profit (YTD), revenue (YTD)
    ("2022-06-25", "Q3", 3.00, 300.0, 3000.0),
    ("2022-09-24", "A", 4.00, 400.0, 4000.0),
    ("2022-12-31", "Q1", 1.20, 120.0, 1200.0),
    ("2023-04-01", "H1", 2.00, 200.0, 2000.0),
    ("2023-07-01", "Q3", 3.30, 330.0, 3300.0),
    ("2023-09-30", "A", 4.20, 440.0, 4400.0),
    ("2023-12-30", "Q1", 1.50, 150.0, 1650.0),
    ("2024-03-30", "H1", 2.50, 250.0, 2300.0),
]


def us_records(periods: list[tuple] = US_PERIODS) -> list[FinanceRecordInput]:
    """What the SEC importer stores: net income attributable to the parent, no deducted profit."""
    return [
        FinanceRecordInput(
            end_date=date.fromisoformat(end),
            ann_date=date.fromisoformat(end) + timedelta(days=35),
            report_type=kind,
            eps=eps,
            bps=5.0,
            grossprofit_margin=40.0,
            net_profit=profit,
        )
        for end, kind, eps, profit, _revenue in periods
    ]


def us_audit_records() -> list[AuditFinanceRecordInput]:
    return [
        AuditFinanceRecordInput(
            end_date=date.fromisoformat(end),
            ann_date=date.fromisoformat(end) + timedelta(days=35),
            report_type=kind,
            eps=eps,
            revenue=revenue,
            net_profit=profit,
        )
        for end, kind, eps, profit, revenue in US_PERIODS
    ]


def test_us_growth_uses_net_profit_and_compares_52_53_week_years():
    """Q3 330 vs 300 +10%, A 440 vs 400 +10%, Q1 150 vs 120 +25%, H1 250 vs 200 +25%: mean 17.5."""
    snap = build(overview(pe_ttm=35.0, close=100.0), dailies(), us_records(), AS_OF)
    assert snap.growth_basis == NET_PROFIT_FALLBACK
    assert snap.growth_rate_avg == 17.5 and snap.growth_periods == 4
    assert snap.peg_ratio == 2.0  # 35 / 17.5


def test_us_eps_ttm_follows_the_report_type_not_the_end_month():
    """2024-03-30 is a fiscal H1: TTM = 2.50 + 4.20 - 2.00 (a December end is a Q1 here, not annual)."""
    snap = build(overview(close=100.0), dailies(), us_records(), AS_OF)
    assert snap.eps_basis == "TTM" and snap.eps_ttm == 4.7
    assert snap.graham_intrinsic_val == 22.99  # sqrt(22.5 x 4.7 x 5.0) = 22.9946
    assert snap.graham_safety_margin == -77.0  # (22.9946 - 100) / 100 x 100
    assert snap.gross_margin_trend == "持平"  # 40.0 vs 2023-04-01's 40.0


def test_a_share_growth_keeps_deducted_profit():
    """With profit_dedt present, a different net profit is ignored (same figures as test_peg_correct)."""
    records = [r.model_copy(update={"net_profit": (r.profit_dedt or 0) * 3 + i}) for i, r in
               enumerate(finance_records())]  # fmt: skip
    snap = build(overview(pe_ttm=15.0), dailies(), records, AS_OF)
    assert snap.growth_basis == DEDUCTED_PROFIT
    assert (snap.growth_rate_avg, snap.peg_ratio, snap.eps_basis) == (20.63, 0.73, "TTM")


def test_no_growth_on_either_basis_stays_na_under_the_primary_label():
    snap = build(overview(), dailies(), us_records(US_PERIODS[-2:]), AS_OF)
    assert snap.growth_rate_avg == NA and snap.peg_ratio == NA and snap.growth_basis == DEDUCTED_PROFIT


@pytest.mark.parametrize(
    ("period", "eps_expected", "basis"),
    [
        (("2023-12-30", "Q1", 1.50, 150.0, 0.0), 6.0, "年化，Q1 × 4"),
        (("2024-03-30", "H1", 2.50, 250.0, 0.0), 5.0, "年化，H1 × 2"),
        (("2024-06-29", "Q3", 3.30, 330.0, 0.0), 4.4, "年化，Q3 × 4/3"),
        (("2024-09-28", "A", 4.20, 440.0, 0.0), 4.2, "TTM"),  # an annual report is its own TTM
    ],
)
def test_eps_is_annualised_when_ttm_cannot_be_formed(period, eps_expected, basis):
    """No prior annual or year-earlier report: latest YTD EPS x 12 / months covered."""
    snap = build(overview(close=100.0), dailies(), us_records([period]), AS_OF)
    assert snap.eps_basis == basis and snap.eps_ttm == pytest.approx(eps_expected)
    assert snap.graham_intrinsic_val == round((22.5 * eps_expected * 5.0) ** 0.5, 2)


def test_a_share_eps_annualised_from_the_end_month():
    only_q1 = [("2024-03-31", 0.40, 10.4, 390.0, 33.7)]  # no report_type: March end -> Q1
    snap = build(overview(close=20.0), dailies(), finance_records(only_q1), AS_OF)
    assert (snap.eps_ttm, snap.eps_basis) == (1.6, "年化，Q1 × 4")
    assert snap.graham_intrinsic_val == 19.35  # sqrt(22.5 x 1.6 x 10.4) = 19.3494


def test_prompt_names_the_growth_and_eps_basis():
    prompts = load_prompts(VALUATION_PROMPTS)
    us = build(overview(pe_ttm=35.0), dailies(), us_records(US_PERIODS[-1:]), AS_OF)
    text = prompts.render_user(**us.model_dump(mode="json"))
    assert "EPS(年化，H1 × 2)：5.0；" in text
    us_full = build(overview(pe_ttm=35.0), dailies(), us_records(), AS_OF)
    text = prompts.render_user(**us_full.model_dump(mode="json"))
    assert "- 归母净利润（无扣非数据）同比增速均值（最近 4 期）：17.5%" in text
    a_share = prompts.render_user(
        **build(overview(), dailies(), finance_records(), AS_OF).model_dump(mode="json")
    )
    assert "- 扣非净利润同比增速均值（最近 4 期）：20.63%" in a_share and "EPS(TTM)：1.3；" in a_share


def test_auditor_falls_back_to_net_profit_and_says_so():
    snap = FinancialSnapshotBuilder().build("AAPL", "Example", "Tech", us_audit_records(), AS_OF)
    assert snap.profit_growth_basis == NET_PROFIT_FALLBACK
    # fiscal years end in September: the quarter to 2023-12-30 is fiscal 2024's Q1
    assert [p.period for p in snap.periods][:4] == ["2024H1", "2024Q1", "2023A", "2023Q3"]
    assert [p.profit_dedt_yoy for p in snap.periods][:4] == [25.0, 25.0, 10.0, 10.0]
    assert snap.periods[0].revenue_yoy == 15.0  # 2300 vs 2000
    assert snap.periods[-1].profit_dedt_yoy == NA  # fiscal 2022 Q3 has no year-earlier report here
    assert "| 归母净利同比% | 25.0 | 25.0 | 10.0 | 10.0 |" in snap.table and "扣非" not in snap.table


def test_auditor_keeps_deducted_profit_for_a_shares():
    records = [r.model_copy(update={"net_profit": 1.0}) for r in audit_records()]
    snap = FinancialSnapshotBuilder().build("600001.SH", "示例", "银行", records, AS_OF)
    assert snap.profit_growth_basis == DEDUCTED_PROFIT and snap.periods[0].profit_dedt_yoy == 30.0
    assert "| 扣非净利同比% | 30.0 |" in snap.table and snap.latest_period == "2024Q1"


class _Finance:
    """GetFinanceForTickerUseCase stand-in returning one SEC-like report."""

    def execute(self, symbol: str, as_of: date | None = None, limit: int | None = None):
        return [
            FinancialReportDTO(
                symbol=symbol, end_date=date(2024, 3, 30), ann_date=date(2024, 5, 3), report_type="H1",
                eps=2.5, net_profit=250.0,
            )
        ]  # fmt: skip


def test_stock_data_passes_net_profit_and_report_type_through():
    data = StockData(None, None, None, _Finance())  # type: ignore[arg-type]
    valuation, audit = data.get_finance_records("AAPL", AS_OF), data.get_audit_records("AAPL", AS_OF)
    for record in (valuation[0], audit[0]):
        assert (record.net_profit, record.report_type, record.profit_dedt) == (250.0, "H1", None)


def test_year_earlier_report_must_share_the_type_and_lie_within_20_days():
    frame = pd.DataFrame(
        {
            "end_date": pd.to_datetime(["2022-09-30", "2022-10-01", "2023-09-30", "2023-10-26"]),
            "report_type": ["A", "Q3", "Q3", "Q3"],  # a fiscal-year change: 2022's September was annual
            "v": [100.0, 80.0, 90.0, 95.0],
        }
    )
    assert prior_position(frame).tolist() == [-1, -1, 1, -1]  # 2023-10-26 is 25 days off 2022-10-01
    assert yoy_growth(frame, "v").tolist()[2] == pytest.approx(12.5)  # 90 vs the Q3's 80, not the A's 100
