"""Point-in-time reads on PostgreSQL: tests.data_engineering.test_point_in_time re-run unchanged
(see conftest)."""

from tests.data_engineering.test_point_in_time import *  # noqa: F403
