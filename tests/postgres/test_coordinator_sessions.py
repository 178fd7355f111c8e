"""Research sessions on PostgreSQL: tests.coordinator.test_coordinator re-run unchanged
(see conftest)."""

from tests.coordinator.test_coordinator import *  # noqa: F403
