"""ITechnicalAnalystAgentPort on the shared structured agent."""

from __future__ import annotations

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.domain.dtos.expert import AgentAnswer
from stockdesk.research.domain.dtos.technical import TechnicalAnalysisOutput, TechnicalSnapshotDTO
from stockdesk.research.domain.ports.technical import ITechnicalAnalystAgentPort
from stockdesk.research.infrastructure.agents.structured_agent import StructuredAgent


class TechnicalAnalystAgent(ITechnicalAnalystAgentPort):
    def __init__(self, llm: LLMHandle):
        self._agent = StructuredAgent(
            llm, package=__package__, output_model=TechnicalAnalysisOutput, expert="technical_analyst"
        )

    def analyze(
        self, snapshot: TechnicalSnapshotDTO, feedback: str | None = None
    ) -> AgentAnswer[TechnicalAnalysisOutput]:
        return self._agent.ask(snapshot, feedback)
