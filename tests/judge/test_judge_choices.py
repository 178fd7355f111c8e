"""The judge in choices mode: it picks the action, plan, horizon, confidence and card ids; code
writes the reasoning and the risk warnings from the cards, so they cannot argue for another action.
"""

from __future__ import annotations

import json

from stockdesk.judge.application import JudgeService
from stockdesk.judge.infrastructure.adapters.judge_verdict_agent_adapter import (
    SAMPLING,
    JudgeVerdictAgentAdapter,
)
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from tests.conftest import scripted_service
from tests.judge.test_judge import OUTCOME, TECHNICAL


def card(card_id: str, zh: str, en: str, direction: int) -> dict[str, object]:
    return {"id": card_id, "text_zh": zh, "text_en": en, "direction": direction}


CARDS = [
    card(
        "financial.profit_dedt_yoy", "扣非净利同比 12.3%（增长）", "deducted net profit YoY 12.3% (growth)", 1
    ),
    card("valuation.pe_percentile", "PE 历史分位 14（偏低）", "PE historical percentile 14 (low)", 1),
    card("financial.debt_to_assets", "资产负债率 72%", "debt to assets 72% (high)", -1),
    card("technical.rsi14", "RSI14 52（中性）", "RSI14 52 (neutral)", 0),
]
STANCES = {"valuation_modeler": "bullish", "financial_auditor": "bullish", "technical_analyst": "neutral"}
EVIDENCE = {"technical": TECHNICAL, "cards": CARDS, "stances": STANCES}


def choice(**changes: object) -> str:
    answer = {
        "action": "BUY",
        "plan": "standard",
        "confidence": 0.6,
        "time_horizon": "1-3个月",
        "decisive": ["financial.profit_dedt_yoy", "valuation.pe_percentile"],
        "risks": ["financial.debt_to_assets"],
    }
    return json.dumps({**answer, **changes}, ensure_ascii=False)


def service(*answers: str) -> tuple[JudgeService, ScriptedProvider]:
    provider = ScriptedProvider(list(answers))
    adapter = JudgeVerdictAgentAdapter(
        LLMHandle(scripted_service(provider), SAMPLING), output_style="choices"
    )
    return JudgeService(adapter), provider


def test_the_judge_picks_cards_and_code_writes_its_reasoning() -> None:
    svc, provider = service(choice())
    result = svc.run_on_outcome("600519.SH", OUTCOME, EVIDENCE)
    assert provider.calls == 1 and result.action == "BUY"
    assert result.reasoning == "买入。依据：扣非净利同比 12.3%（增长）；PE 历史分位 14（偏低）。"
    assert result.risk_warnings == ["资产负债率 72%。"]
    assert result.choices["english"]["reasoning"].startswith("Buy: on deducted net profit YoY 12.3%")
    assert result.claim_checks == {}  # code wrote the texts: nothing to check
    schema = provider.requests[0].json_schema or {}
    assert schema["properties"]["decisive"]["items"]["enum"] == [c["id"] for c in CARDS]
    prompt = provider.requests[0].messages[-1].content
    assert "[valuation.pe_percentile] PE 历史分位 14（偏低）（↑利多）" in prompt


def test_a_decisive_card_against_the_action_is_re_asked_then_accepted() -> None:
    wrong = choice(decisive=["financial.debt_to_assets", "valuation.pe_percentile"])
    svc, provider = service(wrong, choice())
    result = svc.run_on_outcome("600519.SH", OUTCOME, EVIDENCE)
    assert provider.calls == 2 and "financial.debt_to_assets" in provider.requests[1].messages[-1].content
    assert result.choices["retried"] and result.choices["dropped"] == []
    assert result.reasoning.startswith("买入。依据：扣非净利同比")


def test_a_pick_still_wrong_after_the_re_ask_is_dropped_and_recorded() -> None:
    wrong = choice(
        decisive=["financial.debt_to_assets", "valuation.pe_percentile"], risks=["financial.profit_dedt_yoy"]
    )
    svc, provider = service(wrong)  # the same answer twice
    result = svc.run_on_outcome("600519.SH", OUTCOME, EVIDENCE)
    assert provider.calls == 2 and len(result.choices["dropped"]) == 2
    assert result.reasoning == "买入。依据：PE 历史分位 14（偏低）。" and result.risk_warnings == []


def test_a_hold_reasoning_names_hold_whatever_the_cards() -> None:
    hold = choice(action="HOLD", decisive=["financial.debt_to_assets", "valuation.pe_percentile"], risks=[])
    svc, _ = service(hold)
    result = svc.run_on_outcome("600519.SH", {**OUTCOME, "direction": "NEUTRAL"}, EVIDENCE)
    assert result.action == "HOLD" and result.position_percent == 0.0
    assert result.reasoning.startswith("观望。") and "买入" not in result.reasoning


def test_without_cards_the_choices_judge_answers_in_prose() -> None:
    prose = json.dumps(
        {"action": "BUY", "plan": "standard", "confidence": 0.6, "time_horizon": "1-3个月",
         "risk_warnings": [], "reasoning": "辩论偏多且置信度中等，轻仓参与。"},
        ensure_ascii=False,
    )  # fmt: skip
    svc, provider = service(prose)
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL, "stances": STANCES})
    assert provider.requests[0].schema_name == "VerdictResult" and result.reasoning.startswith("辩论偏多")
