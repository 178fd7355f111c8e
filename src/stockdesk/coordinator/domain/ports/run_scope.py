"""Attributing LLM calls to a session: the audit rows carry its id, and the counts are readable live."""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from typing import Any


class ILLMRunScope(ABC):
    @abstractmethod
    def scope(self, run_id: str) -> AbstractContextManager[str]:
        """Every LLM call inside the block (and in tasks started from it) is booked to `run_id`."""

    @abstractmethod
    def usage(self, run_id: str) -> tuple[int, int]:
        """(LLM calls, tokens) booked to `run_id` so far."""

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """Seed and sampling settings every call of a run uses (recorded in the session)."""
