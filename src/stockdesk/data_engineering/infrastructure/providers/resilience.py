"""One way to call a remote source: rate limit, timeout, retries with exponential backoff.

Only transient errors are retried (network errors, timeouts, HTTP 429/5xx, SDK rate-limit errors);
anything else (a changed response shape, an unknown symbol) fails at once. Whatever still fails is
raised as `ProviderUnavailableError` with a one-line reason that the sync records.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from stockdesk.data_engineering.domain.exceptions import ProviderUnavailableError
from stockdesk.data_engineering.infrastructure.providers.rate_limit import TokenBucket
from stockdesk.shared.errors import StockdeskError

T = TypeVar("T")
REASON_CHARS = 300
# Tushare raises a plain Exception with this text when its per-minute quota is used up
THROTTLED_MARKERS = ("每分钟最多访问", "too many requests")


@dataclass(frozen=True)
class CallPolicy:
    """Timeout per call, attempts per call and the first backoff pause (doubling, capped)."""

    timeout: float = 20.0
    attempts: int = 3
    backoff: float = 1.0
    max_backoff: float = 15.0


# What `data sync` uses: a dead network costs ~1.5 s per call (0.5 s + 1 s of backoff), not minutes.
SYNC_POLICY = CallPolicy(timeout=15.0, attempts=3, backoff=0.5, max_backoff=4.0)


def is_transient(exc: BaseException) -> bool:
    """Worth another try: network trouble, timeouts, throttling, server errors."""
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code == 429 or exc.response.status_code >= 500
    if isinstance(exc, (OSError, httpx.TransportError)):  # requests/curl_cffi errors are OSErrors
        return True
    if "ratelimit" in type(exc).__name__.lower():
        return True
    return any(marker in str(exc).lower() for marker in THROTTLED_MARKERS)


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    text = f"{type(exc).__name__}: {text}"
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 3] + "..."


def run_with_timeout(fn: Callable[..., T], seconds: float, /, *args: Any, **kwargs: Any) -> T:
    """Run `fn` in a daemon thread; SDKs without a timeout parameter cannot hang the sync."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # handed back to the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True, name="provider-call")
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise TimeoutError(f"no answer within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


class ProviderCaller:
    """Calls of one provider: all share its token bucket and its policy."""

    def __init__(
        self,
        provider: str,
        limiter: TokenBucket,
        policy: CallPolicy = CallPolicy(),
        *,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.provider = provider
        self.limiter = limiter
        self.policy = policy
        self._sleep = sleep
        self.calls = 0

    def __call__(self, what: str, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        retrying = Retrying(
            stop=stop_after_attempt(self.policy.attempts),
            wait=wait_exponential(multiplier=self.policy.backoff, max=self.policy.max_backoff),
            retry=retry_if_exception(is_transient),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    self.limiter.acquire()
                    self.calls += 1
                    return run_with_timeout(fn, self.policy.timeout, *args, **kwargs)
        except StockdeskError:
            raise
        except Exception as exc:
            raise ProviderUnavailableError(f"{self.provider} {what}: {one_line(exc)}") from exc
        raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover
