"""Financial audit snapshot: the last 8 periods' growth, margins, returns, cash quality, leverage, turnover.

YoY growth compares each period with the report of the same type (Q1/H1/Q3/A) a year earlier
(year-to-date figures; within 20 days, for US 52/53-week years); revenue growth uses the reported
`or_yoy` when revenue itself is not stored. Profit growth is of deducted profit when it yields any
growth in the periods shown, else of net profit attributable to the parent (SEC filings have no
deducted profit); `profit_growth_basis` and the table row's label say which. Periods are named by
fiscal year (the calendar year the fiscal year ends in: AAPL's quarter to 2023-12-30 is 2024Q1) and
report type. Turnover days are period days / turnover where the source gives no days. Vectorised.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from stockdesk.research.domain.dtos.financial import (
    AuditFinanceRecordInput,
    FinancialSnapshotDTO,
    PeriodMetrics,
)
from stockdesk.research.domain.dtos.valuation import DEDUCTED_PROFIT, NA, NET_PROFIT_FALLBACK, Num
from stockdesk.research.domain.ports.financial import IFinancialSnapshotBuilder
from stockdesk.research.infrastructure.snapshot.highlights import financial_highlights
from stockdesk.shared.finance import by_period, period_months, report_kind, round_half_up, yoy_growth

PERIODS = 8
TABLE_PERIODS = 4  # the prompt's table: the newest four (the snapshot keeps eight for charts and checks)
DAYS_PER_MONTH = 30  # 90/180/270/360-day periods
COLUMNS = {
    "revenue_yoy": "营收同比%", "profit_dedt_yoy": "扣非净利同比%", "gross_margin": "毛利率%",
    "net_margin": "净利率%", "roe": "ROE%", "roic": "ROIC%", "cash_quality": "现金质量(OCFPS/EPS)",
    "debt_to_assets": "资产负债率%", "interest_debt_yi": "有息负债(亿)", "current_ratio": "流动比率",
    "quick_ratio": "速动比率", "receivable_days": "应收周转天数", "inventory_days": "存货周转天数",
}  # fmt: skip
PROFIT_ROW_LABEL = {DEDUCTED_PROFIT: COLUMNS["profit_dedt_yoy"], NET_PROFIT_FALLBACK: "归母净利同比%"}
AUDIT_COLUMNS = list(AuditFinanceRecordInput.model_fields)
CALENDAR_DRIFT = pd.Timedelta(days=7)  # a 52/53-week year may end a few days into the next month


def _num(value: float, digits: int = 2) -> Num:
    return round_half_up(float(value), digits) if pd.notna(value) and np.isfinite(value) else NA


def _days(reported: pd.Series, turnover: pd.Series, months: pd.Series) -> pd.Series:
    derived = months * DAYS_PER_MONTH / turnover.where(turnover > 0)
    return reported.where(reported.notna(), derived)


def period_labels(frame: pd.DataFrame, months: pd.Series) -> pd.Series:
    """Fiscal year + report type ("2024H1"); the fiscal year ends (12 - months) months after the period.

    Unknown report types keep the calendar year and no suffix.
    """
    end = frame["end_date"].to_numpy() - CALENDAR_DRIFT.to_timedelta64()
    covered = months.to_numpy(dtype="float64")
    month = end.astype("datetime64[M]").astype("int64") % 12 + 1
    fiscal_year = (
        end.astype("datetime64[Y]").astype("int64")
        + 1970
        + (month - 1 + 12 - np.where(np.isnan(covered), 12, covered)) // 12
    )
    kinds = report_kind(frame).to_numpy()
    labels = [
        f"{int(year)}{kind if known else ''}"
        for year, kind, known in zip(fiscal_year, kinds, ~np.isnan(covered), strict=True)
    ]
    return pd.Series(labels, index=frame.index, dtype="str")


def profit_growth(frame: pd.DataFrame, shown: int) -> tuple[pd.Series, str]:
    """Deducted-profit growth if it yields any in the last `shown` periods, else net-profit growth."""
    deducted = yoy_growth(frame, "profit_dedt")
    if _any_in(deducted, shown):
        return deducted, DEDUCTED_PROFIT
    net = yoy_growth(frame, "net_profit")
    return (net, NET_PROFIT_FALLBACK) if _any_in(net, shown) else (deducted, DEDUCTED_PROFIT)


def _any_in(growth: pd.Series, last: int) -> bool:
    return bool((~np.isnan(growth.to_numpy()[-last:])).any()) if last > 0 else False


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

    Figures as floats. From the records, or from rows already in their columns (the evaluation's
    batch path takes them from the stored versions and skips building records).
    """
    rows = records
    if not isinstance(rows, pd.DataFrame):
        rows = pd.DataFrame([r.model_dump() for r in records], columns=AUDIT_COLUMNS)
    return by_period(rows, AUDIT_COLUMNS, text=("ann_date", "report_type"))


