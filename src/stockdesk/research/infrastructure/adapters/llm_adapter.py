"""ILLMPort over llm_platform's LLMService (one structured-output path for every expert)."""

from __future__ import annotations

from pydantic import BaseModel

from stockdesk.llm_platform.application.context_adapter import ContextLLMAdapter
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.research.domain.ports.llm import ILLMPort, LLMReply


class LLMAdapter(ContextLLMAdapter, ILLMPort):
    def __init__(self, service: LLMService, *, temperature: float = 0.2, max_tokens: int = 900):
        super().__init__(service, temperature=temperature, max_tokens=max_tokens)

    def generate(
        self,
        prompt: str,
        system_message: str,
        *,
        response_model: type[BaseModel],
        caller: str,
        max_tokens: int | None = None,
    ) -> LLMReply:
        result = self._structured(
            prompt, system_message, response_model=response_model, caller=caller, max_tokens=max_tokens
        )
        return LLMReply(text=result.text, parsed=result.parsed, tokens=result.usage.total_tokens)
