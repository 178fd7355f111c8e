"""Where research sessions and their node executions are kept."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.coordinator.domain.dtos.session import NodeExecution, ResearchSession, SessionPage


class IResearchSessionRepository(ABC):
    @abstractmethod
    def save(self, session: ResearchSession) -> None:
        """Insert or replace the session row and its node executions (`nodes` replace those stored).
        A `running` session is saved with this process as its runner and a fresh heartbeat."""

    @abstractmethod
    def add_node(self, session_id: str, node: NodeExecution) -> None:
        """Keep one finished node of a running session: a session whose process dies still shows the
        steps it finished."""

    @abstractmethod
    def heartbeat(self, session_id: str, llm_calls: int, tokens: int) -> None:
        """The running session's process is alive, and has made these LLM calls so far."""

    @abstractmethod
    def recent_step_seconds(self, rules: bool, runs: int) -> tuple[dict[str, list[float]], int]:
        """Each step's durations (`done` only) in the last `runs` finished sessions of the kind
        (rules: rules only or a rules verdict; else with the LLM), and how many sessions that was."""

    @abstractmethod
    def mark_interrupted(self, reason: str) -> list[str]:
        """Every `running` session whose runner is dead becomes `interrupted`, its elapsed time up to
        its last sign of life; returns their ids."""

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
