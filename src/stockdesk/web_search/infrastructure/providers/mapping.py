"""Small helpers every web provider uses to turn raw JSON fields into WebSearchItem values.

Dates are naive UTC, whatever the provider: a string with a zone ("2024-02-28T10:00:00+08:00",
"...Z", RFC 2822 "Wed, 28 Feb 2024 10:00:00 GMT" as Tavily's news results carry it) is converted
to UTC and its zone dropped; a string without zone ("2024-02-28 10:00:00", "2024-02-28") is taken
as it stands, since none of these APIs says which zone it means. An unparseable or missing date is
None, never an error: a result without a date is still a result.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit


def parse_published_date(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        parsed = datetime.fromisoformat(text)  # 3.11: accepts "Z", a space separator, a bare date
    except ValueError:
        try:
            parsed = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


def text(value: Any) -> str:
    """A JSON string field as clean text; null, numbers and objects become ""."""
    return " ".join(value.split()) if isinstance(value, str) else ""


def host_of(url: str) -> str:
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def results_list(value: Any) -> list[dict[str, Any]]:
    """The JSON objects of a results array; a missing or null array is no results, anything else
    (a string, an object) means the answer's shape changed: ValueError."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"expected a list of results, got {type(value).__name__}")
    return [item for item in value if isinstance(item, dict)]
