"""ICatalystDetectiveAgentPort on the shared structured agent."""

from __future__ import annotations

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.domain.dtos.expert import AgentAnswer
from stockdesk.research.domain.dtos.search import SearchSnapshotDTO
from stockdesk.research.domain.dtos.soft_intel import CatalystDetectiveOutput
from stockdesk.research.domain.ports.soft_intel import ICatalystDetectiveAgentPort
from stockdesk.research.infrastructure.agents.structured_agent import StructuredAgent


class CatalystDetectiveAgent(ICatalystDetectiveAgentPort):
    def __init__(self, llm: LLMHandle):
        self._agent = StructuredAgent(
            llm, package=__package__, output_model=CatalystDetectiveOutput, expert="catalyst_detective"
        )

    def analyze(
        self, snapshot: SearchSnapshotDTO, feedback: str | None = None
    ) -> AgentAnswer[CatalystDetectiveOutput]:
        return self._agent.ask(snapshot, feedback)
