"""Debate's ILLMPort over llm_platform's LLMService.

Answers are capped short (the embedded 1.5B model writes about 20 tokens a second) and the
temperature is a little above the judge's: advocates should argue, not copy each other.
"""

from __future__ import annotations

from pydantic import BaseModel

from stockdesk.debate.domain.ports.llm_port import ILLMPort, LLMReply
from stockdesk.llm_platform.application.context_adapter import ContextLLMAdapter
from stockdesk.llm_platform.application.llm_service import LLMService


class LLMAdapter(ContextLLMAdapter, ILLMPort):
    def __init__(self, service: LLMService, *, temperature: float = 0.3, max_tokens: int = 600):
        super().__init__(service, temperature=temperature, max_tokens=max_tokens)

    def generate(
        self, prompt: str, system_message: str, *, response_model: type[BaseModel], caller: str
    ) -> LLMReply:
        result = self._structured(prompt, system_message, response_model=response_model, caller=caller)
        return LLMReply(text=result.text, parsed=result.parsed, tokens=result.usage.total_tokens)
