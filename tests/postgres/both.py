"""`from tests.postgres.both import sqlite_and_postgres` runs a module's tests on both databases."""

from __future__ import annotations

import pytest

from tests.postgres.conftest import SQLITE


@pytest.fixture(name="postgres_database_url", params=[SQLITE, "postgresql"])
def sqlite_and_postgres(request: pytest.FixtureRequest) -> str | None:
    """An empty SQLite file (None: the settings' default) or an empty PostgreSQL database."""
    return None if request.param == SQLITE else request.getfixturevalue("postgres_url")
