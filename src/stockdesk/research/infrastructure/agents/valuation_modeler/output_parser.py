"""Output parser of the valuation modeler: strip <think>, extract JSON, validate with pydantic.

Uses the platform's one structured-output path; on failure it logs the raw output (truncated) and
raises LLMOutputParseError, so an unvalidated string never reaches a caller.
"""

from __future__ import annotations

import logging

from stockdesk.llm_platform.application.structured_output import parse_structured
from stockdesk.research.domain.dtos.valuation import ValuationModelOutput
from stockdesk.shared.errors import LLMOutputParseError

logger = logging.getLogger(__name__)
RAW_LOG_LIMIT = 2000


def parse_valuation_output(raw: str) -> ValuationModelOutput:
    try:
        parsed = parse_structured(raw, ValuationModelOutput)
    except LLMOutputParseError as exc:
        logger.error("valuation modeler output rejected: %s; raw=%r", exc.message, raw[:RAW_LOG_LIMIT])
        raise
    assert isinstance(parsed, ValuationModelOutput)
    return parsed
