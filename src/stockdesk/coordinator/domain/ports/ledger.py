"""Where a finished session's verdict is recorded: the verdict ledger (through its application)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from stockdesk.coordinator.domain.dtos.session import ResearchSession


class IVerdictLedger(ABC):
    @abstractmethod
    def record(self, session: ResearchSession) -> None:
        """Append the session's verdict once (the session id names the entry: a second call for
        the same session appends nothing)."""
