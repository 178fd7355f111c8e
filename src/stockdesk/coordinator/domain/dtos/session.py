"""A research session: what was asked, what each node did, and everything it produced."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.coordinator.domain.model.enums import (
    ALL_EXPERTS,
    DebateModeName,
    ExpertName,
    NodeStatus,
    SessionStatus,
)


class Lesson(BaseModel):
    """A past verdict on the same symbol and what followed, known by the new verdict's as_of
    (computed by code: evaluate's fills and excess returns over the bars up to that date)."""

    as_of: date = Field(description="the past verdict's date")
    action: str = Field(description="BUY | SELL | HOLD, as it was stated")
    probability_up: float | None = Field(default=None, description="its stated P(up); None: uncalibrated")
    horizon: int = Field(ge=1, description="trading days the outcome was measured over")
    excess_return: float = Field(description="forward excess return over that horizon, a fraction")


class ResearchRequest(BaseModel):
    symbol: str = Field(min_length=1)
    as_of: date | None = None
    experts: list[ExpertName] = Field(default_factory=lambda: list(ALL_EXPERTS))
    skip_debate: bool = False
    debate_mode: DebateModeName = DebateModeName.BULL_BEAR
    rules_only: bool = Field(default=False, description="code-only signals and the rules verdict, no LLM")
    judge_samples: int = Field(default=1, ge=1, le=9, description="seeded judge runs for verdict stability")
    verdict_by_rules: bool = Field(
        default=False,
        description="LLM experts, no debate; the rules verdict combines the experts' own stances "
        "and confidences (evaluate --mode experts)",
    )
    record_verdict: bool = Field(
        default=True,
        description="append the verdict to the verdict ledger; False for evaluation points, which "
        "are scored by evaluate and are not the desk's verdicts",
    )
    reflection: bool = Field(
        default=False,
        description="give the LLM judge lessons from matured past verdicts of the symbol (off by "
        "default: evaluate --reflection measures whether it helps)",
    )
    lessons: list[Lesson] | None = Field(
        default=None,
        description="the lessons to give (evaluate passes its own earlier points); None with "
        "reflection: the verdict ledger's matured entries are read",
    )
    ignore_holdings: bool = Field(
        default=False,
        description="analyse as if the symbol were not held (`analyze --ignore-holdings`; evaluation "
        "and paper books, whose verdicts are not the user's position's)",
    )


class NodeExecution(BaseModel):
    node: str
    status: NodeStatus
    started_at: datetime | None = None
    finished_at: datetime | None = None
    seconds: float | None = None
    error: str | None = None


class ResearchSession(BaseModel):
    id: str
    parent_session_id: str | None = None
    symbol: str
    as_of: date | None = None
    experts: list[ExpertName]
    skip_debate: bool = False
    debate_mode: DebateModeName = DebateModeName.BULL_BEAR
    status: SessionStatus = SessionStatus.RUNNING
    started_at: datetime
    finished_at: datetime | None = None
    duration_seconds: float | None = None
    llm_calls: int = 0
    tokens: int = 0
    expert_results: dict[str, dict[str, Any]] = Field(default_factory=dict)
    expert_errors: dict[str, str] = Field(default_factory=dict)
    reused_experts: list[str] = Field(default_factory=list)
    aggregation: dict[str, Any] = Field(default_factory=dict)
    debate_outcome: dict[str, Any] = Field(default_factory=dict)
    verdict: dict[str, Any] = Field(default_factory=dict)
    errors: dict[str, str] = Field(default_factory=dict, description="debate/judge failures, degraded")
    charts: list[dict[str, Any]] = Field(
        default_factory=list, description="chart specs (series computed in code) the reports draw"
    )
    llm_settings: dict[str, Any] = Field(
        default_factory=dict, description="seed and sampling settings the LLM calls ran with"
    )
    nodes: list[NodeExecution] = Field(default_factory=list)


class SessionSummary(BaseModel):
    """One row of the sessions list: no payloads."""

    id: str
    parent_session_id: str | None
    symbol: str
    as_of: date | None
    status: SessionStatus
    started_at: datetime
    duration_seconds: float | None
    llm_calls: int
    tokens: int
    action: str | None = Field(description="the verdict's action, when there is one")


class SessionPage(BaseModel):
    items: list[SessionSummary]
    total: int
    offset: int
    limit: int
