"""On the real embedded model: a second call that starts like the first reuses its prompt cache.

Two research-expert-shaped calls (the experts' shared system prompt, different user turns) on a
fresh server: the first evaluates its whole prompt, the second only what follows the shared prefix,
and the audit rows say so.
"""

from __future__ import annotations

import pytest

from stockdesk.llm_platform.container import build_llm_service
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.research.infrastructure.agents.structured_agent import shared_system_prompt
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database

pytestmark = pytest.mark.slow

SHARED_TOKENS_AT_LEAST = 300  # the shared system text is 401 tokens


def test_a_shared_prefix_is_evaluated_once(settings: Settings, database: Database) -> None:
    service = build_llm_service(settings, database)
    try:
        with service.run_scope("prompt-cache-it"):
            for expert in ("估值建模师", "技术分析师"):
                service.generate(
                    f'## 你的任务：{expert}\n只输出 JSON：{{"ok": true}}',
                    shared_system_prompt(),
                    caller=f"test.{expert}",
                    max_tokens=8,
                    temperature=0.0,
                )
    finally:
        service.close()
    first, second = SqlLLMStore(database).list_for_run("prompt-cache-it")
    assert (first.prompt_tokens_evaluated, first.prompt_tokens_cached) == (first.prompt_tokens, 0)
    assert second.prompt_tokens_cached is not None and second.prompt_tokens_evaluated is not None
    assert second.prompt_tokens_cached >= SHARED_TOKENS_AT_LEAST
    assert second.prompt_tokens_evaluated + second.prompt_tokens_cached == second.prompt_tokens
    assert second.prompt_tokens_evaluated < second.prompt_tokens - SHARED_TOKENS_AT_LEAST
