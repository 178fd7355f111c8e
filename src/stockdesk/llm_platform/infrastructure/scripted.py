"""Scripted provider for logic tests: canned answers, call counter, injectable latency and faults."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from stockdesk.llm_platform.domain.dtos import CompletionRequest, CompletionResponse, TokenUsage, ToolCall
from stockdesk.llm_platform.domain.exceptions import ABORTED, LLMTransientError
from stockdesk.llm_platform.domain.ports import ILLMProvider
from stockdesk.shared.tasks.cancel import wait_cancelled


@dataclass(frozen=True)
class ScriptedReply:
    """An answer with tool calls (the model asking for tools), optionally with some text."""

    tool_calls: Sequence[ToolCall] = ()
    text: str = ""


Answer = str | ScriptedReply
Script = Answer | Exception | Callable[[CompletionRequest], Answer]


class ScriptedProvider(ILLMProvider):
    """Answers from a script in order; the last entry repeats when the script runs out.

    An entry may be text, a ScriptedReply (tool calls), an exception to raise, or a function of
    the request returning text or a ScriptedReply. Tool calls are replayed only when the
    request offered tools, as a real model cannot call tools it was not given.
    """

    def __init__(
        self,
        script: Iterable[Script],
        *,
        name: str = "scripted",
        model: str = "scripted-model",
        latency_seconds: float = 0.0,
        supports_json_schema: bool = True,
        tokens_per_call: tuple[int, int] = (100, 50),
    ):
        self.name = name
        self.model = model
        self.supports_json_schema = supports_json_schema
        self.latency_seconds = latency_seconds
        self._script = list(script)
        if not self._script:
            raise ValueError("a scripted provider needs at least one answer")
        self._tokens = tokens_per_call
        self._lock = threading.Lock()
        self.calls = 0
        self.requests: list[CompletionRequest] = []

    def complete(self, request: CompletionRequest) -> CompletionResponse:
        with self._lock:
            index = min(self.calls, len(self._script) - 1)
            self.calls += 1
            self.requests.append(request)
            entry = self._script[index]
        # a slow reply is cut short by a cancel of its job, as a real provider's connection is
        if self.latency_seconds and wait_cancelled(self.latency_seconds):
            raise LLMTransientError(ABORTED)
        if isinstance(entry, Exception):
            raise entry
        answer = entry(request) if callable(entry) else entry
        reply = answer if isinstance(answer, ScriptedReply) else ScriptedReply(text=answer)
        return CompletionResponse(
            text=reply.text,
            tool_calls=list(reply.tool_calls) if request.tools else [],
            finish_reason="stop",
            usage=TokenUsage(prompt_tokens=self._tokens[0], completion_tokens=self._tokens[1]),
            model=self.model,
            provider=self.name,
        )
