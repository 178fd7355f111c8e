"""Canonical JSON of configurations and results: the job identity hash and what the store keeps.

`jsonable` turns a value into plain JSON data: dates and times as ISO text, enums as their values,
pydantic models as their JSON dump, sets as sorted lists, Decimal/Path/UUID as text, NumPy scalars
and arrays as Python numbers and lists. Non-finite floats (NaN, inf) become None: strict JSON (and
PostgreSQL's JSON type) has no spelling for them. Anything else is a TypeError.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from pathlib import PurePath
from typing import Any
from uuid import UUID

from pydantic import BaseModel

JsonValue = None | bool | int | float | str | list[Any] | dict[str, Any]


def _key(value: Any) -> str:
    if isinstance(value, str):  # nearly every key: skip the general conversion
        return value
    plain = jsonable(value)
    return plain if isinstance(plain, str) else json.dumps(plain, sort_keys=True)


def jsonable(value: Any) -> JsonValue:
    """`value` as plain JSON data (see the module docstring for the conversions)."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Enum):
        return jsonable(value.value)
    if isinstance(value, Mapping):
        return {_key(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return jsonable(value.model_dump(mode="json"))
    if isinstance(value, (Decimal, PurePath, UUID)):
        return str(value)
    if callable(getattr(value, "tolist", None)):  # NumPy scalars and arrays, without importing NumPy
        return jsonable(value.tolist())
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


def plain_json(value: Any) -> JsonValue:
    """`jsonable(value)`, by a round trip through the C JSON codec when `value` is already plain
    (string keys, finite floats: a task's result dumped by pydantic), else by `jsonable`'s walk.
    The same data either way; 47,000 evaluation verdicts convert in about a second, not five."""
    try:
        return json.loads(json.dumps(value, allow_nan=False, check_circular=False))  # type: ignore[no-any-return]
    except (TypeError, ValueError):  # a date, NaN, a NumPy integer, a non-string key...: walk it
        return jsonable(value)


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: equal data gives equal text, whatever the key order."""
    return json.dumps(jsonable(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def config_hash(config: Mapping[str, Any]) -> str:
    """sha256 (hex) of the configuration's canonical JSON: the identity of a job within its kind."""
    return hashlib.sha256(canonical_json(config).encode("utf-8")).hexdigest()
