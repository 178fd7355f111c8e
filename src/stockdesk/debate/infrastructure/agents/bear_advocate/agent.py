"""IBearAdvocateAgentPort: the digests -> the strongest case against the stock."""

from __future__ import annotations

from collections.abc import Sequence

from stockdesk.debate.domain.dtos.bull_bear import BearArgument
from stockdesk.debate.domain.ports.agents import AgentAnswer, IBearAdvocateAgentPort
from stockdesk.debate.infrastructure.agents.bear_advocate.output_parser import parse_bear_argument
from stockdesk.debate.infrastructure.agents.digest_text import render_digests
from stockdesk.debate.infrastructure.agents.structured_agent import StructuredAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.application import ExpertView


class BearAdvocateAgent(IBearAdvocateAgentPort):
    def __init__(self, llm: LLMHandle):
        self._agent = StructuredAgent(
            llm,
            package=__package__,
            agent="bear_advocate",
            output_model=BearArgument,
            parse=parse_bear_argument,
        )

    def argue(
        self, symbol: str, digests: Sequence[ExpertView], feedback: str | None = None
    ) -> AgentAnswer[BearArgument]:
        return self._agent.ask(feedback, symbol=symbol, digests=render_digests(digests))
