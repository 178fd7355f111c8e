"""Resuming jobs on PostgreSQL: tests.shared.test_tasks_resume re-run unchanged
(see conftest)."""

from tests.shared.test_tasks_resume import *  # noqa: F403
