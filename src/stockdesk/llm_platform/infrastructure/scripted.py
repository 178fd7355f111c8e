"""Scripted provider for logic tests: canned answers, call counter, injectable latency and faults."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from stockdesk.llm_platform.domain.dtos import CompletionRequest, CompletionResponse, TokenUsage
from stockdesk.llm_platform.domain.ports import ILLMProvider

Script = str | Exception | Callable[[CompletionRequest], str]


class ScriptedProvider(ILLMProvider):
    """Answers from a script in order; the last entry repeats when the script runs out.

    An entry may be text, an exception to raise, or a function of the request returning text.
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
        if self.latency_seconds:
            time.sleep(self.latency_seconds)
        if isinstance(entry, Exception):
            raise entry
        text = entry(request) if callable(entry) else entry
        return CompletionResponse(
            text=text,
            finish_reason="stop",
            usage=TokenUsage(prompt_tokens=self._tokens[0], completion_tokens=self._tokens[1]),
            model=self.model,
            provider=self.name,
        )
