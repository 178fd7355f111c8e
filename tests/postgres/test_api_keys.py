"""The API key store on SQLite and PostgreSQL: keys by hash, revocation by id prefix, daily usage
that adds up when several requests of one key finish at once (the first of a day included)."""

from __future__ import annotations

import threading
from datetime import date

from stockdesk.shared.db import Database
from stockdesk.shared.db.api_key_store import SqlApiKeyStore
from tests.postgres.both import sqlite_and_postgres  # noqa: F401

DAY = date(2026, 11, 30)


def test_keys_are_created_listed_authenticated_and_revoked(database: Database) -> None:
    store = SqlApiKeyStore(database)
    first, key = store.create("ci")
    second, _ = store.create("名前" * 50)  # 200 characters: the column's whole length
    assert [r.id for r in store.list()] == [second.id, first.id]
    used = store.authenticate(key)
    assert used is not None and used.id == first.id and used.last_used_at is not None
    assert used.last_used_at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    assert store.authenticate(key + "x") is None
    assert store.revoke("%") is None and store.revoke("") is None  # not a pattern, not everything
    revoked = store.revoke(first.id[:6].upper())  # an id prefix, typed in any case
    assert revoked is not None and revoked.id == first.id and not revoked.active
    assert store.authenticate(key) is None


def test_usage_adds_up_across_concurrent_requests_of_one_key(database: Database) -> None:
    store = SqlApiKeyStore(database)
    record, _ = store.create("busy")
    barrier, errors = threading.Barrier(6), []

    def spend() -> None:
        barrier.wait()
        try:
            store.add_tokens(record.id, DAY, 10)
        except Exception as exc:  # collected: the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=spend) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.tokens_on(record.id, DAY) == 60 and store.tokens_on(record.id, date(2026, 12, 1)) == 0
