"""The delivery records on SQLite or PostgreSQL, as the DeliveryLog the service reads and writes."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, insert, select

from stockdesk.notifications.application import DeliveryAttempt, DeliveryLog
from stockdesk.notifications.infrastructure.persistence.models import NotificationDeliveryRow
from stockdesk.shared.db import Database
from stockdesk.shared.db.timestamps import as_utc
from stockdesk.shared.redact import redact_text

TABLE = NotificationDeliveryRow.__table__
FINAL = ("sent", "failed")


class SqlDeliveryStore:
    def __init__(self, database: Database):
        self._database = database

    def add(self, attempt: DeliveryAttempt) -> None:
        values = attempt.model_dump()
        values["error"] = redact_text(values["error"])  # a second guard: the service redacts too
        with self._database.session() as session:
            session.execute(insert(TABLE).values(**values))

    def was_sent(self, channel: str, digest_hash: str) -> bool:
        query = select(TABLE.c.id).where(
            TABLE.c.channel == channel, TABLE.c.digest_hash == digest_hash, TABLE.c.status == "sent"
        )
        with self._database.session() as session:
            return session.execute(query.limit(1)).first() is not None

    def final(self, channel: str, limit: int) -> list[DeliveryAttempt]:
        query = (
            select(NotificationDeliveryRow)
            .where(TABLE.c.channel == channel, TABLE.c.status.in_(FINAL))
            .order_by(TABLE.c.id.desc())
            .limit(limit)
        )
        with self._database.session() as session:
            rows = session.execute(query).scalars().all()
            return [
                DeliveryAttempt(
                    channel=r.channel, run_id=r.run_id, digest_hash=r.digest_hash, attempt=r.attempt,
                    status=r.status, error=r.error, sent_at=as_utc(r.sent_at),  # type: ignore[arg-type]
                )
                for r in rows
            ]  # fmt: skip

    def last_success(self, channel: str) -> datetime | None:
        query = select(func.max(TABLE.c.sent_at)).where(TABLE.c.channel == channel, TABLE.c.status == "sent")
        with self._database.session() as session:
            return as_utc(session.execute(query).scalar())

    def all(self) -> list[DeliveryAttempt]:
        """Every attempt in the order made (for the tests and an audit)."""
        with self._database.session() as session:
            rows = session.execute(select(NotificationDeliveryRow).order_by(TABLE.c.id)).scalars().all()
            return [
                DeliveryAttempt(
                    channel=r.channel, run_id=r.run_id, digest_hash=r.digest_hash, attempt=r.attempt,
                    status=r.status, error=r.error, sent_at=as_utc(r.sent_at),  # type: ignore[arg-type]
                )
                for r in rows
            ]  # fmt: skip

    def log(self) -> DeliveryLog:
        return DeliveryLog(
            add=self.add, was_sent=self.was_sent, final=self.final, last_success=self.last_success
        )
