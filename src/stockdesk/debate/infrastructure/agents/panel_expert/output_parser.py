"""Strict parser of one expert's answer: text, action in BUY/HOLD/SELL, confidence in [0, 1], sources."""

from __future__ import annotations

from stockdesk.debate.domain.dtos.panel import ExpertReply
from stockdesk.llm_platform.application.structured_output import parse_or_log


def parse_expert_reply(raw: str, role: str) -> ExpertReply:
    """Raises LLMOutputParseError (with the raw text) when the answer is not a valid reply."""
    return parse_or_log(raw, ExpertReply, f"debate.panel.{role}")
