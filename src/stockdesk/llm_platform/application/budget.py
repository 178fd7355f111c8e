"""Token budget per run: refuse a call instead of spending past the limit; also counts the calls and
adds up what they cost (USD, by the answering alias's prices; 0 for an unpriced alias)."""

from __future__ import annotations

import threading
from collections import defaultdict

from stockdesk.llm_platform.domain.exceptions import TokenBudgetExceededError


class TokenBudget:
    def __init__(self, max_tokens_per_run: int | None):
        self.max_tokens_per_run = max_tokens_per_run
        self._used: dict[str, int] = defaultdict(int)
        self._calls: dict[str, int] = defaultdict(int)
        self._cost: dict[str, float] = defaultdict(float)
        self._lock = threading.Lock()

    def check(self, run_id: str) -> None:
        if self.max_tokens_per_run is None:
            return
        with self._lock:
            used = self._used[run_id]
        if used >= self.max_tokens_per_run:
            raise TokenBudgetExceededError(
                f"token budget of {self.max_tokens_per_run} for run {run_id} is spent ({used} used); "
                "raise STOCKDESK_MAX_TOKENS_PER_RUN or unset it"
            )

    def add(self, run_id: str, tokens: int, cost_usd: float = 0.0) -> None:
        with self._lock:
            self._used[run_id] += tokens
            self._calls[run_id] += 1
            self._cost[run_id] += cost_usd

    def used(self, run_id: str) -> int:
        with self._lock:
            return self._used[run_id]

    def calls(self, run_id: str) -> int:
        """Provider calls that answered (cache hits and failures are not counted)."""
        with self._lock:
            return self._calls[run_id]

    def cost(self, run_id: str) -> float:
        """USD the run's answered calls cost (0 for calls on unpriced aliases)."""
        with self._lock:
            return self._cost[run_id]
