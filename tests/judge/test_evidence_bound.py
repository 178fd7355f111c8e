"""Confidence bound to the evidence, as a property; and when an action goes against it."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.judge.application import JudgeService
from stockdesk.judge.application.services.evidence_bound import against_evidence, support_for
from stockdesk.judge.domain.model.enums import ActionDirection as A
from stockdesk.judge.domain.model.enums import DebateDirection as D
from stockdesk.judge.infrastructure.adapters.judge_verdict_agent_adapter import (
    SAMPLING,
    JudgeVerdictAgentAdapter,
)
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from tests.conftest import scripted_service
from tests.judge.test_judge import OUTCOME, TECHNICAL

EXPERTS = [
    "valuation_modeler",
    "technical_analyst",
    "financial_auditor",
    "macro_intelligence",
    "catalyst_detective",
]
STANCE = st.sampled_from(["bullish", "neutral", "bearish"])


def test_support_counts_experts_and_the_debate() -> None:
    support = support_for(A.BUY, {"a": "bullish", "b": "neutral", "c": "neutral"}, D.NEUTRAL)
    assert (support.agreeing, support.voices, support.share, support.cap) == (1, 4, 0.25, 0.47)
    assert support.words() == "1 of 4 voices bullish"


def test_against_needs_both_the_majority_and_the_debate() -> None:
    stances = {"a": "neutral", "b": "neutral", "c": "bullish"}
    assert against_evidence(A.SELL, stances, D.NEUTRAL) is not None
    assert against_evidence(A.BUY, stances, D.BULLISH) is None  # the debate agrees
    assert against_evidence(A.HOLD, stances, D.BEARISH) is None  # the majority agrees
    assert against_evidence(A.BUY, {"a": "bullish", "b": "bearish"}, D.NEUTRAL) is None  # a tie leads


@settings(max_examples=60, deadline=None)
@given(
    stances=st.lists(STANCE, min_size=0, max_size=5),
    direction=st.sampled_from(list(D)),
    action=st.sampled_from(list(A)),
    confidence=st.floats(0, 1),
)
def test_final_confidence_never_exceeds_the_evidence_bound(
    stances: list[str], direction: D, action: A, confidence: float
) -> None:
    answer = json.dumps(
        {"action": action.value, "plan": "standard", "confidence": confidence, "time_horizon": "1-3个月",
         "risk_warnings": [], "reasoning": "依据证据。"},
        ensure_ascii=False,
    )  # fmt: skip
    service = JudgeService(
        JudgeVerdictAgentAdapter(LLMHandle(scripted_service(ScriptedProvider([answer])), SAMPLING))
    )
    evidence = {"stances": dict(zip(EXPERTS, stances, strict=False)), "technical": TECHNICAL}
    result = service.run_on_outcome("600519.SH", {**OUTCOME, "direction": direction.value}, evidence)
    if len(stances) == 1:  # one expert with data: insufficient evidence, no confidence at all
        assert result.evidence == "insufficient" and result.confidence == 0.0 and result.trade_plan is None
        return
    voices = [*evidence["stances"].values(), direction.value.lower()]
    share = voices.count({"BUY": "bullish", "SELL": "bearish", "HOLD": "neutral"}[result.action]) / len(
        voices
    )
    assert result.confidence <= 0.3 + 0.7 * share + 1e-9
    # an LLM verdict is uncalibrated (no past outcomes of its mode): at most 0.6 on top of the bound
    assert result.confidence == min(confidence, result.support["cap"], 0.6) or result.source == "rules"
    assert not result.calibrated and result.probability_up == {}
