"""Where research sessions and their node executions are kept."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.coordinator.domain.dtos.session import ResearchSession, SessionPage


class IResearchSessionRepository(ABC):
    @abstractmethod
    def save(self, session: ResearchSession) -> None:
        """Insert or replace the session row; its `nodes` are added to the stored node executions."""

    @abstractmethod
    def get(self, session_id: str) -> ResearchSession | None:
        """The session with its node executions, or None."""

    @abstractmethod
    def list(
        self,
        *,
        symbol: str | None = None,
        status: str | None = None,
        since: date | None = None,
        action: str | None = None,
        offset: int = 0,
        limit: int = 20,
    ) -> SessionPage: ...
