"""The migrations build exactly the schema the ORM models describe (nothing forgotten either way)."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

import stockdesk.coordinator.infrastructure.persistence.models
import stockdesk.data_engineering.infrastructure.persistence.models
import stockdesk.ledger.infrastructure.persistence.models
import stockdesk.llm_platform.infrastructure.persistence.models
import stockdesk.shared.db.api_key_store
import stockdesk.shared.db.task_store
import stockdesk.strategy_lab.infrastructure.persistence.models  # noqa: F401
from stockdesk.shared.db import Base, Database

FTS_PREFIXES = ("news_fts", "filing_fts")  # FTS5 virtual tables and their shadow tables: SQL-only


def test_migrated_schema_has_no_difference_from_the_models(database: Database) -> None:
    database.upgrade()
    with database.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    real = [d for d in diff if not (d[0] == "remove_table" and d[1].name.startswith(FTS_PREFIXES))]
    assert real == []
