"""Dialect-aware bulk upsert (SQLite and PostgreSQL `INSERT ... ON CONFLICT DO UPDATE`).

Incoming NULLs never overwrite stored values (COALESCE), so a partial source (bars without an
adjustment factor, say) cannot erase what a fuller one wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Table, func
from sqlalchemy.dialects import postgresql, sqlite

BATCH_ROWS = 50_000


def upsert_rows(
    conn: Connection,
    table: Table,
    rows: Sequence[dict[str, Any]],
    key: Sequence[str],
    *,
    overwrite_nulls: bool = False,
) -> int:
    """Insert or update `rows` by `key`; returns the number of rows sent."""
    if not rows:
        return 0
    dialect = conn.dialect.name
    if dialect == "sqlite":
        insert = sqlite.insert
    elif dialect == "postgresql":
        insert = postgresql.insert
    else:  # pragma: no cover - only the two supported databases
        raise NotImplementedError(f"upsert is not implemented for {dialect}")
    stmt = insert(table)
    columns = [c for c in rows[0] if c not in key]
    if columns:
        update = {
            c: stmt.excluded[c] if overwrite_nulls else func.coalesce(stmt.excluded[c], table.c[c])
            for c in columns
        }
        stmt = stmt.on_conflict_do_update(index_elements=list(key), set_=update)
    else:
        stmt = stmt.on_conflict_do_nothing(index_elements=list(key))
    for start in range(0, len(rows), BATCH_ROWS):
        conn.execute(stmt, list(rows[start : start + BATCH_ROWS]))
    return len(rows)
