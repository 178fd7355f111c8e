"""IBullAdvocateAgentPort: the digests -> the strongest case for the stock."""

from __future__ import annotations

from collections.abc import Sequence

from stockdesk.debate.domain.dtos.bull_bear import BullArgument
from stockdesk.debate.domain.ports.agents import AgentAnswer, IBullAdvocateAgentPort
from stockdesk.debate.infrastructure.agents.bull_advocate.output_parser import parse_bull_argument
from stockdesk.debate.infrastructure.agents.digest_text import render_digests
from stockdesk.debate.infrastructure.agents.structured_agent import StructuredAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.application import ExpertView


class BullAdvocateAgent(IBullAdvocateAgentPort):
    def __init__(self, llm: LLMHandle):
        self._agent = StructuredAgent(
            llm,
            package=__package__,
            agent="bull_advocate",
            output_model=BullArgument,
            parse=parse_bull_argument,
        )

    def argue(
        self, symbol: str, digests: Sequence[ExpertView], feedback: str | None = None
    ) -> AgentAnswer[BullArgument]:
        return self._agent.ask(feedback, symbol=symbol, digests=render_digests(digests))
