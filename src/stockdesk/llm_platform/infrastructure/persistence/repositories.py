"""SQLAlchemy implementations of the audit and cache ports."""

from __future__ import annotations

from sqlalchemy import select

from stockdesk.llm_platform.domain.dtos import CompletionResponse, LLMCallRecord
from stockdesk.llm_platform.domain.ports import ILLMCallAuditRepository, IResponseCache
from stockdesk.llm_platform.infrastructure.persistence.models import LLMCallRow, LLMResponseCacheRow
from stockdesk.shared.db import Database


class SqlLLMCallAuditRepository(ILLMCallAuditRepository):
    def __init__(self, database: Database):
        self._db = database

    def record(self, record: LLMCallRecord) -> None:
        with self._db.session() as session:
            session.add(LLMCallRow(**record.model_dump()))

    def list_for_run(self, run_id: str) -> list[LLMCallRecord]:
        with self._db.session() as session:
            rows = session.scalars(
                select(LLMCallRow).where(LLMCallRow.run_id == run_id).order_by(LLMCallRow.id)
            )
            return [
                LLMCallRecord.model_validate({f: getattr(row, f) for f in LLMCallRecord.model_fields})
                for row in rows
            ]


class SqlResponseCache(IResponseCache):
    def __init__(self, database: Database):
        self._db = database

    def get(self, key: str) -> CompletionResponse | None:
        with self._db.session() as session:
            row = session.get(LLMResponseCacheRow, key)
            return CompletionResponse.model_validate(row.response) if row else None

    def put(self, key: str, response: CompletionResponse) -> None:
        with self._db.session() as session:
            session.merge(LLMResponseCacheRow(key=key, response=response.model_dump(mode="json")))
