"""Canonical JSON and sha256: the one spelling of a value that every hash in the ledger covers.

Canonical JSON = sorted keys, no spaces (`separators=(",", ":")`), UTF-8 text (no `\\u` escapes for
non-ASCII), no NaN or inf (a non-finite float is written as null, as the session store does), dates
and datetimes in ISO 8601. Two equal values always give the same text, so the same bytes and hash.
"""

from __future__ import annotations

import hashlib
import json
import math
from datetime import date, datetime
from enum import Enum
from typing import Any


def _plain(value: Any) -> Any:
    """`value` with non-finite floats as None and dates as ISO text (json.dumps' `default` never
    sees a float, so NaN has to be replaced before dumping)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Enum):
        return _plain(value.value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def canonical_json(value: Any) -> str:
    """The canonical JSON text of `value` (see the module docstring)."""
    return json.dumps(
        _plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
