"""The REST access rules and every route's limits on PostgreSQL: tests.entrypoints.test_access and
tests.entrypoints.test_route_limits re-run unchanged (the spending and backtest counters, the key
store and its daily usage are then PostgreSQL's)."""

from tests.entrypoints.test_access import *  # noqa: F403
from tests.entrypoints.test_route_limits import *  # noqa: F403
