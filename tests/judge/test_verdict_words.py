"""The verdict's code-worded text in both languages, written when the verdict is made (issue 32, one
language per page): the plan's lines, the horizon, the rules reasoning and each adjustment's reason
are stored in English and Chinese beside the fields the prompts read, which keep their text."""

from __future__ import annotations

import re

from stockdesk.judge.application.services.plan_text import plan_texts
from stockdesk.judge.application.services.trade_plan import compute_trade_plan
from stockdesk.judge.domain.dtos.trade_plan import PlanInputs
from stockdesk.judge.domain.model.enums import ActionDirection
from stockdesk.shared.wording import in_language
from tests.judge.test_judge import NEUTRAL_FOUR_BULLISH_ONE, OUTCOME, TECHNICAL, service, verdict
from tests.judge.test_rules_verdict import signal

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
PLAN_FIELDS = ("entry_strategy", "stop_loss", "take_profit")


def english(text: str) -> bool:
    return bool(text) and not CJK.search(text)


def test_a_rules_verdict_stores_its_plan_horizon_and_reasoning_in_both_languages() -> None:
    judge, _ = service(verdict())  # the rules verdict asks no model
    signals = {n: signal(n, "bullish", 0.8).model_dump() for n in ("valuation_modeler", "technical_analyst")}
    result = judge.rules_only("600519.SH", {"technical": TECHNICAL, "code_signals": signals})
    assert result.action == "BUY" and result.trade_plan is not None
    en, zh = result.i18n["en"], result.i18n["zh"]
    for field in (*PLAN_FIELDS, "time_horizon", "reasoning"):
        assert english(en[field]), (field, en[field])
        assert CJK.search(zh[field]), (field, zh[field])
    # the fields the prompts and older pages read keep their Chinese; the stored zh is the same words
    assert {f: getattr(result, f) for f in PLAN_FIELDS} == {f: zh[f] for f in PLAN_FIELDS}
    assert en["time_horizon"] == "1-3 months" and zh["time_horizon"] == result.time_horizon == "1-3个月"
    assert (
        en["entry_strategy"] == f"buy near 100 (close of 2026-05-29), position {result.position_percent:.1%}"
    )
    # the expert names in the reasoning are names in each language, not keys
    assert "Valuation modeler" in en["reasoning"] and "估值建模师" in zh["reasoning"]
    assert "valuation_modeler" not in zh["reasoning"]
    rules = result.trade_plan.i18n
    for field in ("stop_rule", "target_rule", "sizing_rule"):
        assert rules["en"][field] == getattr(result.trade_plan, field)  # the field is the English
        assert english(rules["en"][field]) and CJK.search(rules["zh"][field]), field
    assert rules["en"]["atr_source"] == rules["zh"]["atr_source"] == "ATR(14)"  # the same in both


def test_an_adjustment_says_why_in_both_languages() -> None:
    judge, _ = service(verdict(confidence=0.85))
    result = judge.run_on_outcome("600519.SH", OUTCOME, {**NEUTRAL_FOUR_BULLISH_ONE})
    [adjustment] = result.adjustments
    assert adjustment.why == adjustment.i18n["en"]["why"]
    assert adjustment.i18n["en"]["why"] == "confidence capped from 0.85 to 0.53: 2 of 6 voices bullish"
    assert adjustment.i18n["zh"]["why"] == "置信度从 0.85 下调至 0.53：6 个观点中 2 个看多"
    # the model's own words are not code's: no stored translation of its reasoning
    assert "reasoning" not in result.i18n["zh"] and result.i18n["en"]["time_horizon"] == "1-3 months"


def test_insufficient_evidence_is_said_in_both_languages() -> None:
    judge, _ = service(verdict())  # the rules verdict asks no model
    signals = {"technical_analyst": signal("technical_analyst", "bullish", 0.6).model_dump()}
    result = judge.rules_only("600519.SH", {"technical": TECHNICAL, "code_signals": signals})
    assert result.evidence == "insufficient"
    en, zh = result.i18n["en"], result.i18n["zh"]
    assert english(en["evidence_reason"]) and "Technical analyst" in en["evidence_reason"]
    assert "技术分析师" in zh["evidence_reason"] and "technical_analyst" not in zh["evidence_reason"]
    assert all(english(en[f]) for f in PLAN_FIELDS)


def test_every_plan_is_worded_in_english_with_the_same_numbers_and_signs_as_the_chinese() -> None:
    prices = PlanInputs(trade_date="2025-11-14", close=13.53, atr=0.4, low_20d=12.9, high_20d=14.6)
    for action in ActionDirection:
        plan = compute_trade_plan(action, prices, 0.6)
        en, zh = plan_texts(plan, "en"), plan_texts(plan)
        for field in PLAN_FIELDS:
            numbers = re.findall(r"[+-]?\d+(?:\.\d+)?", en[field])
            assert english(en[field]) and numbers == re.findall(r"[+-]?\d+(?:\.\d+)?", zh[field]), field


def test_a_record_without_stored_words_reads_as_it_was_stored() -> None:
    old = {"stop_loss": "跌破 18（-10%）转弱，需重新评估"}  # a session stored before i18n existed
    assert in_language(old, "stop_loss", "en") == old["stop_loss"]
    new = {**old, "i18n": {"en": {"stop_loss": "below 18 (-10%) it turns weaker: reassess"}}}
    assert (
        in_language(new, "stop_loss", "en").startswith("below 18")
        and in_language(new, "stop_loss", "zh") == old["stop_loss"]
    )
