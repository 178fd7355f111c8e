"""Strict parser of the moderator's answer: decision continue|end, a conclusion, the outcome fields."""

from __future__ import annotations

from stockdesk.debate.domain.dtos.panel import ModeratorDecision
from stockdesk.llm_platform.application.structured_output import parse_or_log


def parse_moderator_decision(raw: str) -> ModeratorDecision:
    """Raises LLMOutputParseError (with the raw text) when the answer is not a valid decision."""
    return parse_or_log(raw, ModeratorDecision, "debate.panel.moderator")
