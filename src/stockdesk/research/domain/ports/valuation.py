"""Ports of the valuation modeler (names from the spec)."""

from __future__ import annotations

from stockdesk.llm_platform.application.agent import Agent, AgentAnswer
from stockdesk.research.domain.dtos.valuation import (
    ValuationModelOutput,
    ValuationSnapshotDTO,
)

IValuationModelerAgentPort = Agent[ValuationSnapshotDTO, AgentAnswer[ValuationModelOutput]]
