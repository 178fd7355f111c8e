"""Two real server processes on one PostgreSQL database enforce one budget per key (the SQLite run
is tests.entrypoints.test_shared_limits)."""

from __future__ import annotations

from pathlib import Path

from tests.entrypoints.test_shared_limits import two_servers_share_one_budget


def test_two_server_processes_on_one_postgresql_database_enforce_one_budget_per_key(
    tmp_path: Path, postgres_migrated_url: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    two_servers_share_one_budget(home, postgres_migrated_url)
