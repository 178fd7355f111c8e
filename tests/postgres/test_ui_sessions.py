"""The web UI's session store and the local user's daily usage, on SQLite and PostgreSQL: ids kept
only as hashes, sessions that end (logout, expiry, their key revoked), a cap on the local user's
sessions, and one local budget that adds up when requests finish at once."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import text

from stockdesk.shared.access.sessions import LOCAL, SESSION_TTL
from stockdesk.shared.db import Database, ui_session_store
from stockdesk.shared.db.api_key_store import SqlApiKeyStore
from stockdesk.shared.db.ui_session_store import TOUCH_EVERY, SqlUiSessionStore
from tests.postgres.both import sqlite_and_postgres  # noqa: F401

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
DAY = date(2026, 11, 30)


def test_sessions_are_found_by_id_stored_as_hashes_and_closed(database: Database) -> None:
    keys, sessions = SqlApiKeyStore(database), SqlUiSessionStore(database)
    record, _ = keys.create("ui")
    signed = sessions.open(record.id, now=NOW)
    local = sessions.open(LOCAL, now=NOW)
    found = sessions.find(signed, now=NOW)
    assert found is not None and found.key_id == record.id and not found.local
    assert found.expires_at == NOW + SESSION_TTL and found.created_at.utcoffset() == timedelta(0)
    mine = sessions.find(local, now=NOW)
    assert mine is not None and mine.local
    with database.engine.connect() as conn:
        stored = str([tuple(r) for r in conn.execute(text("SELECT * FROM ui_sessions"))])
    assert signed not in stored and local not in stored
    assert sessions.find(signed + "x", now=NOW) is None
    assert sessions.close(signed) and not sessions.close(signed)
    assert sessions.find(signed, now=NOW) is None and sessions.find(local, now=NOW) is not None


def test_sessions_end_when_they_expire_or_their_key_is_revoked(database: Database) -> None:
    keys, sessions = SqlApiKeyStore(database), SqlUiSessionStore(database)
    record, _ = keys.create("ui")
    session_id = sessions.open(record.id, now=NOW)
    soon = sessions.find(session_id, now=NOW + TOUCH_EVERY / 2)
    assert soon is not None and soon.last_seen_at == NOW  # a last use is written once a minute at most
    later = sessions.find(session_id, now=NOW + TOUCH_EVERY)
    assert later is not None and later.last_seen_at == NOW + TOUCH_EVERY
    assert sessions.find(session_id, now=NOW + SESSION_TTL) is None  # expired
    fresh = sessions.open(record.id, now=NOW)
    keys.revoke(record.id)
    assert sessions.find(fresh, now=NOW) is None
    sessions.open(LOCAL, now=NOW + SESSION_TTL + timedelta(days=1))  # opening one drops the expired
    with database.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM ui_sessions")).scalar() == 1


def test_the_local_users_sessions_are_capped_oldest_first(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ui_session_store, "MAX_LOCAL_SESSIONS", 3)
    sessions = SqlUiSessionStore(database)
    record, _ = SqlApiKeyStore(database).create("ui")
    signed = sessions.open(record.id, now=NOW)
    opened = [sessions.open(LOCAL, now=NOW + timedelta(minutes=i)) for i in range(5)]
    alive = [sessions.find(s, now=NOW + timedelta(minutes=5)) is not None for s in opened]
    assert alive == [False, False, True, True, True]
    assert sessions.find(signed, now=NOW) is not None  # a signed-in session is never dropped for room


def test_the_local_users_usage_is_one_budget_apart_from_the_keys(database: Database) -> None:
    keys = SqlApiKeyStore(database)
    record, _ = keys.create("busy")
    barrier, errors = threading.Barrier(6), []

    def spend() -> None:
        barrier.wait()
        try:
            keys.add_tokens(LOCAL, DAY, 10)
        except Exception as exc:  # collected: the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=spend) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    keys.add_tokens(record.id, DAY, 7)
    assert errors == []
    assert keys.tokens_on(LOCAL, DAY) == 60 and keys.tokens_on(record.id, DAY) == 7
    assert keys.tokens_on(LOCAL, date(2026, 12, 1)) == 0
