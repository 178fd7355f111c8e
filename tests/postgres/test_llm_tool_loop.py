"""Audited tool calls on PostgreSQL: tests.llm_platform.test_tool_loop re-run unchanged
(see conftest)."""

from tests.llm_platform.test_tool_loop import *  # noqa: F403
