"""Output parser of the catalyst detective expert."""

from __future__ import annotations

from stockdesk.research.domain.dtos.soft_intel import CatalystDetectiveOutput
from stockdesk.research.infrastructure.agents.structured_agent import parse_expert_output


def parse_catalyst_output(raw: str) -> CatalystDetectiveOutput:
    return parse_expert_output(raw, CatalystDetectiveOutput, "catalyst_detective")
