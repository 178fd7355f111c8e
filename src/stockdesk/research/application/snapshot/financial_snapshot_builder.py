"""Financial audit snapshot: the last 8 periods' growth, margins, returns, cash quality, leverage, turnover.

YoY growth compares each period with the report of the same type (Q1/H1/Q3/A) a year earlier
(year-to-date figures; within 20 days, for US 52/53-week years); revenue growth uses the reported
`or_yoy` when revenue itself is not stored. Profit growth is of deducted profit when it yields any
growth in the periods shown, else of net profit attributable to the parent (SEC filings have no
deducted profit); `profit_growth_basis` and the table row's label say which. Periods are named by
fiscal year (the calendar year the fiscal year ends in: AAPL's quarter to 2023-12-30 is 2024Q1) and
report type. Turnover days are period days / turnover where the source gives no days. Computed over one
symbol's period arrays (`report_periods`): a frame per symbol costs more than the figures (issue 20).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.research.application.evidence_cards import PROFIT_LABEL_ZH
from stockdesk.research.application.snapshot.highlights import financial_highlights
from stockdesk.research.application.snapshot.report_periods import Columns, ReportPeriods, report_periods
from stockdesk.research.domain.dtos.financial import (
    AuditFinanceRecordInput,
    FinancialSnapshotDTO,
    PeriodMetrics,
)
from stockdesk.research.domain.dtos.valuation import DEDUCTED_PROFIT, NA, NET_PROFIT_FALLBACK, Num
from stockdesk.shared.finance import by_period, report_kind, round_half_up

PERIODS = 8
TABLE_PERIODS = 4  # the prompt's table: the newest four (the snapshot keeps eight for charts and checks)
DAYS_PER_MONTH = 30  # 90/180/270/360-day periods
COLUMNS = {
    "revenue_yoy": "营收同比%", "profit_dedt_yoy": "扣非净利同比%", "gross_margin": "毛利率%",
    "net_margin": "净利率%", "roe": "ROE%", "roic": "ROIC%", "cash_quality": "现金质量(OCFPS/EPS)",
    "debt_to_assets": "资产负债率%", "interest_debt_yi": "有息负债(亿)", "current_ratio": "流动比率",
    "quick_ratio": "速动比率", "receivable_days": "应收周转天数", "inventory_days": "存货周转天数",
}  # fmt: skip
# the profit row is labelled as its evidence card and the highlights word it (one wording)
PROFIT_ROW_LABEL = {basis: f"{label}%" for basis, label in PROFIT_LABEL_ZH.items()}
AUDIT_COLUMNS = list(AuditFinanceRecordInput.model_fields)
CALENDAR_DRIFT = pd.Timedelta(days=7)  # a 52/53-week year may end a few days into the next month


AUDIT_FIGURES = tuple(c for c in AUDIT_COLUMNS if c not in ("end_date", "ann_date", "report_type"))
_DAYS_OF = {"receivable_days": ("arturn_days", "ar_turn"), "inventory_days": ("invturn_days", "inv_turn")}


def _num(value: float, digits: int = 2) -> Num:
    return round_half_up(float(value), digits) if pd.notna(value) and np.isfinite(value) else NA


def _days(reported: np.ndarray, turnover: np.ndarray, months: np.ndarray) -> np.ndarray:
    """Turnover days as reported, else the period's days / turnover (N/A unless turnover > 0)."""
    derived = months * DAYS_PER_MONTH / np.where(turnover > 0, turnover, np.nan)
    return np.where(np.isnan(reported), derived, reported)


def labels_of(ends: np.ndarray, kinds: Sequence[str | None], months: np.ndarray) -> list[str]:
    """Fiscal year + report type ("2024H1"); the fiscal year ends (12 - months) months after the period.

    Unknown report types keep the calendar year and no suffix.
    """
    end = ends.astype("datetime64[D]") - CALENDAR_DRIFT.to_timedelta64()
    month = end.astype("datetime64[M]").astype("int64") % 12 + 1
    known = ~np.isnan(months)
    fiscal_year = (
        end.astype("datetime64[Y]").astype("int64")
        + 1970
        + (month - 1 + 12 - np.where(known, months, 12)) // 12
    )
    return [
        f"{int(year)}{kind if seen else ''}"
        for year, kind, seen in zip(fiscal_year, kinds, known, strict=True)
    ]


def period_labels(frame: pd.DataFrame, months: pd.Series) -> pd.Series:
    """`labels_of` for a frame of periods (the financials chart's)."""
    kinds = report_kind(frame).to_numpy()
    kinds = [None if pd.isna(k) else k for k in kinds]
    labels = labels_of(frame["end_date"].to_numpy(), kinds, months.to_numpy(dtype="float64"))
    return pd.Series(labels, index=frame.index, dtype="str")


def growth_choice(periods: ReportPeriods, shown: int) -> tuple[np.ndarray, str]:
    """Deducted-profit growth if it yields any in the last `shown` periods, else net-profit growth."""
    deducted = periods.yoy("profit_dedt")
    if _any_in(deducted, shown):
        return deducted, DEDUCTED_PROFIT
    net = periods.yoy("net_profit")
    return (net, NET_PROFIT_FALLBACK) if _any_in(net, shown) else (deducted, DEDUCTED_PROFIT)


def profit_growth(frame: pd.DataFrame, shown: int) -> tuple[pd.Series, str]:
    """`growth_choice` for a frame of periods in the records' columns (the financials chart's)."""
    growth, basis = growth_choice(report_periods(frame, ("profit_dedt", "net_profit")), shown)
    return pd.Series(growth, index=frame.index, dtype="float64"), basis


def _any_in(growth: np.ndarray, last: int) -> bool:
    return bool((~np.isnan(growth[-last:])).any()) if last > 0 else False


