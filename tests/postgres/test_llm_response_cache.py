"""The LLM response cache on PostgreSQL: tests.llm_platform.test_response_cache re-run unchanged
(see conftest)."""

from tests.llm_platform.test_response_cache import *  # noqa: F403
