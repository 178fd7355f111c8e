"""Attributing LLM calls to a session, over llm_platform's LLMService: the audit rows carry the
session's id, and its counts are readable live."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from stockdesk.llm_platform.application.llm_service import LLMService


class LLMRunScope:
    def __init__(self, service: Callable[[], LLMService]):
        """A factory: a session that never calls the model never starts it."""
        self._service = service

    def scope(self, run_id: str) -> AbstractContextManager[str]:
        """Every LLM call inside the block (and in tasks started from it) is booked to `run_id`."""
        return self._service().run_scope(run_id)

    def usage(self, run_id: str) -> tuple[int, int]:
        """(LLM calls, tokens) booked to `run_id` so far."""
        service = self._service()
        return service.calls_made(run_id), service.tokens_used(run_id)

    def settings(self) -> dict[str, Any]:
        """Seed and sampling settings every call of a run uses (recorded in the session)."""
        return self._service().sampling_settings()
