"""Recorded bad judge outputs (embedded model), replayed: repetition loops and invented levels."""

from __future__ import annotations

from stockdesk.judge.application import JudgeService
from stockdesk.judge.infrastructure.adapters.judge_verdict_agent_adapter import (
    SAMPLING,
    JudgeVerdictAgentAdapter,
)
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from tests.conftest import scripted_service
from tests.judge.test_judge import OUTCOME, TECHNICAL, verdict

# 600519.SH as of 2026-05-29: the reasoning was one sentence pair repeated until the length limit
LOOP = "估值偏高，短期承压。基本面稳健，长期向好。" * 4 + "估值偏高，短期"
# the same run put the stop-loss at 100 元 and the take-profit at 150 元 with the close at 1326
INVENTED_LEVELS = "空头占优，止损设在 100 元，止盈设在 150 元。"


def service(*answers: str) -> tuple[JudgeService, ScriptedProvider]:
    provider = ScriptedProvider(list(answers))
    return JudgeService(JudgeVerdictAgentAdapter(LLMHandle(scripted_service(provider), SAMPLING))), provider


def test_a_repetition_loop_is_repaired_once_then_cut_to_one_saying() -> None:
    svc, provider = service(verdict(reasoning=LOOP), verdict(reasoning=LOOP))
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL})
    assert provider.calls == 2  # one repair round, listing the repetition
    assert (
        "重复" in provider.requests[1].messages[-1].content
        or "repe" in provider.requests[1].messages[-1].content
    )
    assert result.reasoning.count("估值偏高，短期承压") == 1
    assert result.claim_checks["dropped"] and result.claim_checks["retried"] is True
    assert any(a.what == "reasoning" for a in result.adjustments)


def test_invented_levels_in_the_reasoning_are_dropped_and_the_plan_comes_from_code() -> None:
    svc, provider = service(verdict(reasoning=INVENTED_LEVELS), verdict(reasoning=INVENTED_LEVELS))
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL})
    assert provider.calls == 2
    assert "100 元" not in result.reasoning and "150" not in result.reasoning
    assert result.trade_plan is not None and result.trade_plan.stop_loss_price == 95.5


def test_a_good_repair_is_taken_without_dropping() -> None:
    svc, provider = service(
        verdict(reasoning=INVENTED_LEVELS), verdict(reasoning="辩论偏多，证据中等，轻仓参与。")
    )
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL})
    assert provider.calls == 2 and result.reasoning == "辩论偏多，证据中等，轻仓参与。"
    assert result.claim_checks["dropped"] == [] and not any(a.what == "reasoning" for a in result.adjustments)


def test_duplicate_risk_warnings_are_caught() -> None:
    warnings = ["消费降级风险", "消费降级风险", "政策变化"]
    svc, _ = service(verdict(risk_warnings=warnings), verdict(risk_warnings=warnings))
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL})
    assert result.risk_warnings.count("消费降级风险") == 1 and "政策变化" in result.risk_warnings


def test_a_clean_answer_costs_one_call() -> None:
    svc, provider = service(verdict())
    result = svc.run_on_outcome("600519.SH", OUTCOME, {"technical": TECHNICAL})
    assert provider.calls == 1 and result.claim_checks == {}
