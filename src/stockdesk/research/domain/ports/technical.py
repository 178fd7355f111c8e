"""Ports of the technical analyst."""

from __future__ import annotations

from stockdesk.llm_platform.application.agent import Agent, AgentAnswer
from stockdesk.research.domain.dtos.technical import (
    TechnicalAnalysisOutput,
    TechnicalSnapshotDTO,
)

ITechnicalAnalystAgentPort = Agent[TechnicalSnapshotDTO, AgentAnswer[TechnicalAnalysisOutput]]
