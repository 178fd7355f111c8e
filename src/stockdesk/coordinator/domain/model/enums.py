"""The coordinator's closed vocabularies: which experts exist, session and node states."""

from __future__ import annotations

from enum import StrEnum


class ExpertName(StrEnum):
    VALUATION_MODELER = "valuation_modeler"
    TECHNICAL_ANALYST = "technical_analyst"
    FINANCIAL_AUDITOR = "financial_auditor"
    MACRO_INTELLIGENCE = "macro_intelligence"
    CATALYST_DETECTIVE = "catalyst_detective"


ALL_EXPERTS: tuple[ExpertName, ...] = tuple(ExpertName)


class SessionStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    PARTIAL = "partial"  # some node failed; the rest ran and the session still has results
    FAILED = "failed"  # every expert failed: nothing to debate
    CANCELLED = "cancelled"  # stopped by a user (or a stopping server); an LLM call in flight is cut
    INTERRUPTED = "interrupted"  # its process died; marked by the next process that opens the store


class NodeStatus(StrEnum):
    WAITING = "waiting"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"
    REUSED = "reused"  # a retry took this expert's result from the parent session
    CANCELLED = "cancelled"  # the run was cancelled while this node ran


class DebateModeName(StrEnum):
    BULL_BEAR = "bull-bear"
    PANEL = "panel"
