"""Search audit and cache on PostgreSQL: tests.web_search.test_search_service re-run unchanged
(see conftest)."""

from tests.web_search.test_search_service import *  # noqa: F403
