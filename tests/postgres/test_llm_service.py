"""The LLM call audit on PostgreSQL: tests.llm_platform.test_llm_service re-run unchanged
(see conftest)."""

from tests.llm_platform.test_llm_service import *  # noqa: F403
