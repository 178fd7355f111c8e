"""The judge's ILLMPort over llm_platform's LLMService (low temperature: verdicts should not wander)."""

from __future__ import annotations

from pydantic import BaseModel

from stockdesk.judge.domain.ports.llm_port import ILLMPort, LLMReply
from stockdesk.llm_platform.application.context_adapter import ContextLLMAdapter
from stockdesk.llm_platform.application.llm_service import LLMService


class LLMAdapter(ContextLLMAdapter, ILLMPort):
    def __init__(self, service: LLMService, *, temperature: float = 0.1, max_tokens: int = 400):
        super().__init__(service, temperature=temperature, max_tokens=max_tokens)

    def generate(
        self,
        prompt: str,
        system_message: str,
        *,
        response_model: type[BaseModel],
        caller: str,
        sample: int = 0,
    ) -> LLMReply:
        result = self._structured(
            prompt, system_message, response_model=response_model, caller=caller, sample=sample
        )
        return LLMReply(text=result.text, parsed=result.parsed, tokens=result.usage.total_tokens)
