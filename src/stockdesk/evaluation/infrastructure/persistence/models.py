"""The `evaluation_reports` table: one scored report per evaluation job, with what it was scored from.

The two texts are JSON as the application wrote them: `overview` (what the evaluation page reads:
the report without its points, and the points as one list per column) and `report` (the whole
report, the JSON contract). The basis columns are read alone, to decide whether the texts are
still good, without loading either.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from stockdesk.shared.db import Base


class EvaluationReportRow(Base):
    __tablename__ = "evaluation_reports"

    job_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer)
    done: Mapped[int] = mapped_column(Integer)
    failed: Mapped[int] = mapped_column(Integer)
    bars_through: Mapped[date | None] = mapped_column(Date)
    bars: Mapped[str] = mapped_column(String(64))
    scored_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    overview: Mapped[str] = mapped_column(Text)
    report: Mapped[str] = mapped_column(Text)
