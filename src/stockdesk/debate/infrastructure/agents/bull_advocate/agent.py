"""IBullAdvocateAgentPort: the digests -> the strongest case for the stock."""

from __future__ import annotations

from stockdesk.debate.domain.dtos.bull_bear import BullArgument
from stockdesk.debate.domain.ports.agents import AgentAnswer, CaseQuestion, IBullAdvocateAgentPort
from stockdesk.debate.infrastructure.agents.bull_advocate.output_parser import parse_bull_argument
from stockdesk.debate.infrastructure.agents.digest_text import render_digests
from stockdesk.llm_platform.application.agent import PromptAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle


class BullAdvocateAgent(IBullAdvocateAgentPort):
    def __init__(self, llm: LLMHandle):
        self._agent = PromptAgent(
            llm,
            package=__package__,
            agent="bull_advocate",
            caller="debate.bull_advocate",
            output_model=BullArgument,
            parse=parse_bull_argument,
        )

    def answer(self, question: CaseQuestion, feedback: str | None = None) -> AgentAnswer[BullArgument]:
        return self._agent.ask(feedback, symbol=question.symbol, digests=render_digests(question.digests))
