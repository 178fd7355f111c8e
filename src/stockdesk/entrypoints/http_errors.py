"""The one JSON error body every REST answer uses: {"error": {code, message, request_id, ...}}."""

from __future__ import annotations

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
    body = {"error": {"code": code, "message": message, "request_id": rid, **extra}}
    return JSONResponse(status_code=status, content=body, headers={"X-Request-ID": rid, **(headers or {})})
