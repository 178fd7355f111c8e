"""Token budget per run: refuse a call instead of spending past the limit; also counts the calls."""

from __future__ import annotations

import threading
from collections import defaultdict

from stockdesk.llm_platform.domain.exceptions import TokenBudgetExceededError


class TokenBudget:
    def __init__(self, max_tokens_per_run: int | None):
        self.max_tokens_per_run = max_tokens_per_run
        self._used: dict[str, int] = defaultdict(int)
        self._calls: dict[str, int] = defaultdict(int)
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

    def add(self, run_id: str, tokens: int) -> None:
        with self._lock:
            self._used[run_id] += tokens
            self._calls[run_id] += 1

    def used(self, run_id: str) -> int:
        with self._lock:
            return self._used[run_id]

    def calls(self, run_id: str) -> int:
        """Provider calls that answered (cache hits and failures are not counted)."""
        with self._lock:
            return self._calls[run_id]
