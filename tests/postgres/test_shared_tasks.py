"""The job/task store on PostgreSQL: tests.shared.test_tasks re-run unchanged
(see conftest)."""

from tests.shared.test_tasks import *  # noqa: F403
