"""Strict parser of the moderator's answer: decision continue|end, a conclusion, the outcome fields."""

from __future__ import annotations

import logging

from stockdesk.debate.domain.dtos.panel import ModeratorDecision
from stockdesk.llm_platform.application.structured_output import parse_structured
from stockdesk.shared.errors import LLMOutputParseError

logger = logging.getLogger(__name__)
RAW_LOG_LIMIT = 2000


def parse_moderator_decision(raw: str) -> ModeratorDecision:
    """Raises LLMOutputParseError (with the raw text) when the answer is not a valid decision."""
    try:
        parsed = parse_structured(raw, ModeratorDecision)
    except LLMOutputParseError as exc:
        logger.error("debate.panel.moderator output rejected: %s; raw=%r", exc.message, raw[:RAW_LOG_LIMIT])
        raise
    assert isinstance(parsed, ModeratorDecision)
    return parsed
