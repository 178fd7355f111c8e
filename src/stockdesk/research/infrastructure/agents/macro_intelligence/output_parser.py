"""Output parser of the macro intelligence expert."""

from __future__ import annotations

from stockdesk.research.domain.dtos.soft_intel import MacroIntelligenceOutput
from stockdesk.research.infrastructure.agents.structured_agent import parse_expert_output


def parse_macro_output(raw: str) -> MacroIntelligenceOutput:
    return parse_expert_output(raw, MacroIntelligenceOutput, "macro_intelligence")
