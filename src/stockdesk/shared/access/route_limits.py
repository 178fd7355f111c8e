"""Every route's limits, by what a request of it costs: a rate per minute and a number in flight.

Classes: cheap reads (REST GETs, static files), pages (the web UI's HTML), spending requests (LLM
tokens, search credits), sandbox requests (a backtest starts a sandboxed worker) and uploads (the
web UI's file import). A request is counted against its subject: the API key that authenticated
it, else the client's address (keyless loopback use).

Concurrency is checked before the rate, and a request the rate refuses gives its slot back at
once, so a refused request (429) never uses up the minute's quota. The spending and sandbox
classes are `shared`: their counters live in the database (`stockdesk.shared.db.access_counter_store`)
so every server process on one database enforces one budget per key; the others protect the
process itself and are kept in its memory (`MemoryLimits`).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from stockdesk.shared.access.limits import ConcurrencyLimiter, RateLimiter

BUSY_RETRY_SECONDS = 5  # Retry-After of a refusal for concurrency: the work in flight is short


class LimitClass(StrEnum):
    CHEAP = "cheap"
    PAGE = "page"
    SPENDING = "spending"
    SANDBOX = "sandbox"
    UPLOAD = "upload"


@dataclass(frozen=True)
class ClassLimit:
    per_minute: int  # requests per subject in any 60 seconds
    concurrent: int  # requests in flight per subject (per process for `per_process` classes)
    shared: bool = False  # counted in the database: one budget across server processes
    per_process: bool = False  # the concurrency is the whole process's (uploads: memory and disk)


@dataclass(frozen=True)
class RouteLimits:
    """The defaults (`Settings.api_*`) suit a 2-core machine; spending comes from the policy."""

    cheap: ClassLimit = ClassLimit(per_minute=1200, concurrent=16)
    page: ClassLimit = ClassLimit(per_minute=300, concurrent=8)
    sandbox: ClassLimit = ClassLimit(per_minute=10, concurrent=1, shared=True)
    upload: ClassLimit = ClassLimit(per_minute=10, concurrent=2, per_process=True)

    def of(self, limit_class: LimitClass, spending: ClassLimit) -> ClassLimit:
        if limit_class is LimitClass.SPENDING:
            return spending
        return {
            LimitClass.CHEAP: self.cheap,
            LimitClass.PAGE: self.page,
            LimitClass.SANDBOX: self.sandbox,
            LimitClass.UPLOAD: self.upload,
        }[limit_class]


@dataclass(frozen=True)
class Refusal:
    """A 429: its code, a one-line message, and the seconds to wait (Retry-After)."""

    code: str
    message: str
    retry_after: int
    details: dict[str, int] = field(default_factory=dict)


Release = Callable[[], None]  # gives a request's place in flight back (once: another call does nothing)


def once(release: Release) -> Release:
    """`release`, run at most once whoever calls it how often (the end of a request and the start
    of its answer may both give its place back)."""
    lock = threading.Lock()
    done = False

    def run() -> None:
        nonlocal done
        with lock:
            if done:
                return
            done = True
        release()

    return run


# Where a class's counters are kept (process memory: `MemoryLimits`; the database, shared by the server
# processes: `shared.db.access_counter_store.SqlAccessCounters`), as the two questions `enter` asks:
Lease = Callable[[str, str, int], Release | None]  # (subject, class, at most) -> a place in flight, or None
Admit = Callable[[str, str, int], int]  # (subject, class, per minute) -> 0 admitted, else seconds to wait


def enter(
    lease: Lease, admit: Admit, subject: str, limit_class: LimitClass, limit: ClassLimit
) -> Release | Refusal:
    """Take a place in flight, then count the request against the rate; a rate refusal gives the
    place back, and a concurrency refusal never reaches the rate: refused requests cost no quota."""
    bucket = limit_class.value
    held = lease("*" if limit.per_process else subject, bucket, limit.concurrent)
    if held is None:
        if limit_class is LimitClass.UPLOAD:
            message = f"at most {limit.concurrent} uploads at once on this server; try again shortly"
            return Refusal("UPLOADS_BUSY", message, BUSY_RETRY_SECONDS, {"max": limit.concurrent})
        message = f"at most {limit.concurrent} {bucket} requests at once per key or client"
        return Refusal("TOO_MANY_CONCURRENT", message, BUSY_RETRY_SECONDS, {"max": limit.concurrent})
    wait = admit(subject, bucket, limit.per_minute)
    if wait:
        held()
        message = f"at most {limit.per_minute} {bucket} requests per minute per key or client"
        return Refusal("RATE_LIMITED", message, wait, {"max": limit.per_minute, "seconds": wait})
    return held


class MemoryLimits:
    """The counters of one process (the classes that protect the process itself); the database's
    (`SqlAccessCounters`) answer the same two questions for the shared classes."""

    def __init__(self) -> None:
        self._rates: dict[tuple[str, int], RateLimiter] = {}
        self._slots: dict[tuple[str, int], ConcurrencyLimiter] = {}
        self._lock = threading.Lock()

    def lease(self, subject: str, bucket: str, concurrent: int) -> Release | None:
        """A place among at most `concurrent` in flight (its release), or None when all are taken."""
        with self._lock:
            limiter = self._slots.setdefault((bucket, concurrent), ConcurrencyLimiter(concurrent))
        key = f"{bucket}:{subject}"
        return once(functools.partial(limiter.release, key)) if limiter.try_acquire(key) else None

    def admit(self, subject: str, bucket: str, per_minute: int) -> int:
        """0 when admitted (and counted); otherwise the whole seconds until one would be."""
        with self._lock:
            limiter = self._rates.setdefault((bucket, per_minute), RateLimiter(per_minute))
        return limiter.admit(f"{bucket}:{subject}")
