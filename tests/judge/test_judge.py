"""Judge (judge-design spec): outcome -> JudgeInput, strict parsing, evidence bound, plan from code, REST."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.judge.application import JudgeService, judge_input_from_outcome
from stockdesk.judge.domain.exceptions import InvalidDebateOutcomeError
from stockdesk.judge.infrastructure.adapters.judge_verdict_agent_adapter import (
    SAMPLING,
    JudgeVerdictAgentAdapter,
)
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import LLMOutputParseError
from tests.api_support import api_client
from tests.conftest import scripted_service

URL = "/api/v1/judge/verdict"
OUTCOME = {
    "symbol": "600519.SH",
    "direction": "BULLISH",
    "confidence": 0.62,
    "bull_case": {"core_thesis": "高端白酒需求稳健，现金流充沛", "supporting_arguments": ["ROE 30%"]},
    "bear_case": {"core_thesis": "估值处于历史高位", "acknowledged_strengths": ["品牌"]},
    "risk_matrix": [
        {"risk": "消费降级", "probability": "Medium", "impact": "High", "mitigation": "控制仓位"},
        {"risk": "政策变化", "probability": "Low", "impact": "High", "mitigation": "跟踪政策"},
    ],
    "key_disagreements": ["估值是否已反映增长"],
    "conflict_resolution": "基本面优势大于估值压力",
}
TECHNICAL = {
    "trade_date": "2026-05-29",
    "close": 100.0,
    "atr14": 2.0,
    "support_levels": [96.0],
    "resistance_levels": [110.0],
    "low_20d": 95.0,
    "high_20d": 108.0,
}
NEUTRAL_FOUR_BULLISH_ONE = {
    "stances": {
        "valuation_modeler": "neutral",
        "technical_analyst": "bullish",
        "financial_auditor": "neutral",
        "macro_intelligence": "neutral",
        "catalyst_detective": "neutral",
    },
    "technical": TECHNICAL,
}


def verdict(**changes: object) -> str:
    answer = {
        "action": "BUY",
        "plan": "standard",
        "confidence": 0.6,
        "time_horizon": "1-3个月",
        "risk_warnings": ["消费降级"],
        "reasoning": "辩论偏多且置信度中等，轻仓参与。",
    }
    answer.update(changes)
    return json.dumps(answer, ensure_ascii=False)


def service(*answers: str) -> tuple[JudgeService, ScriptedProvider]:
    provider = ScriptedProvider(list(answers))
    return JudgeService(JudgeVerdictAgentAdapter(LLMHandle(scripted_service(provider), SAMPLING))), provider


def test_outcome_becomes_judge_input_with_conclusions_only() -> None:
    judge_input = judge_input_from_outcome("600519.SH", OUTCOME)
    assert judge_input.direction == "BULLISH" and judge_input.confidence == 0.62
    assert judge_input.bull_thesis == "高端白酒需求稳健，现金流充沛"
    assert judge_input.risk_factors == ["消费降级", "政策变化"]  # the risk field of each row
    assert "supporting_arguments" not in judge_input.model_dump()


@pytest.mark.parametrize(
    ("outcome", "message"),
    [
        ({}, "empty"),
        ({**OUTCOME, "direction": "UP"}, "direction"),
        ({**OUTCOME, "confidence": 1.5}, "confidence"),
    ],
)
def test_unusable_outcome_is_a_400(outcome: dict, message: str) -> None:
    with pytest.raises(InvalidDebateOutcomeError, match=message):
        judge_input_from_outcome("X", outcome)


def test_one_call_gives_a_structured_verdict_with_the_prompt_and_raw_answer() -> None:
    svc, provider = service(verdict())
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL})
    assert provider.calls == 1 and result.action == "BUY" and result.source == "llm"
    assert "高端白酒需求稳健" in result.input and "消费降级" in result.input and "0.62" in result.input
    assert result.output == verdict()


def test_the_prompt_offers_code_given_plans_and_caps() -> None:
    svc, _ = service(verdict())
    result = svc.run_on_outcome("600519.SH", OUTCOME, NEUTRAL_FOUR_BULLISH_ONE)
    assert "止损 95.5" in result.input and "BUY ≤ 0.53" in result.input  # 2 of 6 voices bullish
    assert "2026-05-29" in result.input


@pytest.mark.parametrize(
    "bad",
    [
        {"action": "STRONG_BUY"},
        {"plan": "aggressive"},
        {"confidence": -0.1},
        {"time_horizon": "2031-12-31"},  # no dates: only the code-given horizons
    ],
)
def test_out_of_bounds_answers_are_parse_errors(bad: dict) -> None:
    svc, _ = service(verdict(**bad), verdict(**bad))  # the one repair attempt fails too
    with pytest.raises(LLMOutputParseError):
        svc.run_on_outcome("600519.SH", OUTCOME)


def test_levels_and_size_come_from_code_not_from_the_model() -> None:
    svc, _ = service(verdict(confidence=0.6))
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL})
    plan = result.trade_plan
    assert plan is not None and plan.entry_price == 100.0 and plan.stop_loss_price == 95.5
    assert plan.take_profit_price == 110.0 and plan.risk_reward == 2.22
    assert result.position_percent == plan.position_percent > 0
    assert "95.5" in result.stop_loss and "110" in result.take_profit and "100" in result.entry_strategy


def test_hold_means_no_position_and_two_levels_to_watch() -> None:
    svc, _ = service(verdict(action="HOLD"))
    result = svc.run_on_outcome("600519.SH", {**OUTCOME, "direction": "NEUTRAL"}, {"technical": TECHNICAL})
    assert result.position_percent == 0.0 and result.trade_plan is not None
    assert result.trade_plan.stop_loss_price < 100 < result.trade_plan.take_profit_price
    assert "转弱" in result.stop_loss and "转强" in result.take_profit


def test_confidence_is_capped_by_the_share_of_agreeing_voices_and_says_why() -> None:
    svc, _ = service(verdict(confidence=0.85))
    evidence = {**NEUTRAL_FOUR_BULLISH_ONE, "stances": {**NEUTRAL_FOUR_BULLISH_ONE["stances"]}}
    result = svc.run_on_outcome("600519.SH", OUTCOME, evidence)  # debate bullish: 2 of 6 voices
    assert result.confidence == 0.53 and result.confidence <= 0.3 + 0.7 * 2 / 6
    [adjustment] = result.adjustments
    assert adjustment.what == "confidence" and adjustment.from_ == 0.85 and adjustment.to == 0.53
    assert "capped from 0.85 to 0.53: 2 of 6 voices bullish" in adjustment.why
    assert result.model_dump(mode="json")["adjustments"][0]["from"] == 0.85


def test_an_action_against_experts_and_debate_is_re_asked_once_then_accepted() -> None:
    svc, provider = service(verdict(action="SELL"), verdict(action="HOLD", confidence=0.5))
    outcome = {**OUTCOME, "direction": "NEUTRAL"}
    result = svc.run_on_outcome("600519.SH", outcome, NEUTRAL_FOUR_BULLISH_ONE)
    assert provider.calls == 2 and result.action == "HOLD" and result.source == "llm"
    assert "experts lean neutral" in provider.requests[1].messages[-1].content
    assert result.adjustments[0].what == "action" and result.adjustments[0].from_ == "SELL"


def test_an_action_still_against_the_evidence_is_replaced_by_the_rules_verdict() -> None:
    svc, provider = service(verdict(action="SELL"), verdict(action="SELL"))
    evidence = {
        **NEUTRAL_FOUR_BULLISH_ONE,
        "code_signals": {
            "technical_analyst": {"stance": "bullish", "score": 0.6, "confidence": 0.66},
            "valuation_modeler": {"stance": "neutral", "score": 0.1, "confidence": 0.36},
        },
    }
    result = svc.run_on_outcome("600519.SH", {**OUTCOME, "direction": "NEUTRAL"}, evidence)
    assert provider.calls == 2 and result.source == "rules"
    assert result.action == result.rules_verdict["action"] == "BUY"  # composite 0.35
    assert any(a.what == "action" and a.to == "BUY" and "rules verdict" in a.why for a in result.adjustments)
    assert result.confidence <= 0.3 + 0.7 * result.support["share"] + 1e-9


def test_samples_report_how_often_the_action_agrees() -> None:
    svc, provider = service(verdict(), verdict(), verdict(action="HOLD"), verdict())
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL}, samples=4)
    assert provider.calls == 4 and result.stability == {
        "samples": 4,
        "agree": 3,
        "actions": ["BUY", "BUY", "HOLD", "BUY"],
    }
    seeds = [r.seed for r in provider.requests]
    assert len(set(seeds)) == 4  # each sample its own seed


def test_without_prices_there_is_no_plan_and_no_position() -> None:
    svc, _ = service(verdict())
    result = svc.run_on_outcome("600519.SH", OUTCOME)
    assert result.trade_plan is None and result.position_percent == 0.0
    assert "无行情数据" in result.stop_loss


def client_for(settings: Settings, *answers: str) -> TestClient:
    container = AppContainer(settings, llm_service=scripted_service(ScriptedProvider(list(answers))))
    return api_client(container)


def test_rest_verdict(settings: Settings) -> None:
    response = client_for(settings, verdict(confidence=0.8)).post(
        URL, json={"symbol": "600519.SH", "debate_outcome": OUTCOME, "evidence": {"technical": TECHNICAL}}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["action"] == "BUY" and body["trade_plan"]["stop_loss_price"] == 95.5
    # one voice (the debate), bullish: cap 1.0; an LLM verdict is uncalibrated, so at most 0.6
    assert body["confidence"] == 0.6 and body["calibrated"] is False
    assert any("uncalibrated" in a["why"] for a in body["adjustments"])
    assert {
        "entry_strategy",
        "stop_loss",
        "take_profit",
        "time_horizon",
        "risk_warnings",
        "reasoning",
        "adjustments",
        "trade_plan",
    } <= set(body)


@pytest.mark.parametrize(
    ("payload", "status", "code"),
    [
        ({"symbol": "600519.SH", "debate_outcome": {}}, 400, "BAD_REQUEST"),  # the schema asks for one
        ({"symbol": "600519.SH"}, 400, "BAD_REQUEST"),
        ({"symbol": "600519.SH", "debate_outcome": OUTCOME}, 422, "LLM_OUTPUT_PARSE_ERROR"),
    ],
)
def test_rest_errors(settings: Settings, payload: dict, status: int, code: str) -> None:
    response = client_for(settings, "no json here", "still none").post(URL, json=payload)
    assert response.status_code == status and response.json()["error"]["code"] == code
