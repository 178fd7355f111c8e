"""Ports of the technical analyst."""

from __future__ import annotations

from stockdesk.research.domain.dtos.technical import (
    TechnicalAnalysisOutput,
    TechnicalSnapshotDTO,
)
from stockdesk.research.domain.ports.expert_agent import IExpertAgentPort

ITechnicalAnalystAgentPort = IExpertAgentPort[TechnicalSnapshotDTO, TechnicalAnalysisOutput]
