"""Tests under tests/postgres run on the session's PostgreSQL server (marker `postgres`).

STOCKDESK_DATABASE_URL points at a fresh database per test, so the shared `settings` and
`database` fixtures, app containers and the CLI all use PostgreSQL, and existing test modules
imported here re-run on it unchanged. A module overrides `postgres_database_url` to get an empty
(unmigrated) database (`postgres_url`), or None to leave a test on SQLite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stockdesk.shared.config import get_settings

HERE = Path(__file__).parent
SQLITE = "sqlite"  # the parameter value of a test variant that stays on SQLite


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_sqlite = callspec is not None and SQLITE in callspec.params.values()
        if HERE in Path(item.path).parents and not on_sqlite:
            item.add_marker(pytest.mark.postgres)


@pytest.fixture
def postgres_database_url(postgres_migrated_url: str) -> str | None:
    return postgres_migrated_url


@pytest.fixture(autouse=True)
def on_postgres(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, postgres_database_url: str | None
) -> str | None:
    """Point this test's settings at its own PostgreSQL database (None: stay on SQLite)."""
    if postgres_database_url is not None:
        monkeypatch.setenv("STOCKDESK_DATABASE_URL", postgres_database_url)
        get_settings.cache_clear()
    return postgres_database_url
