"""The body every context's LLM-port adapter shares: its own sampling defaults over LLMService.

Each context keeps its own ILLMPort and reply DTO (judge spec, Decision 6); what they do with the
one LLMService call is the same, so it lives here once.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.application.tool_loop import Tool, ToolLimits, ToolLoopResult, run_tool_loop
from stockdesk.llm_platform.domain.dtos import ChatMessage, LLMResult


class ContextLLMAdapter:
    def __init__(self, service: LLMService, *, temperature: float, max_tokens: int):
        self._service = service
        self._temperature = temperature
        self._max_tokens = max_tokens

    def _structured(
        self,
        prompt: str,
        system_message: str,
        *,
        response_model: type[BaseModel],
        caller: str,
        max_tokens: int | None = None,
        sample: int = 0,
    ) -> LLMResult:
        """One validated call; `max_tokens` overrides the context's budget for a longer answer;
        `sample` > 0 shifts the service's seed by that much (the judge's stability samples)."""
        seed = None if sample == 0 else (self._service.seed or 0) + sample
        return self._service.generate(
            prompt,
            system_message,
            temperature=self._temperature,
            response_model=response_model,
            caller=caller,
            max_tokens=max_tokens or self._max_tokens,
            seed=seed,
        )

    def with_tools(
        self,
        prompt: str,
        system_message: str,
        tools: Sequence[Tool],
        *,
        response_model: type[BaseModel],
        caller: str,
        limits: ToolLimits,
        answer_hint: str | None = None,
    ) -> ToolLoopResult:
        """One turn that may call `tools` (within `limits`) before its validated answer."""
        messages = [
            ChatMessage(role="system", content=system_message),
            ChatMessage(role="user", content=prompt),
        ]
        return run_tool_loop(
            self._service,
            messages,
            tools,
            response_model=response_model,
            limits=limits,
            caller=caller,
            answer_hint=answer_hint,
            temperature=self._temperature,
            max_tokens=self._max_tokens,
        )
