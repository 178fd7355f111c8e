"""Cooperative cancellation of long work: the job's code asks `check_cancelled()` between steps.

The executor sets a job's token in the context the job runs in; code with no token (a CLI run, a
test) is never cancelled this way (Ctrl-C does that). Checking is cheap: call it per batch or
iteration.

Work that blocks (an LLM call waiting on its HTTP answer, a wait for a slot or a retry) cannot ask;
it registers what stops it instead (`cancel_hook`: the provider closes its connection) or waits on
the token itself (`wait_cancelled`), so a cancelled job ends within a second or so rather than
when its call would have answered.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from stockdesk.shared.errors import StockdeskError

logger = logging.getLogger(__name__)


class JobCancelled(StockdeskError):
    """The job was cancelled (by a user, or because the server is stopping)."""

    code = "JOB_CANCELLED"
    http_status = 409


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._hooks: dict[int, Callable[[], None]] = {}
        self._next_hook = 0
        self.reason = ""

    def cancel(self, reason: str = "cancelled") -> None:
        """Mark the job cancelled and run every registered hook once (a hook's failure is logged:
        the others still run)."""
        with self._lock:
            if self._event.is_set():
                return
            self.reason = reason
            self._event.set()
            hooks = list(self._hooks.values())
            self._hooks.clear()
        for hook in hooks:
            _run_hook(hook)

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True as soon as the job is cancelled."""
        return self._event.wait(max(seconds, 0.0))

    def add_hook(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Run `hook` when the job is cancelled (at once when it already is); returns its removal."""
        with self._lock:
            if not self._event.is_set():
                key = self._next_hook
                self._next_hook += 1
                self._hooks[key] = hook
                return lambda: self._remove_hook(key)
        _run_hook(hook)
        return lambda: None

    def _remove_hook(self, key: int) -> None:
        with self._lock:
            self._hooks.pop(key, None)


def _run_hook(hook: Callable[[], None]) -> None:
    try:
        hook()
    except Exception:  # a hook that fails must not keep the others from stopping their work
        logger.exception("a cancel hook failed")


_token: contextvars.ContextVar[CancelToken | None] = contextvars.ContextVar("stockdesk_cancel", default=None)


def current_token() -> CancelToken | None:
    return _token.get()


def set_token(token: CancelToken | None) -> contextvars.Token[CancelToken | None]:
    return _token.set(token)


def check_cancelled() -> None:
    """Raise JobCancelled when the running job was asked to stop."""
    token = _token.get()
    if token is not None and token.cancelled:
        raise JobCancelled(f"job {token.reason}")


def is_cancelled() -> bool:
    """Whether the running job was asked to stop (False outside a job)."""
    token = _token.get()
    return token is not None and token.cancelled


@contextmanager
def cancel_hook(hook: Callable[[], None]) -> Iterator[None]:
    """While the block runs, a cancel of the current job calls `hook` (from the cancelling thread):
    what stops the block's blocking work, such as closing its connection. Outside a job: nothing."""
    token = _token.get()
    if token is None:
        yield
        return
    remove = token.add_hook(hook)
    try:
        yield
    finally:
        remove()


def wait_cancelled(seconds: float) -> bool:
    """Sleep `seconds` unless the current job is cancelled first (then True at once); outside a job
    a plain sleep that returns False."""
    token = _token.get()
    if token is None:
        time.sleep(max(seconds, 0.0))
        return False
    return token.wait(seconds)


def sleep_or_stop(seconds: float) -> None:
    """`wait_cancelled`, raising JobCancelled when the job is cancelled during the sleep (a retry's
    backoff, a wait for a provider's limit)."""
    if wait_cancelled(seconds):
        check_cancelled()
