"""SQLAlchemy implementation of web search's store: the audit of calls and the cache of answers."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from stockdesk.shared.db import Database
from stockdesk.shared.db.lengths import fit_lengths
from stockdesk.shared.redact import redact_text
from stockdesk.web_search.domain.ports import ISearchStore
from stockdesk.web_search.domain.search import SearchCallRecord, WebSearchResponse
from stockdesk.web_search.infrastructure.persistence.models import SearchCacheRow, SearchCallRow


class SqlSearchStore(ISearchStore):
    def __init__(self, database: Database, *, now: Callable[[], datetime] = lambda: datetime.now(UTC)):
        """`now`: the clock a cached answer's age is told by."""
        self._db = database
        self._now = now

    def record(self, record: SearchCallRecord) -> None:
        row = record.model_dump()
        row["error"] = redact_text(row["error"])  # a provider's answer may echo its key or URL
        with self._db.session() as session:
            session.add(SearchCallRow(**fit_lengths(SearchCallRow, row)))

    def recent(self, limit: int = 100) -> list[SearchCallRecord]:
        with self._db.session() as session:
            rows = session.scalars(select(SearchCallRow).order_by(SearchCallRow.id.desc()).limit(limit))
            return [
                SearchCallRecord.model_validate({f: getattr(r, f) for f in SearchCallRecord.model_fields})
                for r in rows
            ]

    def get(self, key: str, max_age_seconds: float) -> WebSearchResponse | None:
        with self._db.session() as session:
            row = session.get(SearchCacheRow, key)
            if row is None:
                return None
            created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
            if self._now() - created > timedelta(seconds=max_age_seconds):
                return None
            return WebSearchResponse.model_validate(row.response)

    def put(self, key: str, response: WebSearchResponse) -> None:
        with self._db.session() as session:
            session.merge(
                SearchCacheRow(key=key, created_at=self._now(), response=response.model_dump(mode="json"))
            )
