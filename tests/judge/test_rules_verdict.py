"""The rules verdict on hand-built code signals: thresholds, weights, confidence, its own plan."""

from __future__ import annotations

from stockdesk.judge.application import JudgeService
from stockdesk.judge.application.services.rules_verdict import rules_decision
from stockdesk.judge.domain.dtos.evidence import CodeSignalInput
from stockdesk.judge.infrastructure.adapters.judge_verdict_agent_adapter import (
    SAMPLING,
    JudgeVerdictAgentAdapter,
)
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from tests.conftest import scripted_service
from tests.judge.test_judge import TECHNICAL


def signal(expert: str, stance: str, score: float, confidence: float = 0.5) -> CodeSignalInput:
    return CodeSignalInput(expert=expert, stance=stance, score=score, confidence=confidence)


def test_bullish_composite_gives_buy_with_weighted_scores() -> None:
    signals = {
        "valuation_modeler": signal("valuation_modeler", "bullish", 0.5),
        "technical_analyst": signal("technical_analyst", "bullish", 0.6),
        "financial_auditor": signal("financial_auditor", "neutral", 0.0),
        "macro_intelligence": signal("macro_intelligence", "bearish", -1.0),
    }
    decision = rules_decision(signals)
    # (0.5 + 0.6 + 0 - 0.5 x 1.0) / 3.5 = 0.1714 -> HOLD (below 0.25)
    assert decision.action == "HOLD" and decision.composite == 0.171
    # support 1 of 4 neutral; strength 1 - 0.1714/0.25 = 0.314 -> (0.3 + 0.175) x 0.657 = 0.312
    assert decision.confidence == 0.31


def test_strong_agreement_gives_buy_and_confidence_within_the_bound() -> None:
    signals = {n: signal(n, "bullish", 0.8) for n in ("valuation_modeler", "technical_analyst")}
    decision = rules_decision(signals)
    assert decision.action == "BUY" and decision.composite == 0.8
    assert decision.confidence == 0.9  # (0.3 + 0.7) x 1.0, capped at 0.9


def test_bearish_composite_gives_sell() -> None:
    signals = {"financial_auditor": signal("financial_auditor", "bearish", -0.5)}
    decision = rules_decision(signals)
    assert decision.action == "SELL" and decision.confidence == 0.9  # 1 of 1, strength 1


def test_signals_without_data_do_not_count() -> None:
    signals = {
        "valuation_modeler": signal("valuation_modeler", "neutral", 0.0, confidence=0.0),
        "technical_analyst": signal("technical_analyst", "bullish", 0.4),
    }
    decision = rules_decision(signals)
    assert decision.action == "BUY" and decision.composite == 0.4 and decision.support == 1.0


def test_no_signal_at_all_is_a_low_confidence_hold() -> None:
    decision = rules_decision({})
    assert decision.action == "HOLD" and decision.confidence == 0.3


def test_rules_only_makes_no_llm_call_and_carries_a_plan_and_the_signals() -> None:
    provider = ScriptedProvider(["never used"])
    service = JudgeService(JudgeVerdictAgentAdapter(LLMHandle(scripted_service(provider), SAMPLING)))
    evidence = {
        "code_signals": {
            "technical_analyst": {"stance": "bullish", "score": 0.6, "confidence": 0.66},
            "valuation_modeler": {"stance": "bullish", "score": 0.6, "confidence": 0.66},
        },
        "technical": TECHNICAL,
    }
    verdict = service.rules_only("600519.SH", evidence)
    assert provider.calls == 0 and verdict.source == "rules" and verdict.action == "BUY"
    assert verdict.trade_plan is not None and verdict.trade_plan.stop_loss_price == 95.5
    assert verdict.rules_verdict["signals"]["technical_analyst"]["score"] == 0.6
    assert "规则裁决" in verdict.reasoning and verdict.confidence <= 0.3 + 0.7 * verdict.support["share"]
