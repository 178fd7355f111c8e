"""Ports of the two soft-intelligence experts (macro intelligence, catalyst detective)."""

from __future__ import annotations

from stockdesk.llm_platform.application.agent import Agent, AgentAnswer
from stockdesk.research.domain.dtos.search import (
    SearchSnapshotDTO,
)
from stockdesk.research.domain.dtos.soft_intel import CatalystDetectiveOutput, MacroIntelligenceOutput

IMacroIntelligenceAgentPort = Agent[SearchSnapshotDTO, AgentAnswer[MacroIntelligenceOutput]]


ICatalystDetectiveAgentPort = Agent[SearchSnapshotDTO, AgentAnswer[CatalystDetectiveOutput]]
