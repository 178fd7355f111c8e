"""Research's own LLM port (each context owns its port; the adapter bridges to llm_platform)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


class LLMReply(BaseModel):
    text: str
    parsed: BaseModel | None = None
    tokens: int = 0


class ILLMPort(ABC):
    @abstractmethod
    def generate(
        self,
        prompt: str,
        system_message: str,
        *,
        response_model: type[BaseModel],
        caller: str,
        max_tokens: int | None = None,
    ) -> LLMReply:
        """Structured call; raises LLMOutputParseError when the answer cannot be validated.

        `max_tokens` overrides the adapter's default output budget for experts whose answer is longer.
        """
