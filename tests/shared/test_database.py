"""Storage: migrations run on first use, are idempotent, and units of work are all-or-nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import func, inspect, select

from stockdesk.llm_platform.infrastructure.persistence.models import LLMResponseCacheRow
from stockdesk.shared.db import Database
from stockdesk.shared.errors import ConfigurationError


def test_first_session_creates_the_schema_in_a_real_sqlite_file(database: Database) -> None:
    assert database.current_revision() is None
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(LLMResponseCacheRow)) == 0
    assert database.current_revision() == database.head_revision()
    assert {"llm_calls", "llm_response_cache"} <= set(inspect(database.engine).get_table_names())


def test_upgrade_is_idempotent(database: Database) -> None:
    first = database.upgrade()
    assert database.upgrade() == first == database.head_revision()


def test_a_failing_unit_of_work_leaves_nothing_behind(database: Database) -> None:
    with pytest.raises(RuntimeError), database.session() as session:
        session.add(LLMResponseCacheRow(key="k", response={}))
        session.flush()
        raise RuntimeError("fail mid-way")
    with database.session() as session:
        assert session.get(LLMResponseCacheRow, "k") is None


def test_missing_postgres_driver_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_psycopg(name: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name.startswith("psycopg"):
            raise ModuleNotFoundError("No module named 'psycopg'", name="psycopg")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_psycopg)
    with pytest.raises(ConfigurationError) as info:
        Database("postgresql://u:p@localhost/x")
    assert "stockdesk[postgres]" in info.value.message
