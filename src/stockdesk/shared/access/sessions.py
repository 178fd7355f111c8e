"""Web UI sign-in sessions: what the UI's cookie names, so the cookie never holds an API key.

A session id is 256 random bits, given to the browser once in an HttpOnly cookie; the store keeps
only its sha256 (like API keys: random, so a plain digest cannot be reversed). A session was opened
either by signing in with a key (it acts as that key, and ends when the key is revoked) or, on a
loopback server, by the UI itself for the local user (`LOCAL`), whose spending has its own daily
budget. Logging out deletes the row: the old cookie then names nothing.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from pydantic import BaseModel

LOCAL = "local"  # the key id of the loopback user: the UI's own sessions, and requests under --no-auth
SESSION_TTL = timedelta(days=30)  # a session's whole life, and its cookie's Max-Age
COOKIE_BASE = "stockdesk_session"


def new_session_id() -> str:
    """A fresh session id (the only time it exists in clear: it goes into the cookie)."""
    return secrets.token_urlsafe(32)


def session_cookie_name(host_header: str) -> str:
    """The cookie's name for the server the Host header names: `stockdesk_session_<port>`.

    Browsers share cookies between the ports of one host, so two servers on 127.0.0.1 would
    otherwise overwrite each other's session with every page; a Host without a port (port 80 or
    443, or behind a proxy) uses the bare name."""
    value = host_header.strip()
    _, bracket, after = value.rpartition("]")  # [::1]:8000
    rest = after if bracket else value
    port = rest.rpartition(":")[2] if rest.count(":") == 1 else ""
    return f"{COOKIE_BASE}_{port}" if port.isdigit() else COOKIE_BASE


class UiSession(BaseModel):
    key_id: str  # the key it was opened with, or LOCAL
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime

    @property
    def local(self) -> bool:
        return self.key_id == LOCAL
