"""The `verdict_ledger` table: one row per verdict, in a hash chain (see ledger.domain.entry).

`seq` is the primary key and set by the appender (never by the database), `entry_id` and
`prev_hash` are unique: two writers that both read the same head could never both insert, even if
the lock were bypassed, so the chain cannot fork.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, DateTime, Float, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from stockdesk.shared.db import Base


class VerdictLedgerRow(Base):
    __tablename__ = "verdict_ledger"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    entry_id: Mapped[str] = mapped_column(String(64), unique=True)
    symbol: Mapped[str] = mapped_column(String(32), index=True)
    as_of: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    mode: Mapped[str] = mapped_column(String(16))
    model: Mapped[str] = mapped_column(String(500))
    action: Mapped[str] = mapped_column(String(8))
    confidence: Mapped[float] = mapped_column(Float)
    position_percent: Mapped[float] = mapped_column(Float)
    probability_up: Mapped[float | None] = mapped_column(Float)
    session_id: Mapped[str | None] = mapped_column(String(64), index=True)
    verdict_json: Mapped[str] = mapped_column(Text)
    experts_json: Mapped[str] = mapped_column(Text)
    inputs_hash: Mapped[str] = mapped_column(String(64))
    tokens: Mapped[int] = mapped_column(Integer)
    llm_calls: Mapped[int] = mapped_column(Integer)
    cost_usd: Mapped[float | None] = mapped_column(Float)
    retrospective: Mapped[bool] = mapped_column(Boolean)
    prev_hash: Mapped[str] = mapped_column(String(64), unique=True)
    entry_hash: Mapped[str] = mapped_column(String(64), unique=True)


COLUMNS = (
    "seq", "entry_id", "symbol", "as_of", "created_at", "mode", "model", "action", "confidence",
    "position_percent", "probability_up",
    "session_id", "verdict_json", "experts_json", "inputs_hash", "tokens", "llm_calls", "cost_usd",
    "retrospective", "prev_hash", "entry_hash",
)  # fmt: skip
