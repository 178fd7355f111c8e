"""ICatalystDetectiveAgentPort on the shared expert agent."""

from __future__ import annotations

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.domain.dtos.search import SearchSnapshotDTO
from stockdesk.research.domain.dtos.soft_intel import CatalystDetectiveOutput
from stockdesk.research.domain.ports.soft_intel import ICatalystDetectiveAgentPort
from stockdesk.research.infrastructure.agents.structured_agent import ExpertAgent


class CatalystDetectiveAgent(
    ExpertAgent[SearchSnapshotDTO, CatalystDetectiveOutput], ICatalystDetectiveAgentPort
):
    def __init__(self, llm: LLMHandle):
        super().__init__(
            llm, package=__package__, output_model=CatalystDetectiveOutput, expert="catalyst_detective"
        )
