"""The limiter every Ray worker shares: one named, detached actor holding the bucket book.

Named `stockdesk-llm-limits` in the job's namespace and created by whichever worker asks first
(`get_if_exists`): all workers of a run, on every node, see the same counts. Detached, so that
neither the driver's death (a resumed run) nor a killed worker takes the counts with it; a grant
of a killed worker frees itself when its lease ends.

The actor is asynchronous: a waiting `acquire` parks on an event instead of blocking the actor,
so releases (which wake the waiters) keep flowing. It asks for no CPU, leaving those to tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Mapping
from typing import Any

import ray

from stockdesk.llm_platform.domain.ports import IRateLimiter
from stockdesk.llm_platform.domain.rate_limits import (
    GrantRecord,
    LimitBuckets,
    LimitGrant,
    LimitWait,
    ProviderLimits,
)
from stockdesk.llm_platform.infrastructure.limits import DEFAULT_MAX_WAIT_SECONDS, wait_error

LIMITS_ACTOR = "stockdesk-llm-limits"


class LimitsActor:
    """The bucket book behind an event loop (runs as a Ray actor)."""

    def __init__(self, limits: Mapping[str, ProviderLimits], window_seconds: float):
        self._buckets = LimitBuckets(limits, window_seconds=window_seconds)
        self._changed = asyncio.Event()

    async def configure(self, limits: Mapping[str, ProviderLimits]) -> None:
        """A worker brings its configuration: the newest one replaces the limits (the counts stay)."""
        self._buckets.configure(limits)
        self._wake()

    async def acquire(
        self, alias: str, estimated_tokens: int, lease_seconds: float, max_wait_seconds: float
    ) -> tuple[LimitGrant | LimitWait, float]:
        """A grant, or the last refusal after `max_wait_seconds`; with the seconds waited."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        while True:
            # no await between the check and the grant: the event loop makes it atomic
            outcome = self._buckets.try_acquire(alias, estimated_tokens, lease_seconds)
            waited = loop.time() - started
            if isinstance(outcome, LimitGrant) or waited >= max_wait_seconds:
                return outcome, waited
            # a release wakes every waiter; the refusal's retry_in bounds the wait otherwise
            timeout = min(max_wait_seconds - waited, outcome.retry_in) + 0.001
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout)

    async def release(self, grant_id: str, actual_tokens: int | None) -> None:
        self._buckets.release(grant_id, actual_tokens)
        self._wake()

    async def cool_down(self, alias: str, seconds: float) -> None:
        self._buckets.cool_down(alias, seconds)

    async def grant_log(self) -> list[GrantRecord]:
        return self._buckets.grant_log()

    def _wake(self) -> None:
        """Wake every waiter (each re-checks); later waiters wait on a fresh event."""
        self._changed.set()
        self._changed = asyncio.Event()


class RayRateLimiter(IRateLimiter):
    """What a worker's LLMService holds: forwards to the shared actor, found or created on first use.

    Aliases without limits never reach the actor, so unlimited providers cost no round trip.
    """

    def __init__(
        self,
        limits: Mapping[str, ProviderLimits],
        *,
        actor_name: str = LIMITS_ACTOR,
        window_seconds: float = 60.0,
        max_wait_seconds: float = DEFAULT_MAX_WAIT_SECONDS,
    ):
        self._limits = {a: lim for a, lim in limits.items() if lim.limited}
        self._actor_name = actor_name
        self._window_seconds = window_seconds
        self._max_wait = max_wait_seconds
        self._handle: Any = None
        self._lock = threading.Lock()

    def acquire(self, alias: str, estimated_tokens: int, *, lease_seconds: float) -> LimitGrant:
        if alias not in self._limits:
            return LimitGrant("", alias, estimated_tokens)
        ref = self._actor().acquire.remote(alias, estimated_tokens, lease_seconds, self._max_wait)
        outcome, waited = ray.get(ref)
        if isinstance(outcome, LimitWait):
            raise wait_error(outcome, waited)
        return outcome

    def release(self, grant: LimitGrant, actual_tokens: int | None) -> None:
        if grant.grant_id:
            ray.get(self._actor().release.remote(grant.grant_id, actual_tokens))

    def cool_down(self, alias: str, seconds: float) -> None:
        if alias in self._limits:
            ray.get(self._actor().cool_down.remote(alias, seconds))

    def grant_log(self) -> list[GrantRecord]:
        return ray.get(self._actor().grant_log.remote())

    def _actor(self) -> Any:
        with self._lock:
            if self._handle is None:
                handle = (
                    ray.remote(LimitsActor)
                    .options(name=self._actor_name, get_if_exists=True, lifetime="detached", num_cpus=0)
                    .remote(self._limits, self._window_seconds)
                )
                ray.get(handle.configure.remote(self._limits))
                self._handle = handle
            return self._handle
