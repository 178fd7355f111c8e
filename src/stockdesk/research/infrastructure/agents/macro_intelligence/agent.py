"""IMacroIntelligenceAgentPort on the shared expert agent."""

from __future__ import annotations

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.domain.dtos.search import SearchSnapshotDTO
from stockdesk.research.domain.dtos.soft_intel import MacroIntelligenceOutput
from stockdesk.research.domain.ports.soft_intel import IMacroIntelligenceAgentPort
from stockdesk.research.infrastructure.agents.structured_agent import ExpertAgent


class MacroIntelligenceAgent(
    ExpertAgent[SearchSnapshotDTO, MacroIntelligenceOutput], IMacroIntelligenceAgentPort
):
    def __init__(self, llm: LLMHandle):
        super().__init__(
            llm, package=__package__, output_model=MacroIntelligenceOutput, expert="macro_intelligence"
        )
