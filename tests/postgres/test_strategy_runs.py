"""Strategy runs and iterations on PostgreSQL: tests.strategy_lab.test_autonomous_loop re-run
unchanged (runs are created, iterations saved, resumed and read back; see conftest)."""

from tests.strategy_lab.test_autonomous_loop import *  # noqa: F403
