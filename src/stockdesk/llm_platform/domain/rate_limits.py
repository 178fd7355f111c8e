"""Provider limits (concurrency, requests/min, tokens/min) as one pure bucket book.

Written once and used by both limiters: the in-process one (threads of one process) and the Ray
actor (every worker of a cluster). The book never blocks and never sleeps: `try_acquire` either
grants or says which limit refused and when to look again; the limiters do the waiting.

A grant is a lease: a worker killed mid-call never releases, so its grant expires after
`lease_seconds` (the call's timeout plus a margin) instead of holding a concurrency slot forever.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from stockdesk.llm_platform.domain.dtos import CompletionRequest

Clock = Callable[[], float]

# UTF-8 bytes per token, on the low side: English runs ~4 bytes a token and Chinese (3 bytes a
# character) ~1 token a character, so bytes/3 over-estimates both, never under-estimates Chinese
# the way chars/4 would. It is only a reservation: `release` replaces it by the real count.
BYTES_PER_TOKEN = 3


def estimate_tokens(request: CompletionRequest) -> int:
    """Tokens a request may spend: its prompt (estimated) plus all the output it allows.

    Reserving `max_tokens` whole keeps a burst of calls from overshooting tokens/min before their
    answers say what they really cost; the surplus is given back at release.
    """
    size = sum(len(m.content.encode()) for m in request.messages)
    size += sum(len(t.model_dump_json().encode()) for t in request.tools)
    return -(-size // BYTES_PER_TOKEN) + request.max_tokens


@dataclass(frozen=True)
class ProviderLimits:
    """One alias's limits; None = unlimited."""

    max_concurrency: int | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None

    @property
    def limited(self) -> bool:
        limits = (self.max_concurrency, self.requests_per_minute, self.tokens_per_minute)
        return any(v is not None for v in limits)


@dataclass(frozen=True)
class LimitGrant:
    """Permission for one provider call; hand it back to `release`. An empty id: nothing was limited."""

    grant_id: str
    alias: str
    estimated_tokens: int


@dataclass(frozen=True)
class LimitWait:
    """A refusal: which limit (e.g. "requests_per_minute=60") and when to ask again at the latest."""

    alias: str
    limit: str
    retry_in: float


@dataclass
class GrantRecord:
    """One grant in the log: when it was given and released, and the tokens it counts for."""

    grant_id: str
    alias: str
    granted_at: float
    estimated_tokens: int
    tokens: int  # the estimate until released, then the actual usage
    lease_until: float
    released_at: float | None = None
    expired: bool = False  # its lease ran out before anyone released it (a killed worker)


class LimitBuckets:
    """The state of every alias's limits over a sliding window (60 s unless tests shorten it).

    Not thread-safe on purpose: the in-process limiter holds its lock around it, the Ray actor runs
    it on its single event loop.
    """

    def __init__(
        self,
        limits: Mapping[str, ProviderLimits],
        *,
        window_seconds: float = 60.0,
        clock: Clock = time.monotonic,
        log_size: int = 10_000,
    ):
        self._limits = {a: lim for a, lim in limits.items() if lim.limited}
        self._window_seconds = window_seconds
        self._clock = clock
        self._ids = itertools.count(1)
        self._windows: dict[str, deque[GrantRecord]] = {}
        self._in_flight: dict[str, GrantRecord] = {}
        self._cool_until: dict[str, float] = {}
        self._log: deque[GrantRecord] = deque(maxlen=log_size)

    def configure(self, limits: Mapping[str, ProviderLimits]) -> None:
        """Replace the limits (a newer configuration); grants and windows so far still count."""
        self._limits = {a: lim for a, lim in limits.items() if lim.limited}

    def limits(self, alias: str) -> ProviderLimits | None:
        return self._limits.get(alias)

    def try_acquire(self, alias: str, estimated_tokens: int, lease_seconds: float) -> LimitGrant | LimitWait:
        limits = self._limits.get(alias)
        if limits is None:
            return LimitGrant("", alias, estimated_tokens)
        now = self._clock()
        self._expire(now)
        window = self._window(alias, now)
        refusal = self._refusal(alias, limits, window, estimated_tokens, now)
        if refusal is not None:
            return refusal
        record = GrantRecord(
            grant_id=f"{alias}-{next(self._ids)}",
            alias=alias,
            granted_at=now,
            estimated_tokens=estimated_tokens,
            tokens=estimated_tokens,
            lease_until=now + lease_seconds,
        )
        window.append(record)
        self._in_flight[record.grant_id] = record
        self._log.append(record)
        return LimitGrant(record.grant_id, alias, estimated_tokens)

    def release(self, grant_id: str, actual_tokens: int | None) -> None:
        """End a call; its tokens become `actual_tokens` (None: keep the reservation, e.g. on errors)."""
        record = self._in_flight.pop(grant_id, None)
        if record is None:
            return  # unlimited, already released, or its lease expired
        record.released_at = self._clock()
        if actual_tokens is not None:
            record.tokens = actual_tokens

    def cool_down(self, alias: str, seconds: float) -> None:
        """The provider said "come back in `seconds`" (429): no grants for this alias until then."""
        if alias in self._limits and seconds > 0:
            until = self._clock() + seconds
            self._cool_until[alias] = max(self._cool_until.get(alias, 0.0), until)

    def grant_log(self) -> list[GrantRecord]:
        """The most recent grants, oldest first (tests read it to check the limits held)."""
        return list(self._log)

    def _refusal(
        self,
        alias: str,
        limits: ProviderLimits,
        window: deque[GrantRecord],
        estimated_tokens: int,
        now: float,
    ) -> LimitWait | None:
        cool_until = self._cool_until.get(alias, 0.0)
        if cool_until > now:
            return LimitWait(alias, "the provider's Retry-After", cool_until - now)
        if limits.max_concurrency is not None:
            leases = [r.lease_until for r in self._in_flight.values() if r.alias == alias]
            if len(leases) >= limits.max_concurrency:
                # a release wakes the waiters sooner; the earliest lease end is the latest re-check
                return LimitWait(alias, f"max_concurrency={limits.max_concurrency}", min(leases) - now)
        if limits.requests_per_minute is not None and len(window) >= limits.requests_per_minute:
            oldest = window[len(window) - limits.requests_per_minute]
            return LimitWait(
                alias, f"requests_per_minute={limits.requests_per_minute}", self._leaves_at(oldest, now)
            )
        tpm = limits.tokens_per_minute
        if tpm is not None:
            # a request larger than the whole allowance still goes, alone in an empty window
            excess = sum(r.tokens for r in window) + min(estimated_tokens, tpm) - tpm
            if excess > 0:
                freed = 0
                for record in window:
                    freed += record.tokens
                    if freed >= excess:
                        return LimitWait(alias, f"tokens_per_minute={tpm}", self._leaves_at(record, now))
        return None

    def _leaves_at(self, record: GrantRecord, now: float) -> float:
        return max(0.0, record.granted_at + self._window_seconds - now)

    def _window(self, alias: str, now: float) -> deque[GrantRecord]:
        window = self._windows.setdefault(alias, deque())
        start = now - self._window_seconds
        while window and window[0].granted_at <= start:
            window.popleft()
        return window

    def _expire(self, now: float) -> None:
        for grant_id in [g for g, r in self._in_flight.items() if r.lease_until <= now]:
            record = self._in_flight.pop(grant_id)
            record.expired = True
            record.released_at = now
