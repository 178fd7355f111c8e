"""SQLAlchemy implementation of the LLM platform's store: the audit of calls and the response cache."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import LargeBinary, Text, cast, delete, func, select
from sqlalchemy.exc import IntegrityError

from stockdesk.llm_platform.domain.dtos import (
    AuditedCall,
    AuditedToolCall,
    CompletionResponse,
    LLMCallRecord,
    ToolCallRecord,
)
from stockdesk.llm_platform.domain.ports import CacheStats, ILLMStore
from stockdesk.llm_platform.infrastructure.persistence.models import (
    LLMCallRow,
    LLMResponseCacheRow,
    LLMToolCallRow,
)
from stockdesk.shared.db import Database
from stockdesk.shared.db.lengths import fit_lengths
from stockdesk.shared.redact import redact_text


class SqlLLMStore(ILLMStore):
    def __init__(self, database: Database):
        self._db = database

    # ---- the audit ---------------------------------------------------------------------------
    def record(self, record: LLMCallRecord) -> None:
        row = record.model_dump()
        row["error_message"] = redact_text(row["error_message"])  # provider errors may quote URLs
        with self._db.session() as session:
            session.add(LLMCallRow(**fit_lengths(LLMCallRow, row)))

    def record_tools(self, records: list[ToolCallRecord]) -> None:
        rows = [r.model_dump() for r in records]
        for row in rows:
            row["error"] = redact_text(row["error"])
        with self._db.session() as session:
            session.add_all(LLMToolCallRow(**fit_lengths(LLMToolCallRow, row)) for row in rows)

    def recent(self, limit: int = 20) -> list[AuditedCall]:
        with self._db.session() as session:
            rows = list(session.scalars(select(LLMCallRow).order_by(LLMCallRow.id.desc()).limit(limit)))
            ids = [r.call_id for r in rows if r.call_id]
            ran: dict[tuple[str, str], LLMToolCallRow] = {}
            if ids:
                for t in session.scalars(select(LLMToolCallRow).where(LLMToolCallRow.call_id.in_(ids))):
                    ran[(t.call_id, t.tool_call_id)] = t
            return [_audited(row, ran) for row in rows]

    def list_for_run(self, run_id: str) -> list[LLMCallRecord]:
        with self._db.session() as session:
            rows = session.scalars(
                select(LLMCallRow).where(LLMCallRow.run_id == run_id).order_by(LLMCallRow.id)
            )
            return [
                LLMCallRecord.model_validate(
                    {f: getattr(row, f) for f in LLMCallRecord.model_fields}
                    | {"tool_calls": row.tool_calls or []}
                )
                for row in rows
            ]

    # ---- the response cache ------------------------------------------------------------------
    def get(self, key: str) -> CompletionResponse | None:
        with self._db.session() as session:
            row = session.get(LLMResponseCacheRow, key)
            return CompletionResponse.model_validate(row.response) if row else None

    def put(self, key: str, response: CompletionResponse) -> None:
        try:
            with self._db.session() as session:
                session.merge(LLMResponseCacheRow(key=key, response=response.model_dump(mode="json")))
        except IntegrityError:
            pass  # a parallel caller stored the same key first: same request, same answer

    def stats(self) -> CacheStats:
        row = LLMResponseCacheRow
        with self._db.session() as session:
            # SQLite keeps JSON as text: the BLOB cast measures it in bytes, not characters
            as_bytes = (
                func.length(cast(cast(row.response, Text), LargeBinary))
                if session.get_bind().dialect.name == "sqlite"
                else func.octet_length(cast(row.response, Text))
            )
            entries, size, oldest, newest = session.execute(
                select(
                    func.count(),
                    func.coalesce(func.sum(as_bytes), 0),
                    func.min(row.created_at),
                    func.max(row.created_at),
                )
            ).one()
        return CacheStats(entries=entries, size_bytes=int(size), oldest=_utc(oldest), newest=_utc(newest))

    def clear(self) -> int:
        with self._db.session() as session:
            result = session.execute(delete(LLMResponseCacheRow))
            return int(result.rowcount or 0)  # type: ignore[attr-defined]


def _audited(row: LLMCallRow, ran: dict[tuple[str, str], LLMToolCallRow]) -> AuditedCall:
    calls = []
    for asked in row.tool_calls or []:
        done = ran.get((row.call_id or "", str(asked.get("id"))))
        calls.append(
            AuditedToolCall(
                id=str(asked.get("id")),
                name=str(asked.get("name")),
                arguments=asked.get("arguments") or {},
                status=done.status if done else "not_run",
                result_chars=done.result_chars if done else 0,
                error=done.error if done else None,
            )
        )
    return AuditedCall(
        call_id=row.call_id,
        created_at=_utc(row.created_at) or row.created_at,
        run_id=row.run_id,
        model=row.model,
        provider=row.provider,
        purpose=row.caller,
        status=row.status,
        tokens=row.prompt_tokens + row.completion_tokens,
        prompt_tokens=row.prompt_tokens,
        completion_tokens=row.completion_tokens,
        prompt_tokens_evaluated=row.prompt_tokens_evaluated,
        prompt_tokens_cached=row.prompt_tokens_cached,
        seconds=row.latency_seconds,
        tool_calls=calls,
    )


def _utc(moment: datetime | None) -> datetime | None:
    """SQLite hands timestamps back without a zone; they were written in UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)
