"""Financial audit snapshot: the last 8 periods' growth, margins, returns, cash quality, leverage, turnover.

YoY growth compares each period with the same period a year earlier (year-to-date figures);
revenue growth uses the reported `or_yoy` when revenue itself is not stored. Turnover days are
period days / turnover where the source gives no days. Vectorised over the periods.
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
from stockdesk.research.domain.dtos.valuation import NA, Num
from stockdesk.research.domain.ports.financial import IFinancialSnapshotBuilder
from stockdesk.shared.finance import round_half_up, yoy_growth

PERIODS = 8
PERIOD_DAYS = {3: 90, 6: 180, 9: 270, 12: 360}
LABEL = {3: "Q1", 6: "H1", 9: "Q3", 12: "A"}
COLUMNS = {
    "revenue_yoy": "营收同比%", "profit_dedt_yoy": "扣非净利同比%", "gross_margin": "毛利率%",
    "net_margin": "净利率%", "roe": "ROE%", "roic": "ROIC%", "cash_quality": "现金质量(OCFPS/EPS)",
    "debt_to_assets": "资产负债率%", "interest_debt_yi": "有息负债(亿)", "current_ratio": "流动比率",
    "quick_ratio": "速动比率", "receivable_days": "应收周转天数", "inventory_days": "存货周转天数",
}  # fmt: skip


def _num(value: float, digits: int = 2) -> Num:
    return round_half_up(float(value), digits) if pd.notna(value) and np.isfinite(value) else NA


def _days(reported: pd.Series, turnover: pd.Series, month: pd.Series) -> pd.Series:
    derived = month.map(PERIOD_DAYS) / turnover.where(turnover > 0)
    return reported.where(reported.notna(), derived)


def render_table(periods: list[PeriodMetrics]) -> str:
    header = "| 指标 | " + " | ".join(p.period for p in periods) + " |"
    rule = "| --- |" + " --- |" * len(periods)
    rows = [
        f"| {label} | " + " | ".join(str(getattr(p, key)) for p in periods) + " |"
        for key, label in COLUMNS.items()
    ]
    return "\n".join([header, rule, *rows])


class FinancialSnapshotBuilder(IFinancialSnapshotBuilder):
    def build(
        self, symbol: str, name: str, industry: str, records: list[AuditFinanceRecordInput], as_of: date
    ) -> FinancialSnapshotDTO:
        frame = pd.DataFrame(
            [r.model_dump() for r in records], columns=list(AuditFinanceRecordInput.model_fields)
        )
        frame["end_date"] = pd.to_datetime(frame["end_date"])
        frame = frame.sort_values("end_date").drop_duplicates("end_date", keep="last").reset_index(drop=True)
        numeric = [c for c in frame.columns if c not in ("end_date", "ann_date")]
        frame[numeric] = frame[numeric].apply(pd.to_numeric, errors="coerce").astype("float64")
        month = frame["end_date"].dt.month
        revenue_yoy = yoy_growth(frame, "revenue")
        frame["revenue_yoy"] = revenue_yoy.where(revenue_yoy.notna(), frame["or_yoy"])
        frame["profit_dedt_yoy"] = yoy_growth(frame, "profit_dedt")
        frame["cash_quality"] = frame["ocfps"] / frame["eps"].where(frame["eps"] > 0)
        frame["receivable_days"] = _days(frame["arturn_days"], frame["ar_turn"], month)
        frame["inventory_days"] = _days(frame["invturn_days"], frame["inv_turn"], month)
        frame["interest_debt_yi"] = frame["interestdebt"] / 1e8
        frame["period"] = frame["end_date"].dt.year.astype(str) + month.map(LABEL).fillna("")
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
            table=render_table(periods),
        )
