"""The market data store on PostgreSQL: tests.data_engineering.test_store re-run unchanged
(see conftest)."""

from tests.data_engineering.test_store import *  # noqa: F403
