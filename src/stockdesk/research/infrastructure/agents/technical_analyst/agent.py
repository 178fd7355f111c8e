"""ITechnicalAnalystAgentPort on the shared expert agent."""

from __future__ import annotations

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.domain.dtos.technical import TechnicalAnalysisOutput, TechnicalSnapshotDTO
from stockdesk.research.domain.ports.technical import ITechnicalAnalystAgentPort
from stockdesk.research.infrastructure.agents.structured_agent import ExpertAgent


class TechnicalAnalystAgent(
    ExpertAgent[TechnicalSnapshotDTO, TechnicalAnalysisOutput], ITechnicalAnalystAgentPort
):
    def __init__(self, llm: LLMHandle):
        super().__init__(
            llm, package=__package__, output_model=TechnicalAnalysisOutput, expert="technical_analyst"
        )
