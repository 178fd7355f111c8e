"""ILLMUsage over the one LLMService: the response cache always on, and a meter of this run."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from stockdesk.evaluation.domain.ports import ILLMUsage, Usage
from stockdesk.llm_platform.application.llm_service import LLMService


class LLMUsageAdapter(ILLMUsage):
    def __init__(self, service: Callable[[], LLMService]):
        self._service = service

    def cached_and_metered(self) -> AbstractContextManager[Usage]:
        @contextmanager
        def scope() -> Iterator[Usage]:
            service = self._service()
            with service.cache_scope(), service.usage_scope() as meter:
                usage = Usage()
                try:
                    yield usage
                finally:
                    usage.calls, usage.cache_hits, usage.tokens = meter.calls, meter.cache_hits, meter.tokens
                    usage.cost_usd = meter.cost

        return scope()
