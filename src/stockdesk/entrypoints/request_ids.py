"""The request id a request is known by (its error bodies, the `X-Request-ID` answer header, the log).

A client may name its request with `X-Request-ID`, so that its log and ours line up; the header is
the client's text, echoed in every answer and written to the log, so only a short id of safe
characters is taken. Anything else (too long, spaces, quotes, control or non-ASCII characters) is
replaced by a fresh id and never echoed or logged.
"""

from __future__ import annotations

import re
import uuid

from starlette.types import Scope

MAX_LENGTH = 64
_SAFE = re.compile(rf"[A-Za-z0-9._-]{{1,{MAX_LENGTH}}}")


def request_id(presented: str | None) -> str:
    """The client's id when it is 1 to 64 characters of [A-Za-z0-9._-], else a new one."""
    if presented is not None and _SAFE.fullmatch(presented):
        return presented
    return uuid.uuid4().hex


def request_id_of(scope: Scope) -> str:
    """A request's id in any layer: the one an outer layer chose (the security layer keeps it in the
    scope's state), else the client's `X-Request-ID` header when it is safe, else a new one."""
    chosen = scope.get("state", {}).get("request_id")
    if chosen:
        return str(chosen)
    presented = next((v for k, v in scope.get("headers", ()) if k == b"x-request-id"), None)
    return request_id(presented.decode("latin-1") if presented is not None else None)
