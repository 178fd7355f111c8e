"""The server's access policy: when keys are required, which hosts and origins are accepted, limits.

Built once at start-up from the settings and the address the server binds (`for_server`). Keys are
required on every route but health and docs when the server listens beyond loopback, and on the
LLM- or search-spending routes always, unless the operator said `--no-auth` (loopback only).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from enum import StrEnum

from stockdesk.shared.access.route_limits import RouteLimits

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


class AuthMode(StrEnum):
    ALL = "all"  # every route but health and docs
    SPENDING = "spending"  # the routes that spend LLM tokens or search credits
    NONE = "none"  # --no-auth on loopback


def is_loopback(host: str) -> bool:
    """True for loopback names and addresses (what `--host` may be without keys everywhere)."""
    name = host.strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class AccessPolicy:
    auth: AuthMode = AuthMode.SPENDING
    allowed_hosts: tuple[str, ...] = LOOPBACK_NAMES
    cors_origins: tuple[str, ...] = ()
    max_body_bytes: int = 1_000_000
    max_upload_bytes: int = 64_000_000  # the web UI's file import: a year of minute bars is tens of MB
    rate_per_minute: int = 30
    max_concurrent_per_key: int = 2
    max_tokens_per_request: int | None = 200_000
    max_tokens_per_day: int | None = 2_000_000
    public_paths: frozenset[str] = field(default_factory=frozenset)
    route_limits: RouteLimits = field(default_factory=RouteLimits)  # the other classes' limits

    def host_allowed(self, host_header: str) -> bool:
        """The Host header's name (port stripped) is on the allowlist; '*' allows any."""
        if "*" in self.allowed_hosts:
            return True
        name = _host_name(host_header)
        return bool(name) and name in {h.lower().strip("[]") for h in self.allowed_hosts}

    def origin_allowed(self, origin: str, host_header: str) -> bool:
        """Same origin as the Host the request was sent to, or a configured CORS origin."""
        origin = origin.rstrip("/").lower()
        if origin in {o.rstrip("/").lower() for o in self.cors_origins}:
            return True
        _, _, rest = origin.partition("://")
        return bool(rest) and rest == host_header.lower()


def _host_name(host_header: str) -> str:
    value = host_header.strip().lower()
    if value.startswith("["):  # [::1]:8000
        return value[1 : value.find("]")] if "]" in value else ""
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value
