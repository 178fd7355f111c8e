"""Strict parser of the refiner's answer: {edits[{id, speaker?, text?}]} (applied per id in code)."""

from __future__ import annotations

from stockdesk.briefing.domain.dtos import RefinerReply
from stockdesk.llm_platform.application.structured_output import parse_or_log

CALLER = "debate.briefing.refiner"


def parse_refiner_reply(raw: str) -> RefinerReply:
    """Raises LLMOutputParseError (with the raw text) when the answer is not a list of edits."""
    return parse_or_log(raw, RefinerReply, CALLER)
