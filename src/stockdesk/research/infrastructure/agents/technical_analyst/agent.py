"""ITechnicalAnalystAgentPort on the shared structured agent."""

from __future__ import annotations

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.domain.dtos.technical import TechnicalAnalysisOutput, TechnicalSnapshotDTO
from stockdesk.research.domain.ports.technical import ITechnicalAnalystAgentPort
from stockdesk.research.infrastructure.agents.structured_agent import StructuredAgent


class TechnicalAnalystAgent(
    StructuredAgent[TechnicalSnapshotDTO, TechnicalAnalysisOutput], ITechnicalAnalystAgentPort
):
    def __init__(self, llm: LLMHandle):
        super().__init__(
            llm, package=__package__, output_model=TechnicalAnalysisOutput, expert="technical_analyst"
        )
