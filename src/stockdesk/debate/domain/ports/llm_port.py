"""Debate's own LLM port (judge spec, Decision 6: each context defines its port)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from pydantic import BaseModel


class LLMReply(BaseModel):
    text: str
    parsed: BaseModel
    tokens: int = 0


class ILLMPort(ABC):
    @abstractmethod
    def generate(
        self, prompt: str, system_message: str, *, response_model: type[BaseModel], caller: str
    ) -> LLMReply:
        """Structured call; raises LLMOutputParseError when the answer cannot be validated."""
