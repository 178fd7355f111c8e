"""Every migration has a working downgrade, on SQLite and PostgreSQL: the schema one step down is
exactly the schema that step had on the way up, base leaves nothing, and head again matches the models."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

import stockdesk
from stockdesk.shared.db import Base, Database
from tests.postgres.both import sqlite_and_postgres  # noqa: F401

FTS_PREFIXES = ("news_fts", "filing_fts")  # SQLite FTS5 tables: made by SQL, not by the models


INDEX_SQL_POSTGRES = (
    "SELECT indexname, indexdef FROM pg_indexes"
    " WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
)
INDEX_SQL_SQLITE = (
    "SELECT name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL"
)


def sql_only(difference: tuple[Any, ...]) -> bool:
    """The full-text objects migration 0003 makes in SQL: FTS5 tables, PostgreSQL's GIN indexes."""
    kind, item = difference[0], difference[1]
    if kind == "remove_table":
        return item.name.startswith(FTS_PREFIXES)
    return kind == "remove_index" and item.name.endswith("_search_text")


def import_all_models() -> None:
    """Every module that can hold ORM models (each context's persistence models, shared/db stores)."""
    src = Path(stockdesk.__file__).parent
    files = [*src.glob("*/infrastructure/persistence/models.py"), *src.glob("shared/db/*.py")]
    for file in files:
        importlib.import_module(".".join(("stockdesk", *file.relative_to(src).with_suffix("").parts)))


def schema(database: Database) -> dict[str, Any]:
    """Tables with their columns, indexes, unique and foreign keys (and sequences on PostgreSQL)."""
    found = inspect(database.engine)
    tables = {
        name: (
            sorted((c["name"], str(c["type"]), c["nullable"]) for c in found.get_columns(name)),
            sorted((i["name"], tuple(i["column_names"])) for i in found.get_indexes(name)),
            sorted(str(u["name"]) for u in found.get_unique_constraints(name)),
            sorted(tuple(f["constrained_columns"]) for f in found.get_foreign_keys(name)),
        )
        for name in found.get_table_names()
        if name != "alembic_version"
    }
    postgres = database.engine.dialect.name == "postgresql"
    sequences = found.get_sequence_names() if postgres else []
    with database.engine.connect() as conn:  # index definitions: expression indexes included
        sql = INDEX_SQL_POSTGRES if postgres else INDEX_SQL_SQLITE
        definitions = sorted(tuple(row) for row in conn.execute(text(sql)))
    return {"tables": tables, "sequences": sorted(sequences), "indexes": definitions}


def revisions(database: Database) -> list[str]:
    """Revision ids from base to head."""
    script = ScriptDirectory.from_config(database._alembic_config())
    return [r.revision for r in reversed(list(script.walk_revisions("base", "heads")))]


def test_every_downgrade_undoes_its_upgrade_step_by_step(database: Database) -> None:
    config = database._alembic_config()
    steps = revisions(database)
    assert len(steps) >= 9 and database.current_revision() is None
    pairs = list(zip([None, *steps[:-1]], steps, strict=True))  # (revision below, revision)
    before = {None: schema(database)}
    for _, revision in pairs:
        command.upgrade(config, revision)
        before[revision] = schema(database)
    for below, revision in reversed(pairs):
        assert database.current_revision() == revision
        command.downgrade(config, "-1")
        assert schema(database) == before[below], f"downgrade of {revision} does not restore {below}"
    assert database.current_revision() is None
    assert schema(database) == {"tables": {}, "sequences": [], "indexes": []}


def test_head_base_head_round_trip_ends_at_the_models_schema(database: Database) -> None:
    config = database._alembic_config()
    assert database.upgrade() == database.head_revision()
    at_head = schema(database)
    command.downgrade(config, "base")
    assert schema(database)["tables"] == {}
    command.upgrade(config, "head")
    assert schema(database) == at_head
    import_all_models()
    with database.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    real = [d for d in diff if not sql_only(d)]
    assert real == []
