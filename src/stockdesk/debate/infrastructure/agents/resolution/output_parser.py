"""Strict parser of the resolution: direction in BULLISH/BEARISH/NEUTRAL, confidence in [0, 1],
risk levels in High/Medium/Low."""

from __future__ import annotations

from stockdesk.debate.domain.dtos.bull_bear import ResolutionResult
from stockdesk.debate.infrastructure.agents.sampling import parse_answer


def parse_resolution(raw: str) -> ResolutionResult:
    return parse_answer(raw, ResolutionResult, "resolution")
