"""Judge (judge-design spec): outcome -> JudgeInput, strict parsing, the rules layer, the REST route."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.api import create_app
from stockdesk.entrypoints.container import AppContainer
from stockdesk.judge.application import JudgeService, judge_input_from_outcome
from stockdesk.judge.domain.exceptions import InvalidDebateOutcomeError
from stockdesk.judge.infrastructure.adapters.judge_verdict_agent_adapter import JudgeVerdictAgentAdapter
from stockdesk.judge.infrastructure.adapters.llm_adapter import LLMAdapter
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import LLMOutputParseError
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


def verdict(**changes: object) -> str:
    answer = {
        "action": "BUY",
        "position_percent": 0.2,
        "confidence": 0.6,
        "entry_strategy": "回调至支撑位分批建仓",
        "stop_loss": "跌破入场价 8% 止损",
        "take_profit": "上涨 20% 分批止盈",
        "time_horizon": "3-6个月",
        "risk_warnings": ["消费降级"],
        "reasoning": "辩论偏多且置信度中等，轻仓参与。",
    }
    answer.update(changes)
    return json.dumps(answer, ensure_ascii=False)


def service(*answers: str) -> tuple[JudgeService, ScriptedProvider]:
    provider = ScriptedProvider(list(answers))
    return JudgeService(JudgeVerdictAgentAdapter(LLMAdapter(scripted_service(provider)))), provider


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
    result = svc.run_on_outcome("600519.SH", OUTCOME)
    assert provider.calls == 1 and result.action == "BUY" and result.position_percent == 0.2
    assert result.rules_applied == []
    assert "高端白酒需求稳健" in result.input and "消费降级" in result.input and "0.62" in result.input
    assert result.output == verdict()


@pytest.mark.parametrize(
    "bad",
    [
        {"action": "STRONG_BUY"},
        {"position_percent": 1.4},
        {"confidence": -0.1},
        {"position_percent": "a lot"},
    ],
)
def test_out_of_bounds_answers_are_parse_errors(bad: dict) -> None:
    svc, _ = service(verdict(**bad), verdict(**bad))  # the one repair attempt fails too
    with pytest.raises(LLMOutputParseError):
        svc.run_on_outcome("600519.SH", OUTCOME)


def test_hold_means_no_position() -> None:
    svc, _ = service(verdict(action="HOLD", position_percent=0.3, stop_loss="无"))
    result = svc.run_on_outcome("600519.SH", OUTCOME)
    assert result.position_percent == 0.0 and "hold_means_no_position" in result.rules_applied
    assert result.stop_loss == "不持仓，无需止损" and "stop_loss_required" not in result.rules_applied


def test_position_is_capped_by_confidence_and_by_the_single_name_limit() -> None:
    svc, _ = service(
        verdict(position_percent=0.9, confidence=0.4), verdict(position_percent=0.9, confidence=0.95)
    )
    low = svc.run_on_outcome("600519.SH", OUTCOME)
    assert low.position_percent == 0.4 and low.rules_applied == ["position_capped_by_confidence"]
    high = svc.run_on_outcome("600519.SH", OUTCOME)
    assert high.position_percent == 0.5


@pytest.mark.parametrize("stop", ["", "N/A", "  无 "])
def test_every_trade_has_a_stop_loss(stop: str) -> None:
    svc, _ = service(verdict(action="SELL", stop_loss=stop))
    result = svc.run_on_outcome("600519.SH", OUTCOME)
    assert result.stop_loss.strip() and "stop_loss_required" in result.rules_applied


def client_for(settings: Settings, *answers: str) -> TestClient:
    container = AppContainer(settings, llm_service=scripted_service(ScriptedProvider(list(answers))))
    return TestClient(create_app(container), raise_server_exceptions=False)


def test_rest_verdict(settings: Settings) -> None:
    response = client_for(settings, verdict(position_percent=0.8)).post(
        URL, json={"symbol": "600519.SH", "debate_outcome": OUTCOME}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["action"] == "BUY" and body["position_percent"] == 0.5  # min(confidence 0.6, cap 0.5)
    assert body["rules_applied"] == ["position_capped_by_confidence"]
    assert {
        "entry_strategy",
        "stop_loss",
        "take_profit",
        "time_horizon",
        "risk_warnings",
        "reasoning",
    } <= set(body)


@pytest.mark.parametrize(
    ("payload", "status", "code"),
    [
        ({"symbol": "600519.SH", "debate_outcome": {}}, 400, "INVALID_DEBATE_OUTCOME"),
        ({"symbol": "600519.SH"}, 400, "BAD_REQUEST"),
        ({"symbol": "600519.SH", "debate_outcome": OUTCOME}, 422, "LLM_OUTPUT_PARSE_ERROR"),
    ],
)
def test_rest_errors(settings: Settings, payload: dict, status: int, code: str) -> None:
    response = client_for(settings, "no json here", "still none").post(URL, json=payload)
    assert response.status_code == status and response.json()["error"]["code"] == code