def rule_columns(
    records: list[AuditFinanceRecordInput] | pd.DataFrame,
) -> tuple[pd.DataFrame, pd.Series, str]:
    """The records' frame with the columns the code signal reads (growth, cash quality, period),
    their months and the profit-growth basis. The builder and the evaluation's batch path share it."""
    frame = audit_frame(records)
    columns, months, basis = _rule_values(frame)
    return frame.assign(**columns), months, basis


def _rule_values(frame: pd.DataFrame) -> tuple[dict[str, np.ndarray], pd.Series, str]:
    """`rule_columns`' added columns as arrays (adding them to the frame costs more than computing them)."""
    months = period_months(frame)
    revenue_yoy = yoy_growth(frame, "revenue").to_numpy()
    profit_yoy, basis = profit_growth(frame, PERIODS)
    eps = frame["eps"].to_numpy()
    columns = {
        "revenue_yoy": np.where(np.isnan(revenue_yoy), frame["or_yoy"].to_numpy(), revenue_yoy),
        "profit_dedt_yoy": profit_yoy.to_numpy(),
        "cash_quality": frame["ocfps"].to_numpy() / np.where(eps > 0, eps, np.nan),
        "period": period_labels(frame, months).to_numpy(),
    }
    return columns, months, basis


RULE_FIELDS = ("revenue_yoy", "profit_dedt_yoy", "roe", "debt_to_assets", "cash_quality")


def latest_rule_period(records: list[AuditFinanceRecordInput] | pd.DataFrame) -> dict[str, Num | str]:
    """The newest period's rule fields as `periods[0]` of the snapshot holds them."""
    frame = audit_frame(records)
    if frame.empty:
        return {}
    columns, _, _ = _rule_values(frame)
    columns |= {c: frame[c].to_numpy() for c in RULE_FIELDS if c not in columns}
    return {"period": columns["period"][-1], **{f: _num(columns[f][-1]) for f in RULE_FIELDS}}


class FinancialSnapshotBuilder(IFinancialSnapshotBuilder):
    def build(
        self, symbol: str, name: str, industry: str, records: list[AuditFinanceRecordInput], as_of: date
    ) -> FinancialSnapshotDTO:
        frame, months, basis = rule_columns(records)
        frame["receivable_days"] = _days(frame["arturn_days"], frame["ar_turn"], months)
        frame["inventory_days"] = _days(frame["invturn_days"], frame["inv_turn"], months)
        frame["interest_debt_yi"] = frame["interestdebt"] / 1e8
        latest = frame.tail(PERIODS).iloc[::-1]
        periods = [
            PeriodMetrics(
                period=row.period,
                revenue_yoy=_num(row.revenue_yoy),
                profit_dedt_yoy=_num(row.profit_dedt_yoy),
                gross_margin=_num(row.grossprofit_margin),
                net_margin=_num(row.netprofit_margin),
                roe=_num(row.roe),
                roic=_num(row.roic),
                cash_quality=_num(row.cash_quality),
                debt_to_assets=_num(row.debt_to_assets),
                interest_debt_yi=_num(row.interest_debt_yi),
                current_ratio=_num(row.current_ratio),
                quick_ratio=_num(row.quick_ratio),
                receivable_days=_num(row.receivable_days, 1),
                inventory_days=_num(row.inventory_days, 1),
            )
            for row in latest.itertuples(index=False)
        ]
        return FinancialSnapshotDTO(
            symbol=symbol,
            stock_name=name,
            industry=industry or NA,
            as_of=as_of,
            periods=periods,
            period_count=len(periods),
            latest_period=periods[0].period if periods else NA,
            profit_growth_basis=basis,
            table=render_table(
                periods[:TABLE_PERIODS], COLUMNS | {"profit_dedt_yoy": PROFIT_ROW_LABEL[basis]}
            ),
            table_period_count=len(periods[:TABLE_PERIODS]),
            highlights=financial_highlights(periods[0], PROFIT_ROW_LABEL[basis].removesuffix("%"))
            if periods
            else "",
        )
