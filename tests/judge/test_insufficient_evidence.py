"""No evidence, no verdict: fewer than two experts with data is `insufficient evidence`, in both the
rules path and the LLM path, with no model call; an expert without data is never a voice."""

from __future__ import annotations

from stockdesk.judge.application import signals_with_data
from tests.judge.test_judge import OUTCOME, TECHNICAL, service, verdict

WITH_DATA = {"stance": "bullish", "score": 0.6, "confidence": 0.66, "has_data": True}
WITHOUT_DATA = {"stance": "neutral", "score": 0.0, "confidence": 0.0, "has_data": False}


def assert_insufficient(result: object, experts: list[str]) -> None:
    assert result.evidence == "insufficient" and result.action == "HOLD"  # type: ignore[attr-defined]
    assert result.confidence == 0.0 and result.position_percent == 0.0  # type: ignore[attr-defined]
    assert result.trade_plan is None and result.support == {}  # type: ignore[attr-defined]
    assert result.experts_with_data == experts  # type: ignore[attr-defined]
    assert "证据不足" in result.reasoning and "insufficient evidence" in result.evidence_reason  # type: ignore[attr-defined]


def test_a_rules_verdict_on_one_expert_with_data_is_insufficient_evidence() -> None:
    judge, provider = service("never used")
    evidence = {
        "code_signals": {"financial_auditor": WITH_DATA, "technical_analyst": WITHOUT_DATA},
        "technical": TECHNICAL,
    }
    result = judge.rules_only("600519.SH", evidence)
    assert_insufficient(result, ["financial_auditor"])
    assert provider.calls == 0 and result.source == "rules"


def test_two_experts_with_data_give_a_rules_verdict_with_its_plan() -> None:
    judge, _ = service("never used")
    evidence = {
        "code_signals": {"financial_auditor": WITH_DATA, "valuation_modeler": WITH_DATA},
        "technical": TECHNICAL,
    }
    result = judge.rules_only("600519.SH", evidence)
    assert result.evidence == "sufficient" and result.action == "BUY" and result.confidence > 0
    assert result.trade_plan is not None and result.experts_with_data == [
        "financial_auditor",
        "valuation_modeler",
    ]


def test_the_llm_judge_is_not_asked_when_one_expert_has_data() -> None:
    judge, provider = service(verdict(action="BUY", confidence=0.9))
    evidence = {
        "experts_with_data": ["valuation_modeler"],
        "stances": {"valuation_modeler": "bullish", "technical_analyst": "bullish"},
        "code_signals": {"valuation_modeler": WITH_DATA, "technical_analyst": WITHOUT_DATA},
        "technical": TECHNICAL,
    }
    result = judge.run_on_outcome("600519.SH", OUTCOME, evidence)
    assert_insufficient(result, ["valuation_modeler"])
    assert provider.calls == 0  # no tokens spent on a verdict with nothing to weigh


def test_an_expert_with_zero_bars_is_not_a_voice_in_the_evidence_bound() -> None:
    judge, provider = service(verdict(action="BUY", confidence=0.9))
    evidence = {
        "stances": {
            "valuation_modeler": "bullish",
            "financial_auditor": "bullish",
            "technical_analyst": "bearish",
        },
        "code_signals": {
            "valuation_modeler": WITH_DATA,
            "financial_auditor": WITH_DATA,
            "technical_analyst": {**WITHOUT_DATA, "stance": "bearish"},  # 0 bars
        },
        "technical": TECHNICAL,
    }
    result = judge.run_on_outcome("600519.SH", OUTCOME, evidence)
    assert provider.calls == 1 and result.evidence == "sufficient" and result.action == "BUY"
    # voices: the two experts with data and the debate; the technical analyst without bars is none
    assert (result.support["agreeing"], result.support["voices"]) == (3, 3)
    assert result.experts_with_data == ["financial_auditor", "valuation_modeler"]


def test_signals_with_data_need_data_and_a_lean() -> None:
    signals = {
        "a": WITH_DATA,
        "b": WITHOUT_DATA,
        "c": {**WITH_DATA, "confidence": 0.0},  # found items, no lean: not a rules voice
        "d": {"stance": "bearish", "score": -0.5, "confidence": 0.4},  # stored before has_data
    }
    assert signals_with_data(signals) == ["a", "d"]
