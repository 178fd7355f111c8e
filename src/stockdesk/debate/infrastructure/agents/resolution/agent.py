"""IResolutionAgentPort: digests plus both cases -> direction, confidence, risks, disagreements."""

from __future__ import annotations

from stockdesk.debate.domain.dtos.bull_bear import ResolutionResult
from stockdesk.debate.domain.ports.agents import AgentAnswer, IResolutionAgentPort, ResolutionQuestion
from stockdesk.debate.infrastructure.agents.digest_text import render_bear, render_bull, render_digests
from stockdesk.debate.infrastructure.agents.resolution.output_parser import parse_resolution
from stockdesk.llm_platform.application.agent import PromptAgent
from stockdesk.llm_platform.application.llm_handle import LLMHandle


class ResolutionAgent(IResolutionAgentPort):
    def __init__(self, llm: LLMHandle):
        self._agent = PromptAgent(
            llm,
            package=__package__,
            agent="resolution",
            caller="debate.resolution",
            output_model=ResolutionResult,
            parse=parse_resolution,
        )

    def answer(
        self, question: ResolutionQuestion, feedback: str | None = None
    ) -> AgentAnswer[ResolutionResult]:
        return self._agent.ask(
            feedback,
            symbol=question.symbol,
            digests=render_digests(question.digests),
            bull_case=render_bull(question.bull),
            bear_case=render_bear(question.bear),
        )
