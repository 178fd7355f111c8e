"""The scheduling tables (migration 0024_schedules): schedules, and one run per schedule and day."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from stockdesk.shared.db import Base


class ScheduleRow(Base):
    __tablename__ = "schedules"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)
    watchlist: Mapped[str] = mapped_column(String(64))
    at: Mapped[str] = mapped_column(String(5))
    tz: Mapped[str] = mapped_column(String(64))
    days: Mapped[str] = mapped_column(String(40))
    mode: Mapped[str] = mapped_column(String(8))
    notify_json: Mapped[str] = mapped_column(Text)
    paper: Mapped[str | None] = mapped_column(String(40))
    language: Mapped[str] = mapped_column(String(2), default="en")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ScheduleRunRow(Base):
    """UNIQUE (schedule_id, day): the claim. A second runner's insert fails, so a day runs once."""

    __tablename__ = "schedule_runs"
    __table_args__ = (UniqueConstraint("schedule_id", "day"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    schedule_id: Mapped[int] = mapped_column(Integer, ForeignKey("schedules.id", ondelete="CASCADE"))
    day: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(10))
    reason: Mapped[str | None] = mapped_column(Text)
    job_id: Mapped[str | None] = mapped_column(String(64))
    claimed_by: Mapped[str | None] = mapped_column(String(200))
    fired_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    report_dir: Mapped[str | None] = mapped_column(Text)
    rows_json: Mapped[str] = mapped_column(Text)
    deliveries_json: Mapped[str] = mapped_column(Text)
    notes_json: Mapped[str] = mapped_column(Text)
