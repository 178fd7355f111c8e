"""The API key store over SQLAlchemy: `api_keys` (sha256 of each key, never the key) and `api_key_usage`;
the local user's daily usage (key id "local": the loopback UI's sessions, --no-auth) is `local_token_usage`.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, Integer, String, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, mapped_column

from stockdesk.shared.access.keys import ApiKeyRecord, hash_key, new_key
from stockdesk.shared.access.sessions import LOCAL
from stockdesk.shared.db.base import Base
from stockdesk.shared.db.database import Database
from stockdesk.shared.db.timestamps import as_utc

PREFIX_CHARS = 10


class ApiKeyRow(Base):
    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    prefix: Mapped[str] = mapped_column(String(16))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiKeyUsageRow(Base):
    __tablename__ = "api_key_usage"

    key_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("api_keys.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    tokens: Mapped[int] = mapped_column(Integer, default=0)


class LocalTokenUsageRow(Base):
    """The local user's tokens per UTC day: one budget, like a key's (no key row to refer to)."""

    __tablename__ = "local_token_usage"

    day: Mapped[date] = mapped_column(Date, primary_key=True)
    tokens: Mapped[int] = mapped_column(Integer, default=0)


def _record(row: ApiKeyRow) -> ApiKeyRecord:
    return ApiKeyRecord(
        id=row.id,
        name=row.name,
        prefix=row.prefix,
        created_at=as_utc(row.created_at),
        revoked_at=as_utc(row.revoked_at),
        last_used_at=as_utc(row.last_used_at),
    )


class SqlApiKeyStore:
    """Keys and their daily token usage. Every method is one transaction."""

    def __init__(self, database: Database):
        self._db = database

    def create(self, name: str) -> tuple[ApiKeyRecord, str]:
        """A new active key named `name`; returns its record and the key in clear (never stored)."""
        key = new_key()
        row = ApiKeyRow(
            id=uuid.uuid4().hex[:12],
            name=name,
            prefix=key[:PREFIX_CHARS],
            key_hash=hash_key(key),
            created_at=datetime.now(UTC),
        )
        with self._db.session() as session:
            session.add(row)
            session.flush()
            return _record(row), key

    def list(self) -> list[ApiKeyRecord]:
        """All keys, newest first, revoked ones included."""
        with self._db.session() as session:
            rows = session.scalars(select(ApiKeyRow).order_by(ApiKeyRow.created_at.desc())).all()
            return [_record(r) for r in rows]

    def revoke(self, key_id: str) -> ApiKeyRecord | None:
        """Revoke by id (or unique id prefix); None when no such key. Revoking twice is harmless."""
        with self._db.session() as session:
            # ids are lower-case hex; PostgreSQL's LIKE is case-sensitive, SQLite's is not
            prefix = ApiKeyRow.id.startswith(key_id.lower(), autoescape=True)
            rows = session.scalars(select(ApiKeyRow).where(prefix)).all()
            if len(rows) != 1 or not key_id:
                return None
            row = rows[0]
            if row.revoked_at is None:
                row.revoked_at = datetime.now(UTC)
            return _record(row)

    def authenticate(self, key: str) -> ApiKeyRecord | None:
        """The active key whose hash matches, its last use stamped; None for unknown or revoked."""
        with self._db.session() as session:
            row = session.scalars(select(ApiKeyRow).where(ApiKeyRow.key_hash == hash_key(key))).first()
            if row is None or row.revoked_at is not None:
                return None
            row.last_used_at = datetime.now(UTC)
            return _record(row)

    def tokens_on(self, key_id: str, day: date) -> int:
        """Tokens the key's requests (or the local user's, for LOCAL) spent on `day` (UTC)."""
        with self._db.session() as session:
            row = (
                session.get(LocalTokenUsageRow, day)
                if key_id == LOCAL
                else session.get(ApiKeyUsageRow, (key_id, day))
            )
            return row.tokens if row is not None else 0

    def add_tokens(self, key_id: str, day: date, tokens: int) -> None:
        """Add to the key's usage of `day` (the local user's for LOCAL)."""
        if tokens <= 0:
            return
        table: type[LocalTokenUsageRow | ApiKeyUsageRow] = LocalTokenUsageRow
        keys: dict[str, object] = {"day": day}
        if key_id != LOCAL:
            table, keys = ApiKeyUsageRow, {"key_id": key_id, "day": day}
        with self._db.session() as session:  # one atomic upsert: concurrent first uses of a day add up
            dialect = session.get_bind().dialect.name
            stmt = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)
            stmt = stmt.values(**keys, tokens=tokens)
            session.execute(
                stmt.on_conflict_do_update(
                    index_elements=list(keys),
                    set_={"tokens": table.tokens + stmt.excluded.tokens},
                )
            )
