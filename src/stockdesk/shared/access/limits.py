"""Per-key limiters kept in process memory: a request rate and a number of concurrent requests.

Both answer at once (never block): a refused request becomes a 429 with Retry-After, so one
careless client cannot queue up work in the server.
"""

from __future__ import annotations

import math
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable


class RateLimiter:
    """At most `per_minute` admissions per key in any sliding 60-second window."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        if per_minute < 1:
            raise ValueError("per_minute must be at least 1")
        self.per_minute = per_minute
        self._clock = clock
        self._seen: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def admit(self, key: str) -> int:
        """0 when admitted (and counted); otherwise the whole seconds until the next admission."""
        now = self._clock()
        with self._lock:
            seen = self._seen[key]
            while seen and now - seen[0] >= 60.0:
                seen.popleft()
            if len(seen) < self.per_minute:
                seen.append(now)
                return 0
            return max(1, math.ceil(60.0 - (now - seen[0])))


class ConcurrencyLimiter:
    """At most `limit` requests per key in flight at once."""

    def __init__(self, limit: int):
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self._active: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def try_acquire(self, key: str) -> bool:
        with self._lock:
            if self._active[key] >= self.limit:
                return False
            self._active[key] += 1
            return True

    def release(self, key: str) -> None:
        with self._lock:
            self._active[key] = max(0, self._active[key] - 1)

    def active(self, key: str) -> int:
        with self._lock:
            return self._active[key]
