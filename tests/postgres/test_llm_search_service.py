"""Search audit and cache on PostgreSQL: tests.llm_platform.test_search_service re-run unchanged
(see conftest)."""

from tests.llm_platform.test_search_service import *  # noqa: F403
