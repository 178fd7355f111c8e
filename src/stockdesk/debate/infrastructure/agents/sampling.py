"""What the debate's agents share besides the desk's `PromptAgent`: their sampling and their
strict parse."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from stockdesk.llm_platform.application.llm_handle import Sampling
from stockdesk.llm_platform.application.structured_output import parse_or_log

T = TypeVar("T", bound=BaseModel)
# The debate's answers are capped short (the embedded 1.5B model writes about 20 tokens a second)
# and its temperature is a little above the judge's: advocates should argue, not copy each other.
SAMPLING = Sampling(temperature=0.3, max_tokens=600)


def parse_answer(raw: str, model: type[T], agent: str) -> T:
    """Strip <think>, extract the JSON, validate strictly; log the raw text (truncated) and raise
    LLMOutputParseError when it is not a valid `model`."""
    return parse_or_log(raw, model, f"debate.{agent}")
