"""Dialect-aware bulk upsert (SQLite and PostgreSQL `INSERT ... ON CONFLICT DO UPDATE`).

Incoming NULLs never overwrite stored values (COALESCE), so a partial source (bars without an
adjustment factor, say) cannot erase what a fuller one wrote.

Rows come column-wise (`upsert_columns`, what bulk imports use). On SQLite the statement is
compiled once and the driver's executemany gets plain tuples, each column converted by its own
type's bind processor (dates and booleans once per distinct value): the stored text of
dates, booleans and JSON is exactly what the ORM writes and reads, without SQLAlchemy's per-row
parameter handling, which cost more than SQLite itself. Other dialects use SQLAlchemy's executemany.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Boolean, Column, Connection, Date, DateTime, Dialect, Table, func
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert

BATCH_ROWS = 50_000


def _statement(
    conn: Connection, table: Table, columns: Sequence[str], key: Sequence[str], overwrite_nulls: bool
) -> Insert:
    dialect = conn.dialect.name
    if dialect == "sqlite":
        insert = sqlite.insert
    elif dialect == "postgresql":
        insert = postgresql.insert
    else:  # pragma: no cover - only the two supported databases
        raise NotImplementedError(f"upsert is not implemented for {dialect}")
    stmt = insert(table)
    updated = [c for c in columns if c not in key]
    if not updated:
        return stmt.on_conflict_do_nothing(index_elements=list(key))
    update = {
        c: stmt.excluded[c] if overwrite_nulls else func.coalesce(stmt.excluded[c], table.c[c])
        for c in updated
    }
    return stmt.on_conflict_do_update(index_elements=list(key), set_=update)


def _converted(values: Sequence[Any], column: Column[Any], dialect: Dialect) -> Sequence[Any]:
    """Driver values of one column through the column type's own bind processor.

    Dates and booleans (Python-level processors, few distinct values) are converted once per
    distinct value; other types (compiled float conversion, JSON) value by value.
    """
    process = column.type.dialect_impl(dialect).bind_processor(dialect)
    if process is None:
        return values
    if not isinstance(column.type, (Date, DateTime, Boolean)):
        return list(map(process, values))
    cache: dict[tuple[type, Any], Any] = {}  # keyed by type too: True and 1 are equal keys otherwise
    return [cache[k] if (k := (v.__class__, v)) in cache else cache.setdefault(k, process(v)) for v in values]


def upsert_columns(
    conn: Connection,
    table: Table,
    columns: Mapping[str, Sequence[Any]],
    key: Sequence[str],
    *,
    overwrite_nulls: bool = False,
) -> int:
    """Insert or update rows given column-wise (equal-length sequences of Python values, None for
    NULL); returns the number of rows sent."""
    names = list(columns)
    count = len(columns[names[0]]) if names else 0
    if not count:
        return 0
    stmt = _statement(conn, table, names, key, overwrite_nulls)
    dialect = conn.dialect
    if dialect.name != "sqlite":
        rows = [dict(zip(names, row, strict=True)) for row in zip(*columns.values(), strict=True)]
        for start in range(0, count, BATCH_ROWS):
            conn.execute(stmt, rows[start : start + BATCH_ROWS])
        return count
    compiled = stmt.compile(dialect=dialect, column_keys=names)
    order = compiled.positiontup or []
    converted = [_converted(columns[name], table.c[name], dialect) for name in order]
    rows_tuples = list(zip(*converted, strict=True))
    for start in range(0, count, BATCH_ROWS):
        conn.exec_driver_sql(compiled.string, rows_tuples[start : start + BATCH_ROWS])
    return count
