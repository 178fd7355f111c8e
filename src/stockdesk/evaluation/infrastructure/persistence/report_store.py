"""IEvaluationReportStore over SQLAlchemy: one row per job, replaced whenever the job is scored again."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from stockdesk.evaluation.domain.dtos import ReportBasis
from stockdesk.evaluation.domain.ports import IEvaluationReportStore, ReportPart
from stockdesk.evaluation.infrastructure.persistence.models import EvaluationReportRow
from stockdesk.shared.db import Database

TABLE = EvaluationReportRow.__table__
BASIS = ("version", "done", "failed", "bars_through", "bars")


class SqlEvaluationReportStore(IEvaluationReportStore):
    def __init__(self, database: Database):
        self._db = database

    def basis(self, job_id: str) -> ReportBasis | None:
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            row = conn.execute(select(*[TABLE.c[n] for n in BASIS]).where(TABLE.c.job_id == job_id)).first()
        return None if row is None else ReportBasis(**dict(zip(BASIS, row, strict=True)))

    def read(self, job_id: str, part: ReportPart) -> str | None:
        self._db.ensure_schema()
        with self._db.engine.connect() as conn:
            text: str | None = conn.execute(select(TABLE.c[part]).where(TABLE.c.job_id == job_id)).scalar()
        return text

    def save(self, job_id: str, basis: ReportBasis, overview: str, report: str) -> None:
        values = {
            **basis.model_dump(),
            "scored_at": datetime.now(UTC),
            "overview": overview,
            "report": report,
        }
        with self._db.session() as db:
            row = db.get(EvaluationReportRow, job_id)
            if row is None:
                db.add(EvaluationReportRow(job_id=job_id, **values))
            else:
                for name, value in values.items():
                    setattr(row, name, value)
