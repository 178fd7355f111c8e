"""ORM rows of the LLM platform: the call audit and the opt-in response cache."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, DateTime, Float, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from stockdesk.shared.db import Base


def _now() -> datetime:
    return datetime.now(UTC)


class LLMCallRow(Base):
    __tablename__ = "llm_calls"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, index=True)
    run_id: Mapped[str] = mapped_column(String(64), index=True)
    caller: Mapped[str | None] = mapped_column(String(120))
    alias: Mapped[str] = mapped_column(String(64))
    provider: Mapped[str] = mapped_column(String(64))
    model: Mapped[str] = mapped_column(String(200))
    prompt_hash: Mapped[str] = mapped_column(String(64))
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    # of prompt_tokens: evaluated by the model / reused from the server's prompt cache (NULL: unknown)
    prompt_tokens_evaluated: Mapped[int | None] = mapped_column(Integer)
    prompt_tokens_cached: Mapped[int | None] = mapped_column(Integer)
    latency_seconds: Mapped[float] = mapped_column(Float, default=0.0)
    status: Mapped[str] = mapped_column(String(16))
    error_class: Mapped[str | None] = mapped_column(String(120))
    error_message: Mapped[str | None] = mapped_column(Text)
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    call_id: Mapped[str | None] = mapped_column(String(32), index=True)
    tool_calls: Mapped[list[dict] | None] = mapped_column(JSON, default=list)


class LLMToolCallRow(Base):
    """One tool call a model asked for and the caller ran (results are not kept: their size is)."""

    __tablename__ = "llm_tool_calls"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    call_id: Mapped[str] = mapped_column(String(32), index=True)
    tool_call_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(64))
    arguments: Mapped[dict] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16))
    result_chars: Mapped[int] = mapped_column(Integer, default=0)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    error: Mapped[str | None] = mapped_column(Text)


class LLMResponseCacheRow(Base):
    __tablename__ = "llm_response_cache"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    response: Mapped[dict] = mapped_column(JSON)
