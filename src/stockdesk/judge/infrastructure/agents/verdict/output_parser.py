"""Strict parser of the verdict: action in BUY/SELL/HOLD, position and confidence in [0, 1]."""

from __future__ import annotations

from stockdesk.judge.domain.dtos.verdict_result import VerdictResult
from stockdesk.llm_platform.application.structured_output import parse_or_log

__all__ = ["VerdictResult", "parse_verdict"]


def parse_verdict(raw: str) -> VerdictResult:
    """Raises LLMOutputParseError (with the raw text) when the answer is not a valid verdict."""
    return parse_or_log(raw, VerdictResult, "judge.verdict")
