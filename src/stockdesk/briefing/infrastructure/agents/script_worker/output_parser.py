"""Strict parser of the worker's answer: {ticker, scripts[{id, speaker, text, sources}]}.

Speakers, numbers and sources are checked per turn in code afterwards (a bad turn is dropped, not
the whole answer)."""

from __future__ import annotations

from stockdesk.briefing.domain.dtos import WorkerReply
from stockdesk.llm_platform.application.structured_output import parse_or_log

CALLER = "debate.briefing.worker"


def parse_worker_reply(raw: str) -> WorkerReply:
    """Raises LLMOutputParseError (with the raw text) when the answer is not a script."""
    return parse_or_log(raw, WorkerReply, CALLER)
