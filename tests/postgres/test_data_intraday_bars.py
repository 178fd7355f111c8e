"""The 5-minute bar store on PostgreSQL: tests.data_engineering.test_intraday_bars re-run unchanged
(see conftest)."""

from tests.data_engineering.test_intraday_bars import *  # noqa: F403
