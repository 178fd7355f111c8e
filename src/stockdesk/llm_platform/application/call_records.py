"""What an LLM call leaves behind: its audit row, the run's token budget and the usage meters.

LLMService calls (routing, retries, fail-over, limits, cache); this records. The split keeps each
side readable: a change to how calls are counted or audited never touches how they are made.
"""

from __future__ import annotations

import contextvars
import logging
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from stockdesk.llm_platform.application.budget import TokenBudget
from stockdesk.llm_platform.application.usage_meter import UsageMeter
from stockdesk.llm_platform.domain.dtos import (
    AuditedCall,
    CompletionResponse,
    LLMCallRecord,
    TokenUsage,
    ToolCallRecord,
)
from stockdesk.llm_platform.domain.ports import ILLMStore
from stockdesk.shared.errors import ConfigurationError
from stockdesk.shared.run_scope import active_run_id

logger = logging.getLogger(__name__)

_meters: contextvars.ContextVar[tuple[UsageMeter, ...]] = contextvars.ContextVar(
    "stockdesk_llm_usage_meters", default=()
)


class CallRecords:
    def __init__(self, audit: ILLMStore | None, budget: TokenBudget | None):
        self._audit = audit
        self._budget = budget or TokenBudget(None)
        self._process_run_id = uuid.uuid4().hex[:12]

    # ---- runs and meters ----------------------------------------------------------------------
    @property
    def current_run_id(self) -> str:
        """The run of `shared.run_scope`, else this process's own id."""
        return active_run_id() or self._process_run_id

    @contextmanager
    def usage_scope(
        self, max_tokens: int | None = None, *, max_cost_usd: float | None = None
    ) -> Iterator[UsageMeter]:
        """A meter counting every call inside the block (see `LLMService.usage_scope`)."""
        meter = UsageMeter(max_tokens, max_cost_usd)
        token = _meters.set((*_meters.get(), meter))
        try:
            yield meter
        finally:
            _meters.reset(token)

    def tokens_used(self, run_id: str | None = None) -> int:
        return self._budget.used(run_id or self.current_run_id)

    def calls_made(self, run_id: str | None = None) -> int:
        return self._budget.calls(run_id or self.current_run_id)

    def cost(self, run_id: str) -> float:
        return self._budget.cost(run_id)

    def admit(self) -> tuple[str, tuple[UsageMeter, ...]]:
        """Before a call: its run and the meters open now; raises when the run's budget or a
        meter's is spent (TokenBudgetExceededError)."""
        run_id = self.current_run_id
        self._budget.check(run_id)
        meters = _meters.get()
        for meter in meters:
            meter.check()
        return run_id, meters

    @staticmethod
    def cache_hit(meters: Sequence[UsageMeter]) -> None:
        for meter in meters:
            meter.add_cache_hit()

    @staticmethod
    def failed(meters: Sequence[UsageMeter]) -> None:
        for meter in meters:
            meter.add_error()

    def spent(self, run_id: str, meters: Sequence[UsageMeter], usage: TokenUsage, cost: float) -> None:
        self._budget.add(run_id, usage.total_tokens, cost)
        for meter in meters:
            meter.add_call(usage, cost)

    # ---- the audit ----------------------------------------------------------------------------
    def answered(
        self,
        alias: str,
        run_id: str,
        caller: str | None,
        tags: Sequence[str],
        prompt_hash: str,
        response: CompletionResponse,
        latency: float,
        status: str,
        call_id: str,
    ) -> None:
        """The audit row of an answer (`status` ok, or cached for a replayed one)."""
        ok = status == "ok"
        self._write(
            LLMCallRecord(
                run_id=run_id,
                caller=caller,
                alias=alias,
                provider=response.provider,
                model=response.model,
                prompt_hash=prompt_hash,
                prompt_tokens=response.usage.prompt_tokens if ok else 0,
                completion_tokens=response.usage.completion_tokens if ok else 0,
                # a replayed answer evaluated nothing now; its stored counts are of the first call
                prompt_tokens_evaluated=response.usage.prompt_tokens_evaluated if ok else None,
                prompt_tokens_cached=response.usage.prompt_tokens_cached if ok else None,
                latency_seconds=round(latency, 3),
                status=status,  # type: ignore[arg-type]
                tags=list(tags),
                call_id=call_id,
                tool_calls=[c.model_dump(include={"id", "name", "arguments"}) for c in response.tool_calls],
            )
        )

    def errored(
        self,
        where: tuple[str, str, str],
        run_id: str,
        caller: str | None,
        tags: Sequence[str],
        prompt_hash: str,
        exc: Exception,
        latency: float,
        status: str = "error",
    ) -> None:
        """The audit row of a call that failed; `where` is (alias, provider, model)."""
        alias, provider, model = where
        self._write(
            LLMCallRecord(
                run_id=run_id,
                caller=caller,
                alias=alias,
                provider=provider,
                model=model,
                prompt_hash=prompt_hash,
                latency_seconds=round(latency, 3),
                status=status,  # type: ignore[arg-type]
                error_class=type(exc).__name__,
                error_message=str(exc)[:500],
                tags=list(tags),
            )
        )

    def tool_calls(self, records: Sequence[ToolCallRecord]) -> None:
        """Audit the tool calls a caller ran for a model (see `LLMResult.call_id`)."""
        if self._audit is None or not records:
            return
        try:
            self._audit.record_tools(list(records))
        except Exception:  # the audit must never break a call
            logger.exception("could not persist the tool call audit records")

    def recent(self, limit: int = 20) -> list[AuditedCall]:
        if self._audit is None:
            raise ConfigurationError("the LLM call audit needs a database, and none is configured")
        return self._audit.recent(limit)

    def _write(self, record: LLMCallRecord) -> None:
        if self._audit is None:
            return
        try:
            self._audit.record(record)
        except Exception:  # the audit must never break a call
            logger.exception("could not persist the LLM call audit record")
