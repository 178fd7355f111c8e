"""SQLAlchemy sync bookkeeping: `sync_failures` (why a fetch failed) and `sync_state` (for resume)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import select

from stockdesk.data_engineering.domain.ports import ISyncStateRepository
from stockdesk.data_engineering.infrastructure.persistence.models import SyncFailureRow, SyncStateRow
from stockdesk.shared.db import Database


class SqlSyncStateRepository(ISyncStateRepository):
    def __init__(self, database: Database):
        self._db = database

    def record_failure(self, run_id: str, provider: str, symbol: str, dataset: str, reason: str) -> None:
        with self._db.session() as session:
            session.add(
                SyncFailureRow(
                    created_at=datetime.now(UTC).replace(tzinfo=None),
                    run_id=run_id,
                    provider=provider,
                    symbol=symbol,
                    dataset=dataset,
                    reason=reason,
                )
            )

    def mark_done(self, symbol: str, dataset: str, through: date) -> None:
        with self._db.session() as session:
            row = session.get(SyncStateRow, (symbol, dataset))
            if row is None:
                session.add(SyncStateRow(symbol=symbol, dataset=dataset, done_through=through))
            else:
                row.done_through = through

    def done_through(self, symbol: str, dataset: str) -> date | None:
        with self._db.session() as session:
            row = session.get(SyncStateRow, (symbol, dataset))
            return row.done_through if row else None

    def failures(self, run_id: str | None = None) -> list[dict[str, str]]:
        """Failures of one run (or all), oldest first, as plain strings."""
        stmt = select(SyncFailureRow).order_by(SyncFailureRow.id)
        if run_id is not None:
            stmt = stmt.where(SyncFailureRow.run_id == run_id)
        with self._db.session() as session:
            return [
                {
                    "run_id": r.run_id,
                    "created_at": r.created_at.isoformat(timespec="seconds"),
                    "provider": r.provider,
                    "symbol": r.symbol,
                    "dataset": r.dataset,
                    "reason": r.reason,
                }
                for r in session.scalars(stmt)
            ]
