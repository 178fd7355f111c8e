"""Output parser of the technical analyst."""

from __future__ import annotations

from stockdesk.research.domain.dtos.technical import TechnicalAnalysisOutput
from stockdesk.research.infrastructure.agents.structured_agent import parse_expert_output


def parse_technical_output(raw: str) -> TechnicalAnalysisOutput:
    return parse_expert_output(raw, TechnicalAnalysisOutput, "technical_analyst")
