"""The access a request was granted, carried in a context variable into the work it starts.

Background jobs run in a copy of the submitting request's context, so the tokens they spend later
are still charged to the request's key: `record()` adds whatever was spent since the last record.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class AccessGrant:
    key_id: str  # "local": the loopback UI's own sessions, and every caller under --no-auth
    run_id: str  # the LLM run the request's calls are attributed (and budgeted) to
    spent: Callable[[], int]  # tokens spent so far under run_id
    charge: Callable[[int], None]  # adds tokens to the key's usage of today
    _recorded: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self) -> int:
        """Charge the key with the tokens spent since the last record; returns them."""
        with self._lock:
            delta = self.spent() - self._recorded
            if delta <= 0:
                return 0
            self._recorded += delta
        self.charge(delta)
        return delta


_grant: contextvars.ContextVar[AccessGrant | None] = contextvars.ContextVar("stockdesk_grant", default=None)


def current_grant() -> AccessGrant | None:
    return _grant.get()


def set_grant(grant: AccessGrant | None) -> contextvars.Token[AccessGrant | None]:
    return _grant.set(grant)


def reset_grant(token: contextvars.Token[AccessGrant | None]) -> None:
    _grant.reset(token)
