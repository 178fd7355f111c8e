"""Sync state and resumable syncs on PostgreSQL: tests.data_engineering.test_sync re-run unchanged
(see conftest)."""

from tests.data_engineering.test_sync import *  # noqa: F403
