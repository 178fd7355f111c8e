"""The migrations build exactly the schema the ORM models describe (nothing forgotten either way)."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from stockdesk.shared.db import Base, Database

FTS_PREFIXES = ("news_fts", "filing_fts")  # FTS5 virtual tables and their shadow tables: SQL-only


def test_migrated_schema_has_no_difference_from_the_models(database: Database) -> None:
    database.upgrade()
    with database.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    real = [d for d in diff if not (d[0] == "remove_table" and d[1].name.startswith(FTS_PREFIXES))]
    assert real == []
