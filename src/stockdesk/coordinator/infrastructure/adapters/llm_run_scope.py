"""ILLMRunScope over llm_platform's LLMService run scopes and per-run counters."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from stockdesk.coordinator.domain.ports.run_scope import ILLMRunScope
from stockdesk.llm_platform.application.llm_service import LLMService


class LLMRunScopeAdapter(ILLMRunScope):
    def __init__(self, service: Callable[[], LLMService]):
        """A factory: a session that never calls the model never starts it."""
        self._service = service

    def scope(self, run_id: str) -> AbstractContextManager[str]:
        return self._service().run_scope(run_id)

    def usage(self, run_id: str) -> tuple[int, int]:
        service = self._service()
        return service.calls_made(run_id), service.tokens_used(run_id)

    def settings(self) -> dict[str, Any]:
        return self._service().sampling_settings()
