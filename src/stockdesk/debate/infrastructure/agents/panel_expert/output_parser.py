"""Strict parser of one expert's answer: text, action in BUY/HOLD/SELL, confidence in [0, 1], sources."""

from __future__ import annotations

import logging

from stockdesk.debate.domain.dtos.panel import ExpertReply
from stockdesk.llm_platform.application.structured_output import parse_structured
from stockdesk.shared.errors import LLMOutputParseError

logger = logging.getLogger(__name__)
RAW_LOG_LIMIT = 2000


def parse_expert_reply(raw: str, role: str) -> ExpertReply:
    """Raises LLMOutputParseError (with the raw text) when the answer is not a valid reply."""
    try:
        parsed = parse_structured(raw, ExpertReply)
    except LLMOutputParseError as exc:
        logger.error("debate.panel.%s output rejected: %s; raw=%r", role, exc.message, raw[:RAW_LOG_LIMIT])
        raise
    assert isinstance(parsed, ExpertReply)
    return parsed
