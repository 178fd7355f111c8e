"""IModeratorAgentPort: the whole transcript -> one LLM call -> strict parse.

Consensus is computed in code and only reported to the moderator; when the debate must end
(consensus or the last round) the prompt says so, and the service ends it whatever the answer.
"""

from __future__ import annotations

from stockdesk.debate.domain.dtos.panel import ModeratorDecision, PanelRound
from stockdesk.debate.domain.ports.panel import IModeratorAgentPort, ModeratorAnswer, ModeratorQuestion
from stockdesk.debate.infrastructure.agents.moderator.output_parser import parse_moderator_decision
from stockdesk.debate.infrastructure.agents.panel_text import render_rounds
from stockdesk.llm_platform.application.agent import PromptAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle

CALLER = "debate.panel.moderator"


def status_text(rounds: list[PanelRound], *, consensus: bool, must_end: bool) -> str:
    if consensus:
        action = rounds[-1].fundamental.action.value
        return f'代码判定：四位专家已达成共识（都选 {action}，信心都达到阈值）。必须结束：decision 填 "end"。'
    if must_end:
        return '已到最大轮数，必须结束：decision 填 "end"，并给出最终结论。'
    return (
        '尚未达成共识（四人 action 相同且信心都达到阈值才算共识）。请判断 decision 填 "continue" 还是 "end"。'
    )


class ModeratorAgent(IModeratorAgentPort):
    def __init__(self, llm: LLMHandle):
        self._agent = PromptAgent(
            llm,
            package=__package__ or "",
            agent="moderator",
            caller=CALLER,
            output_model=ModeratorDecision,
            parse=parse_moderator_decision,
        )

    def answer(self, question: ModeratorQuestion, feedback: str | None = None) -> ModeratorAnswer:
        """`feedback` is not used: the moderator is asked once."""
        context, rounds = question.context, question.rounds
        return self._agent.ask(
            None,
            ticker=context.ticker,
            as_of=context.as_of.isoformat(),
            rounds_done=len(rounds),
            max_rounds=question.max_rounds,
            transcript=render_rounds(rounds),
            status=status_text(rounds, consensus=question.consensus, must_end=question.must_end),
        )
