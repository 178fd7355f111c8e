"""JudgeService: one LLM verdict, then a small rules layer that says what it changed.

Rules (applied in code after the model, in this order):
- hold_means_no_position: HOLD carries position 0.
- position_capped_by_confidence: the position never exceeds the verdict's confidence, nor
  MAX_POSITION (a single name never takes more than half the book).
- stop_loss_required: a BUY or SELL without a usable stop-loss gets the default one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stockdesk.judge.application.dtos.verdict_dto import VerdictDTO
from stockdesk.judge.application.services.debate_outcome import judge_input_from_outcome
from stockdesk.judge.domain.dtos.judge_input import JudgeInput
from stockdesk.judge.domain.dtos.verdict_result import VerdictResult
from stockdesk.judge.domain.model.enums import ActionDirection
from stockdesk.judge.domain.ports.judge_verdict_agent import IJudgeVerdictAgentPort

MAX_POSITION = 0.5
DEFAULT_STOP_LOSS = {
    ActionDirection.BUY: "收盘价较入场价下跌 8% 止损离场",
    ActionDirection.SELL: "卖出后若收盘价较卖出价上涨 8%，重新评估并回补",
    ActionDirection.HOLD: "不持仓，无需止损",
}
_NO_STOP = {"", "无", "n/a", "na", "none", "-", "数据不足"}


def apply_rules(result: VerdictResult) -> tuple[VerdictResult, list[str]]:
    fired: list[str] = []
    position = result.position_percent
    stop_loss = result.stop_loss
    if result.action is ActionDirection.HOLD and position > 0:
        position = 0.0
        fired.append("hold_means_no_position")
    cap = min(result.confidence, MAX_POSITION)
    if position > cap:
        position = cap
        fired.append("position_capped_by_confidence")
    if stop_loss.strip().lower() in _NO_STOP:
        stop_loss = DEFAULT_STOP_LOSS[result.action]
        if result.action is not ActionDirection.HOLD:
            fired.append("stop_loss_required")
    return result.model_copy(update={"position_percent": round(position, 4), "stop_loss": stop_loss}), fired


class JudgeService:
    def __init__(self, agent: IJudgeVerdictAgentPort):
        self._agent = agent

    def run(self, judge_input: JudgeInput) -> VerdictDTO:
        answer = self._agent.decide(judge_input)
        result, fired = apply_rules(answer.result)
        return VerdictDTO(
            symbol=judge_input.symbol,
            **result.model_dump(mode="json"),
            rules_applied=fired,
            input=answer.input,
            output=answer.output,
        )

    def run_on_outcome(self, symbol: str, debate_outcome: Mapping[str, Any]) -> VerdictDTO:
        """The REST route's and the Coordinator's entry: a debate outcome dict in, a verdict out."""
        return self.run(judge_input_from_outcome(symbol, debate_outcome))
