"""What the LLM calls of one `LLMService.usage_scope` spent: calls, tokens and money."""

from __future__ import annotations

import threading

from stockdesk.llm_platform.domain.dtos import TokenUsage
from stockdesk.llm_platform.domain.exceptions import TokenBudgetExceededError


class UsageMeter:
    """Counts of one scope; safe to update from threads.

    `calls` are provider calls that answered (a cache hit is not a call, and neither is a failed
    attempt: those are `errors`); the token counts and `cost` (USD, at each alias's configured
    prices) are of those calls only. A batch task's result carries `as_dict()`, which is how a
    run-wide budget adds up what the workers spent.
    """

    def __init__(self, max_tokens: int | None = None, max_cost_usd: float | None = None) -> None:
        self._lock = threading.Lock()
        self.max_tokens = max_tokens  # calls inside the scope are refused once this many are spent
        self.max_cost_usd = max_cost_usd  # ... or once this much money is
        self.calls = 0
        self.cache_hits = 0
        self.errors = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def check(self) -> None:
        """Refuse the next call once this scope's token or cost budget is spent."""
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            raise TokenBudgetExceededError(
                f"this request's token budget of {self.max_tokens} is spent ({self.tokens} used)"
            )
        if self.max_cost_usd is not None and self.cost >= self.max_cost_usd:
            raise TokenBudgetExceededError(
                f"this request's cost budget of ${self.max_cost_usd:.4f} is spent (${self.cost:.4f} used)"
            )

    def add_call(self, usage: TokenUsage, cost: float = 0.0) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens
            self.cost += cost

    def add_cache_hit(self) -> None:
        with self._lock:
            self.cache_hits += 1

    def add_error(self) -> None:
        with self._lock:
            self.errors += 1

    def as_dict(self) -> dict[str, int | float]:
        with self._lock:
            return {
                "calls": self.calls,
                "cache_hits": self.cache_hits,
                "errors": self.errors,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "tokens": self.prompt_tokens + self.completion_tokens,
                "cost_usd": round(self.cost, 6),
            }

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v}" for k, v in self.as_dict().items())
        return f"UsageMeter({fields})"
