"""Highlights: the direction of the newest figures worded by code, as the prompts show them."""

from __future__ import annotations

from stockdesk.research.application.snapshot.highlights import (
    change_word,
    financial_highlights,
    level_word,
    valuation_highlights,
)
from stockdesk.research.domain.dtos.financial import PeriodMetrics

NA = "N/A"


def test_words_follow_the_sign_and_the_percentile_bands() -> None:
    assert [change_word(v) for v in (-13.74, 0.0, 2.5, NA)] == ["下降", "持平", "增长", "数据不足"]
    assert [level_word(v) for v in (14, 40, 60, 76, NA)] == ["偏低", "居中", "居中", "偏高", "数据不足"]


def test_financial_highlights_of_the_recorded_falling_quarter() -> None:
    period = PeriodMetrics(
        period="2020Q1", revenue_yoy=-13.74, profit_dedt_yoy=-25.49, gross_margin=22.4, net_margin=5.1,
        roe=4.46, roic=NA, cash_quality=0.3, debt_to_assets=68.2, interest_debt_yi=NA, current_ratio=1.2,
        quick_ratio=0.9, receivable_days=40.0, inventory_days=60.0,
    )  # fmt: skip
    text = financial_highlights(period, "扣非净利同比")
    assert text.startswith("2020Q1：营收同比 -13.74%（下降）；扣非净利同比 -25.49%（下降）")
    assert "ROE 4.46%（2020Q1 年初至今）" in text


def test_valuation_highlights() -> None:
    text = valuation_highlights(14, 2, -10.9, 5.2, "扣非净利润")
    assert text == (
        "PE 历史分位 14（偏低）；PB 历史分位 2（偏低）；安全边际 -10.9%（价格高于格雷厄姆内在价值）；"
        "扣非净利润同比增速均值 5.2%（增长）"
    )
