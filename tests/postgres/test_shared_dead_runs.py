"""Dead runs recovered on PostgreSQL: tests.shared.test_dead_runs re-run unchanged (see conftest)."""

from tests.shared.test_dead_runs import *  # noqa: F403
