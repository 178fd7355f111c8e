"""ORM rows of the coordinator: research sessions and their node executions.

Payloads (expert results, debate outcome, verdict) are JSON columns: they are read back whole,
never queried inside. LLM calls link to a session through llm_calls.run_id = session id.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Boolean, Date, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from stockdesk.shared.db import Base


class ResearchSessionRow(Base):
    __tablename__ = "research_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    parent_session_id: Mapped[str | None] = mapped_column(String(64), index=True)
    symbol: Mapped[str] = mapped_column(String(32), index=True)
    as_of: Mapped[date | None] = mapped_column(Date)
    experts: Mapped[list[str]] = mapped_column(JSON, default=list)
    options: Mapped[dict] = mapped_column(
        JSON, default=dict
    )  # unused: always {} (dropping it needs a migration)
    skip_debate: Mapped[bool] = mapped_column(Boolean, default=False)
    debate_mode: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    duration_seconds: Mapped[float | None] = mapped_column(Float)
    llm_calls: Mapped[int] = mapped_column(Integer, default=0)
    tokens: Mapped[int] = mapped_column(Integer, default=0)
    action: Mapped[str | None] = mapped_column(String(8))
    expert_results: Mapped[dict] = mapped_column(JSON, default=dict)
    expert_errors: Mapped[dict] = mapped_column(JSON, default=dict)
    reused_experts: Mapped[list[str]] = mapped_column(JSON, default=list)
    aggregation: Mapped[dict] = mapped_column(JSON, default=dict)
    debate_outcome: Mapped[dict] = mapped_column(JSON, default=dict)
    verdict: Mapped[dict] = mapped_column(JSON, default=dict)
    errors: Mapped[dict] = mapped_column(JSON, default=dict)
    charts: Mapped[list] = mapped_column(JSON, default=list)
    llm_settings: Mapped[dict] = mapped_column(JSON, default=dict)
    owner: Mapped[str | None] = mapped_column(String(128))  # host:pid of the process running it
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class NodeExecutionRow(Base):
    __tablename__ = "research_node_executions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    session_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("research_sessions.id", ondelete="CASCADE"), index=True
    )
    node: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    seconds: Mapped[float | None] = mapped_column(Float)
    error: Mapped[str | None] = mapped_column(Text)
