"""JSON text for PostgreSQL's JSON columns, which reject NaN and Infinity.

Python's json writes non-finite floats as `NaN`/`Infinity`, which SQLite stores as text but
PostgreSQL refuses, failing the whole unit of work. They are written as null instead: in this
project a non-finite number means "no value" (see stockdesk.shared.tasks.canonical).
"""

from __future__ import annotations

import json
import math
from typing import Any


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def strict_json_dumps(value: Any) -> str:
    """json.dumps, with non-finite floats as null (only walks the value when it has one)."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(value), allow_nan=False)
