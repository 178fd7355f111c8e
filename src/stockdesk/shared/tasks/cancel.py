"""Cooperative cancellation of long work: the job's code asks `check_cancelled()` between steps.

The executor sets a job's token in the context the job runs in; code with no token (a CLI run, a
test) is never cancelled this way (Ctrl-C does that). Checking is cheap: call it per batch or
iteration, never inside a model call.
"""

from __future__ import annotations

import contextvars
import threading

from stockdesk.shared.errors import StockdeskError


class JobCancelled(StockdeskError):
    """The job was cancelled (by a user, or because the server is stopping)."""

    code = "JOB_CANCELLED"
    http_status = 409


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""

    def cancel(self, reason: str = "cancelled") -> None:
        self.reason = reason
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


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
