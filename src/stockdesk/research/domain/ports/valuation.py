"""Ports of the valuation modeler (names from the spec)."""

from __future__ import annotations

from stockdesk.research.domain.dtos.valuation import (
    ValuationModelOutput,
    ValuationSnapshotDTO,
)
from stockdesk.research.domain.ports.expert_agent import IExpertAgentPort

IValuationModelerAgentPort = IExpertAgentPort[ValuationSnapshotDTO, ValuationModelOutput]
