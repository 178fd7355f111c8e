"""IResolutionAgentPort: digests plus both cases -> direction, confidence, risks, disagreements."""

from __future__ import annotations

from collections.abc import Sequence

from stockdesk.debate.domain.dtos.bull_bear import BearArgument, BullArgument, ResolutionResult
from stockdesk.debate.domain.ports.agents import AgentAnswer, IResolutionAgentPort
from stockdesk.debate.infrastructure.agents.digest_text import render_bear, render_bull, render_digests
from stockdesk.debate.infrastructure.agents.resolution.output_parser import parse_resolution
from stockdesk.debate.infrastructure.agents.structured_agent import StructuredAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.application import ExpertView


class ResolutionAgent(IResolutionAgentPort):
    def __init__(self, llm: LLMHandle):
        self._agent = StructuredAgent(
            llm,
            package=__package__,
            agent="resolution",
            output_model=ResolutionResult,
            parse=parse_resolution,
        )

    def resolve(
        self,
        symbol: str,
        digests: Sequence[ExpertView],
        bull: BullArgument,
        bear: BearArgument,
        feedback: str | None = None,
    ) -> AgentAnswer[ResolutionResult]:
        return self._agent.ask(
            feedback,
            symbol=symbol,
            digests=render_digests(digests),
            bull_case=render_bull(bull),
            bear_case=render_bear(bear),
        )
