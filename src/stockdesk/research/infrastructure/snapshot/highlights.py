"""Highlights: the newest figures with their direction worded by code, so a small model does not
have to read a sign (it wrote "营收同比增长" beside revenue_yoy -13.74 when it had to)."""

from __future__ import annotations

from stockdesk.research.domain.dtos.financial import PeriodMetrics
from stockdesk.research.domain.dtos.valuation import Num

SEPARATOR = "；"


def _is_number(value: Num | int) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def change_word(value: Num) -> str:
    if not _is_number(value):
        return "数据不足"
    return "增长" if value > 0 else "下降" if value < 0 else "持平"  # type: ignore[operator]


def level_word(percentile: Num | int) -> str:
    """A historical percentile in words: below 40 low, above 60 high (the claim checks' bands)."""
    if not _is_number(percentile):
        return "数据不足"
    return "偏低" if percentile < 40 else "偏高" if percentile > 60 else "居中"  # type: ignore[operator]


def financial_highlights(period: PeriodMetrics, profit_label: str) -> str:
    parts = [
        f"营收同比 {period.revenue_yoy}%（{change_word(period.revenue_yoy)}）",
        f"{profit_label} {period.profit_dedt_yoy}%（{change_word(period.profit_dedt_yoy)}）",
        f"ROE {period.roe}%（{period.period} 年初至今）",
        f"资产负债率 {period.debt_to_assets}%",
        f"现金质量 {period.cash_quality}",
    ]
    return f"{period.period}：" + SEPARATOR.join(parts)


def valuation_highlights(
    pe_percentile: Num | int, pb_percentile: Num | int, safety_margin: Num, growth: Num, growth_label: str
) -> str:
    margin = (
        "数据不足"
        if not _is_number(safety_margin)
        else "价格低于格雷厄姆内在价值"
        if safety_margin > 0
        else "价格高于格雷厄姆内在价值"  # type: ignore[operator]
    )
    parts = [
        f"PE 历史分位 {pe_percentile}（{level_word(pe_percentile)}）",
        f"PB 历史分位 {pb_percentile}（{level_word(pb_percentile)}）",
        f"安全边际 {safety_margin}%（{margin}）",
        f"{growth_label}同比增速均值 {growth}%（{change_word(growth)}）",
    ]
    return SEPARATOR.join(parts)
