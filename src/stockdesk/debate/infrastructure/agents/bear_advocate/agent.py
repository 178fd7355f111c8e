"""IBearAdvocateAgentPort: the digests -> the strongest case against the stock."""

from __future__ import annotations

from stockdesk.debate.domain.dtos.bull_bear import BearArgument
from stockdesk.debate.domain.ports.agents import AgentAnswer, CaseQuestion, IBearAdvocateAgentPort
from stockdesk.debate.infrastructure.agents.bear_advocate.output_parser import parse_bear_argument
from stockdesk.debate.infrastructure.agents.digest_text import render_digests
from stockdesk.llm_platform.application.agent import PromptAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle


class BearAdvocateAgent(IBearAdvocateAgentPort):
    def __init__(self, llm: LLMHandle):
        self._agent = PromptAgent(
            llm,
            package=__package__,
            agent="bear_advocate",
            caller="debate.bear_advocate",
            output_model=BearArgument,
            parse=parse_bear_argument,
        )

    def answer(self, question: CaseQuestion, feedback: str | None = None) -> AgentAnswer[BearArgument]:
        return self._agent.ask(feedback, symbol=question.symbol, digests=render_digests(question.digests))
