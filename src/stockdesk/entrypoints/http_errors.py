"""The one JSON error body every REST answer uses: {"error": {code, message, request_id, ...}}.

An error may echo what it was given (a parameter's value in its details); a non-finite float there
is written as text ("NaN", "Infinity"), since JSON has no such number and the response's serialiser
refuses one: an error about a bad value must not become a 500 itself.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping

from fastapi.responses import JSONResponse


def error_response(
    status: int,
    code: str,
    message: str,
    request_id: str | None = None,
    headers: Mapping[str, str] | None = None,
    **extra: object,
) -> JSONResponse:
    rid = request_id or uuid.uuid4().hex
    echoed = {name: _finite(value) for name, value in extra.items()}
    body = {"error": {"code": code, "message": message, "request_id": rid, **echoed}}
    return JSONResponse(status_code=status, content=body, headers={"X-Request-ID": rid, **(headers or {})})


def _finite(value: object) -> object:
    """`value` with every non-finite float, however deep in dicts, lists and tuples, as its text."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Mapping):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
