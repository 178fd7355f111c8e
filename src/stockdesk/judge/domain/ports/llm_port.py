"""The judge's own LLM port (Decision 6): same shape as research's, defined here on purpose."""

from __future__ import annotations

from abc import ABC, abstractmethod

from pydantic import BaseModel


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
        sample: int = 0,
    ) -> LLMReply:
        """Structured call; `sample` > 0 shifts the seed. Raises LLMOutputParseError when invalid."""
