"""A token bucket shared by the provider adapters, so that no provider is called faster than it allows."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

_EPSILON = 1e-9


class TokenBucket:
    """`rate` tokens per second, at most `capacity` saved up; `acquire` blocks until one is free.

    Clock and sleep are injectable so that spacing can be checked by counting, without waiting.
    """

    def __init__(
        self,
        rate: float,
        capacity: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if rate <= 0 or capacity < 1:
            raise ValueError("rate must be positive and capacity at least 1")
        self.rate = rate
        self.capacity = capacity
        self._clock = clock
        self._sleep = sleep
        self._tokens = capacity
        self._stamp = clock()
        self._lock = threading.Lock()

    @classmethod
    def per_minute(cls, calls: float, capacity: float = 1.0, **kwargs: Callable) -> TokenBucket:
        return cls(calls / 60.0, capacity, **kwargs)

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def acquire(self) -> float:
        """Take one token, sleeping as long as needed; returns the seconds waited."""
        waited = 0.0
        with self._lock:
            self._refill()
            while self._tokens < 1.0 - _EPSILON:  # float rounding must not spin on a 1e-16 shortfall
                pause = (1.0 - self._tokens) / self.rate
                self._sleep(pause)
                waited += pause
                self._refill()
            self._tokens -= 1.0
        return waited