def render_table(periods: list[PeriodMetrics], labels: dict[str, str] = COLUMNS) -> str:
    header = "| 指标 | " + " | ".join(p.period for p in periods) + " |"
    rule = "| --- |" + " --- |" * len(periods)
    rows = [
        f"| {label} | " + " | ".join(str(getattr(p, key)) for p in periods) + " |"
        for key, label in labels.items()
    ]
    return "\n".join([header, rule, *rows])


def audit_frame(records: list[AuditFinanceRecordInput] | pd.DataFrame) -> pd.DataFrame:
    """The records as one frame: one row per period end (the last one reported), oldest first.

    Figures as floats. From the records, or from rows already in their columns (the charts read it).
    """
    rows = records
    if not isinstance(rows, pd.DataFrame):
        rows = pd.DataFrame([r.model_dump() for r in records], columns=AUDIT_COLUMNS)
    return by_period(rows, AUDIT_COLUMNS, text=("ann_date", "report_type"))


@dataclass(frozen=True)
class RuleValues:
    """What the code signal reads beside the reported figures, per period (oldest first)."""

    revenue_yoy: np.ndarray
    """YoY growth of revenue, else the reported or_yoy"""
    profit_yoy: np.ndarray
    """of `basis`"""
    basis: str
    cash_quality: np.ndarray
    """OCF per share / EPS (N/A unless EPS > 0)"""
    labels: list[str]
    months: np.ndarray


def rule_values(periods: ReportPeriods) -> RuleValues:
    """The builder's and the evaluation's batch path's one computation of them."""
    months = periods.months()
    figures = periods.figures
    revenue_yoy = periods.yoy("revenue")
    profit_yoy, basis = growth_choice(periods, PERIODS)
    eps = figures["eps"]
    return RuleValues(
        revenue_yoy=np.where(np.isnan(revenue_yoy), figures["or_yoy"], revenue_yoy),
        profit_yoy=profit_yoy,
        basis=basis,
        cash_quality=figures["ocfps"] / np.where(eps > 0, eps, np.nan),
        labels=labels_of(periods.ends, periods.kinds, months),
        months=months,
    )


def audit_periods(records: Sequence[AuditFinanceRecordInput] | Columns | pd.DataFrame) -> ReportPeriods:
    """The audit records' periods (records, or stored rows in their columns)."""
    return report_periods(records, AUDIT_FIGURES)


RULE_FIELDS = ("revenue_yoy", "profit_dedt_yoy", "roe", "debt_to_assets", "cash_quality")


def latest_rule_period(
    records: Sequence[AuditFinanceRecordInput] | Columns | pd.DataFrame,
) -> dict[str, Num | str]:
    """The newest period's rule fields as `periods[0]` of the snapshot holds them."""
    return latest_rule_fields(audit_periods(records))


def latest_rule_fields(periods: ReportPeriods) -> dict[str, Num | str]:
    """`latest_rule_period` of periods already formed (the batch path forms them once per state)."""
    if not len(periods):
        return {}
    values = rule_values(periods)
    latest = {
        "revenue_yoy": values.revenue_yoy[-1],
        "profit_dedt_yoy": values.profit_yoy[-1],
        "roe": periods.figures["roe"][-1],
        "debt_to_assets": periods.figures["debt_to_assets"][-1],
        "cash_quality": values.cash_quality[-1],
    }
    return {"period": values.labels[-1], **{f: _num(latest[f]) for f in RULE_FIELDS}}


class FinancialSnapshotBuilder:
    """Per symbol in plain numpy/Python over its dozen periods (no frames, issue 20)."""

    def build(
        self, symbol: str, name: str, industry: str, records: list[AuditFinanceRecordInput], as_of: date
    ) -> FinancialSnapshotDTO:
        periods = audit_periods(records)
        values = rule_values(periods)
        figures = periods.figures
        days = {
            key: _days(figures[reported], figures[turnover], values.months)
            for key, (reported, turnover) in _DAYS_OF.items()
        }
        debt_yi = figures["interestdebt"] / 1e8
        periods_out = [
            PeriodMetrics(
                period=values.labels[i],
                revenue_yoy=_num(values.revenue_yoy[i]),
                profit_dedt_yoy=_num(values.profit_yoy[i]),
                gross_margin=_num(figures["grossprofit_margin"][i]),
                net_margin=_num(figures["netprofit_margin"][i]),
                roe=_num(figures["roe"][i]),
                roic=_num(figures["roic"][i]),
                cash_quality=_num(values.cash_quality[i]),
                debt_to_assets=_num(figures["debt_to_assets"][i]),
                interest_debt_yi=_num(debt_yi[i]),
                current_ratio=_num(figures["current_ratio"][i]),
                quick_ratio=_num(figures["quick_ratio"][i]),
                receivable_days=_num(days["receivable_days"][i], 1),
                inventory_days=_num(days["inventory_days"][i], 1),
            )
            for i in range(len(periods) - 1, max(len(periods) - PERIODS, 0) - 1, -1)  # newest first
        ]
        basis = values.basis
        return FinancialSnapshotDTO(
            symbol=symbol,
            stock_name=name,
            industry=industry or NA,
            as_of=as_of,
            periods=periods_out,
            period_count=len(periods_out),
            latest_period=periods_out[0].period if periods_out else NA,
            profit_growth_basis=basis,
            table=render_table(
                periods_out[:TABLE_PERIODS], COLUMNS | {"profit_dedt_yoy": PROFIT_ROW_LABEL[basis]}
            ),
            table_period_count=len(periods_out[:TABLE_PERIODS]),
            highlights=financial_highlights(periods_out[0], PROFIT_ROW_LABEL[basis].removesuffix("%"))
            if periods_out
            else "",
        )
