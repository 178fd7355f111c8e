"""Output parser of the valuation modeler (spec: parsing lives with the agent)."""

from __future__ import annotations

from stockdesk.research.domain.dtos.valuation import ValuationModelOutput
from stockdesk.research.infrastructure.agents.structured_agent import parse_expert_output


def parse_valuation_output(raw: str) -> ValuationModelOutput:
    """Strip <think>, validate with pydantic; LLMOutputParseError (raw output logged) on failure."""
    return parse_expert_output(raw, ValuationModelOutput, "valuation_modeler")
