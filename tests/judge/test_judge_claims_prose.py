"""Recorded bad judge prose (embedded model, make demo), replayed through the real judge service.

The recorded HOLD (position 0%) reasoned for the buy it did not make: "多头论点支持买入操作 …
保守方案的止盈和仓位减半是合理的" (the middle is elided in the record; a comma stands for it here).
The action reaches the claim check from the structured answer, so its reasoning is checked
against it: one repair call, a good repair is taken, a still-bad one loses the sentence.
"""

from __future__ import annotations

from tests.judge.test_judge import OUTCOME, TECHNICAL, service, verdict

RECORDED_HOLD = "多头论点支持买入操作，保守方案的止盈和仓位减半是合理的。"
GOOD_HOLD = "多空分歧较大，证据不足以建仓，观望。"
NEUTRAL = {**OUTCOME, "direction": "NEUTRAL"}  # a HOLD the direction check accepts at once
# what the experts saw in the demo: growth average +2.57, the newest period falling
FALLING_NOW = {
    "digests": [
        {"expert": "valuation_modeler", "key_figures": {"growth_rate_avg": 2.57}},
        {"expert": "financial_auditor", "key_figures": {"revenue_yoy": -13.74, "profit_dedt_yoy": -25.49}},
    ]
}


def test_a_hold_whose_reasoning_argues_for_a_buy_is_repaired_and_the_repair_is_taken() -> None:
    svc, provider = service(
        verdict(action="HOLD", reasoning=RECORDED_HOLD), verdict(action="HOLD", reasoning=GOOD_HOLD)
    )
    result = svc.run_on_outcome("600519.SH", NEUTRAL, {"technical": TECHNICAL})
    assert provider.calls == 2 and result.action == "HOLD" and result.position_percent == 0.0
    repair = provider.requests[1].messages[-1].content
    assert "你选择的操作是 HOLD" in repair and "“支持买入”" in repair and "必须支持你选择的操作" in repair
    assert result.reasoning == GOOD_HOLD
    assert [v["kind"] for v in result.claim_checks["first_violations"]] == ["action_contradiction"]
    assert result.claim_checks["dropped"] == []


def test_a_hold_still_arguing_for_a_buy_after_the_repair_loses_that_sentence_and_says_so() -> None:
    svc, provider = service(verdict(action="HOLD", reasoning=RECORDED_HOLD))  # the same answer twice
    result = svc.run_on_outcome("600519.SH", NEUTRAL, {"technical": TECHNICAL})
    assert provider.calls == 2 and result.action == "HOLD"
    # its one sentence argued for the buy: code writes the HOLD's reasoning instead of a placeholder
    assert result.reasoning == "观望。依据：各研究员立场与辩论结论。" and result.claim_checks["replaced"]
    assert [v["kind"] for v in result.claim_checks["violations"]] == ["action_contradiction"]
    assert result.claim_checks["dropped"] == [f"reasoning: {RECORDED_HOLD}"]
    assert any(a.what == "reasoning" for a in result.adjustments)


def test_a_buy_whose_reasoning_argues_for_buying_costs_one_call() -> None:
    svc, provider = service(verdict(action="BUY", reasoning="多头论据更充分，建议买入。"))
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL})
    assert provider.calls == 1 and result.claim_checks == {}


def test_a_risk_warning_for_another_action_is_dropped_as_its_bullet() -> None:
    warnings = ["消费降级", "建议卖出"]
    svc, _ = service(verdict(action="BUY", risk_warnings=warnings))
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL})
    assert result.action == "BUY" and result.risk_warnings == ["消费降级"]
    assert result.claim_checks["dropped"] == ["risk_warnings[1]: 建议卖出"]


def test_profitability_growth_from_the_average_against_a_falling_newest_period_is_dropped() -> None:
    """The demo's "盈利能力在增长" came from the +2.57 average; the newest period fell."""
    reasoning = "盈利能力在增长，多头论据更充分。轻仓参与。"
    svc, provider = service(verdict(reasoning=reasoning))
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL, "facts": FALLING_NOW})
    assert (
        provider.calls == 2
        and "growth_rate_avg=2.57 是多年增速均值" in provider.requests[1].messages[-1].content
    )
    assert result.reasoning == "轻仓参与。"
    assert [v["kind"] for v in result.claim_checks["violations"]] == ["direction_contradicts_sign"]


def test_a_reasoning_cut_off_mid_sentence_keeps_its_complete_sentences() -> None:
    reasoning = "辩论偏多且置信度中等，轻仓参与。因此，多头论"
    svc, provider = service(verdict(reasoning=reasoning))
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL})
    assert provider.calls == 2 and "完整的句子" in provider.requests[1].messages[-1].content
    assert result.reasoning == "辩论偏多且置信度中等，轻仓参与。"
    assert result.claim_checks["dropped"] == ["reasoning: 因此，多头论"]
