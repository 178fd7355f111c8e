"""Grounding and trade-instruction guards on real-looking Chinese and English text."""

from __future__ import annotations

from stockdesk.research.application.guards import check_grounding, numbers_in_text, trade_instructions

SNAPSHOT = {"pe_ttm": 12.53, "graham_safety_margin": -10.9, "growth_rate_avg": 2.57, "roe": 4.46, "pct": 80}


def test_numbers_next_to_chinese_characters_are_checked():
    text = "当前价格高于格雷厄姆内在价值10.9%，增速均值为2.57%，ROE为4.46%，PE为13.0。"
    assert numbers_in_text(text) == ["10.9", "2.57", "4.46", "13.0"]
    report = check_grounding([text], SNAPSHOT)
    assert report.numbers_checked == 4 and report.ungrounded == ["13.0"]


def test_dates_years_and_counts_are_not_claims_but_small_percentages_are():
    text = "2020-06-16 的 2019 年报显示过去 4 个季度，PE 处于 5% 分位，第 3 名"
    assert numbers_in_text(text) == ["5"]


def test_rounding_and_percent_forms_are_grounded():
    report = check_grounding(["PE 约 12.5，分位 80%，ROE 4.5%"], SNAPSHOT)
    assert report.ungrounded == [] and report.numbers_checked == 3


def test_trade_instructions_in_both_languages():
    assert trade_instructions(["估值偏低，建议买入", "Strong buy here", "we recommend selling"]) == [
        "Strong buy",
        "we recommend selling",
        "建议买入",
    ]
    assert trade_instructions(["估值合理，维持观察"]) == []
