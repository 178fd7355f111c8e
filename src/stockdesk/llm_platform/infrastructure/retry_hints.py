"""How long a provider asked us to wait, from its response headers.

In order of precision: `retry-after-ms` (OpenAI), `Retry-After` (RFC 9110: seconds or an HTTP
date), then the `x-ratelimit-reset-requests` / `-tokens` pair (OpenAI's "6m0s", "1s", "250ms"),
of which the later one is taken: either bucket may be the one that ran out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def retry_after_seconds(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds to wait before the next try, or None when the provider gave no usable hint."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = _number(lowered.get("retry-after-ms"))
    if millis is not None:
        return max(0.0, millis / 1000)
    retry_after = lowered.get("retry-after")
    if retry_after:
        seconds = _number(retry_after)
        if seconds is None:
            seconds = _seconds_until(retry_after, now or datetime.now(UTC))
        if seconds is not None:
            return max(0.0, seconds)
    resets = [
        _duration(lowered.get(name)) for name in ("x-ratelimit-reset-requests", "x-ratelimit-reset-tokens")
    ]
    known = [s for s in resets if s is not None]
    return max(known) if known else None


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text.strip())
    except ValueError:
        return None


def _seconds_until(http_date: str, now: datetime) -> float | None:
    try:
        when = parsedate_to_datetime(http_date)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - now).total_seconds()


def _duration(text: str | None) -> float | None:
    """ "6m0s" -> 360, "1.5s" -> 1.5, "250ms" -> 0.25, "2" -> 2 (plain seconds)."""
    if not text:
        return None
    plain = _number(text)
    if plain is not None:
        return plain
    text = text.strip()
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)
