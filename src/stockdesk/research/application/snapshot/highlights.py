"""Highlights: the newest figures with their direction worded by code, so a small model does not
have to read a sign (it wrote "营收同比增长" beside revenue_yoy -13.74 when it had to).

The text is the evidence cards' `text_zh` joined (`research.application.evidence_cards`: one way to
word a figure); a figure without a card (missing) keeps its place with its value and "数据不足", so
the prompts read exactly as before the cards existed.
"""

from __future__ import annotations

from stockdesk.research.application.evidence_cards import (
    growth_card,
    percentile_card,
    period_cards,
    safety_margin_card,
)
from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from stockdesk.research.domain.dtos.financial import PeriodMetrics
from stockdesk.research.domain.dtos.valuation import Num

SEPARATOR = "；"
MISSING = "数据不足"


def _is_number(value: Num | int) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def change_word(value: Num) -> str:
    if not _is_number(value):
        return MISSING
    return "增长" if value > 0 else "下降" if value < 0 else "持平"  # type: ignore[operator]


def level_word(percentile: Num | int) -> str:
    """A historical percentile in words: below 40 low, above 60 high (the claim checks' bands)."""
    if not _is_number(percentile):
        return MISSING
    return "偏低" if percentile < 40 else "偏高" if percentile > 60 else "居中"  # type: ignore[operator]


def _text(card: EvidenceCard | None, missing: str) -> str:
    return card.text_zh if card is not None else missing


def financial_highlights(period: PeriodMetrics, profit_label: str) -> str:
    cards = {card.id.partition(".")[2]: card for card in period_cards(period, profit_label)}
    parts = [
        _text(
            cards.get("revenue_yoy"), f"营收同比 {period.revenue_yoy}%（{change_word(period.revenue_yoy)}）"
        ),
        _text(
            cards.get("profit_dedt_yoy"),
            f"{profit_label} {period.profit_dedt_yoy}%（{change_word(period.profit_dedt_yoy)}）",
        ),
        _text(cards.get("roe"), f"ROE {period.roe}%（{period.period} 年初至今）"),
        _text(cards.get("debt_to_assets"), f"资产负债率 {period.debt_to_assets}%"),
        _text(cards.get("cash_quality"), f"现金质量 {period.cash_quality}"),
    ]
    return f"{period.period}：" + SEPARATOR.join(parts)


def valuation_highlights(
    pe_percentile: Num | int, pb_percentile: Num | int, safety_margin: Num, growth: Num, growth_label: str
) -> str:
    parts = [
        _text(
            percentile_card("pe_percentile", pe_percentile),
            f"PE 历史分位 {pe_percentile}（{level_word(pe_percentile)}）",
        ),
        _text(
            percentile_card("pb_percentile", pb_percentile),
            f"PB 历史分位 {pb_percentile}（{level_word(pb_percentile)}）",
        ),
        _text(safety_margin_card(safety_margin), f"安全边际 {safety_margin}%（{MISSING}）"),
        _text(
            growth_card(growth, growth_label),
            f"{growth_label}同比增速均值 {growth}%（{change_word(growth)}）",
        ),
    ]
    return SEPARATOR.join(parts)
