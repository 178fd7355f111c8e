"""The web UI's sign-in sessions over SQLAlchemy: `ui_sessions` (the sha256 of each session id, never
the id), each opened with an API key (and gone with it) or by the loopback UI for the local user."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import DateTime, ForeignKey, String, delete, func, select
from sqlalchemy.orm import Mapped, mapped_column

from stockdesk.shared.access.keys import hash_key
from stockdesk.shared.access.sessions import LOCAL, SESSION_TTL, UiSession, new_session_id
from stockdesk.shared.db.api_key_store import ApiKeyRow
from stockdesk.shared.db.base import Base
from stockdesk.shared.db.database import Database
from stockdesk.shared.db.timestamps import as_utc

# A session's last use is written at most this often: a page's many requests cost one read each.
TOUCH_EVERY = timedelta(seconds=60)
# The local user's sessions are opened on any page asked for without one, so a script asking
# without cookies would add a row per request: beyond this many, the least recently used go.
MAX_LOCAL_SESSIONS = 1_000


class UiSessionRow(Base):
    __tablename__ = "ui_sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    # NULL: the local user's session (the loopback UI opened it); else the key it was signed in with
    key_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("api_keys.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


def _session(row: UiSessionRow) -> UiSession:
    return UiSession(
        key_id=row.key_id or LOCAL,
        created_at=as_utc(row.created_at),
        last_seen_at=as_utc(row.last_seen_at),
        expires_at=as_utc(row.expires_at),
    )


class SqlUiSessionStore:
    """Open, find and close sessions. Every method is one transaction."""

    def __init__(self, database: Database, ttl: timedelta = SESSION_TTL):
        self._db = database
        self._ttl = ttl

    def open(self, key_id: str, now: datetime | None = None) -> str:
        """A new session for `key_id` (or LOCAL); returns its id in clear, for the cookie only.
        Expired sessions are deleted on the way, and the oldest local ones beyond the cap."""
        now = now or datetime.now(UTC)
        session_id = new_session_id()
        with self._db.session() as session:
            session.execute(delete(UiSessionRow).where(UiSessionRow.expires_at <= now))
            if key_id == LOCAL:
                self._drop_oldest_local(session)
            session.add(
                UiSessionRow(
                    id_hash=hash_key(session_id),
                    key_id=None if key_id == LOCAL else key_id,
                    created_at=now,
                    last_seen_at=now,
                    expires_at=now + self._ttl,
                )
            )
        return session_id

    @staticmethod
    def _drop_oldest_local(session) -> None:  # type: ignore[no-untyped-def]
        local = UiSessionRow.key_id.is_(None)
        count = session.scalar(select(func.count()).select_from(UiSessionRow).where(local)) or 0
        extra = count - MAX_LOCAL_SESSIONS + 1
        if extra > 0:
            oldest = select(UiSessionRow.id_hash).where(local).order_by(UiSessionRow.last_seen_at)
            session.execute(
                delete(UiSessionRow).where(UiSessionRow.id_hash.in_(oldest.limit(extra).scalar_subquery()))
            )

    def find(self, session_id: str, now: datetime | None = None) -> UiSession | None:
        """The live session of that id: None when unknown, expired or opened with a key revoked since."""
        now = now or datetime.now(UTC)
        with self._db.session() as session:
            found = session.execute(
                select(UiSessionRow, ApiKeyRow.revoked_at)
                .outerjoin(ApiKeyRow, ApiKeyRow.id == UiSessionRow.key_id)
                .where(UiSessionRow.id_hash == hash_key(session_id), UiSessionRow.expires_at > now)
            ).first()
            if found is None:
                return None
            row, revoked_at = found
            if row.key_id is not None and revoked_at is not None:
                return None
            if now - as_utc(row.last_seen_at) >= TOUCH_EVERY:  # type: ignore[operator]
                row.last_seen_at = now
            return _session(row)

    def close(self, session_id: str) -> bool:
        """End the session (logout); False when there was none of that id."""
        with self._db.session() as session:
            result = session.execute(delete(UiSessionRow).where(UiSessionRow.id_hash == hash_key(session_id)))
            return bool(result.rowcount)  # type: ignore[attr-defined]
