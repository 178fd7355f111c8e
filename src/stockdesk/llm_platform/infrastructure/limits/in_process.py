"""The limiter for one process: callers are threads, waiting on a condition around the bucket book."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

from stockdesk.llm_platform.domain.ports import IRateLimiter
from stockdesk.llm_platform.domain.rate_limits import (
    GrantRecord,
    LimitBuckets,
    LimitGrant,
    ProviderLimits,
)
from stockdesk.llm_platform.infrastructure.limits import DEFAULT_MAX_WAIT_SECONDS, wait_error
from stockdesk.shared.tasks.cancel import check_cancelled

CANCEL_POLL_SECONDS = 0.5


class InProcessRateLimiter(IRateLimiter):
    def __init__(
        self,
        limits: Mapping[str, ProviderLimits],
        *,
        window_seconds: float = 60.0,
        max_wait_seconds: float = DEFAULT_MAX_WAIT_SECONDS,
    ):
        self._buckets = LimitBuckets(limits, window_seconds=window_seconds)
        self._max_wait = max_wait_seconds
        self._changed = threading.Condition()

    def acquire(self, alias: str, estimated_tokens: int, *, lease_seconds: float) -> LimitGrant:
        started = time.monotonic()
        with self._changed:
            while True:
                outcome = self._buckets.try_acquire(alias, estimated_tokens, lease_seconds)
                if isinstance(outcome, LimitGrant):
                    return outcome
                waited = time.monotonic() - started
                if waited >= self._max_wait:
                    raise wait_error(outcome, waited)
                # a release notifies; the refusal's retry_in bounds the wait for windows and leases,
                # and a cancelled job stops waiting within a poll
                check_cancelled()
                self._changed.wait(
                    min(self._max_wait - waited, outcome.retry_in, CANCEL_POLL_SECONDS) + 0.001
                )

    def release(self, grant: LimitGrant, actual_tokens: int | None) -> None:
        if not grant.grant_id:
            return
        with self._changed:
            self._buckets.release(grant.grant_id, actual_tokens)
            self._changed.notify_all()

    def cool_down(self, alias: str, seconds: float) -> None:
        with self._changed:
            self._buckets.cool_down(alias, seconds)

    def grant_log(self) -> list[GrantRecord]:
        with self._changed:
            return self._buckets.grant_log()
