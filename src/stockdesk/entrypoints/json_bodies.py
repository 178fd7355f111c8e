"""JSON bodies hold finite numbers only: `NaN`, `Infinity` and `-Infinity` (which Python's parser
accepts though JSON has no such numbers), and literals too large for a float (`1e999`), are a 400
NON_FINITE_NUMBER for every route, before any route reads the body.

They used to reach the routes as floats: a strategy's params echoed them in an error's details,
whose serialiser refuses non-finite floats, and the answer was a 500. This middleware reads a
JSON-typed body once, parses it with hooks that refuse those numbers, and hands the same bytes on.
A body that is not valid JSON is passed on untouched: the route's validation says what is wrong.
"""

from __future__ import annotations

import json
import math
import uuid
from email.message import Message as MimeType

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from stockdesk.entrypoints.http_errors import error_response

WITH_BODY = frozenset({"POST", "PUT", "PATCH"})


class NonFiniteNumber(ValueError):
    def __init__(self, token: str):
        super().__init__(token)
        self.token = token


def _constant(token: str) -> float:
    raise NonFiniteNumber(token)


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise NonFiniteNumber(token)
    return value


def non_finite_number(body: bytes) -> str | None:
    """The first non-finite number of a JSON body as written (`NaN`, `-Infinity`, `1e999`), or None
    when it has none or is not JSON at all."""
    try:
        json.loads(body, parse_constant=_constant, parse_float=_finite_float)
    except NonFiniteNumber as found:
        return found.token
    except ValueError:  # not JSON (or not UTF-8): the route's own validation answers it
        return None
    return None


def _is_json(scope: Scope) -> bool:
    """As FastAPI decides to parse a body as JSON: no content type, or application/json or +json."""
    headers = dict(scope.get("headers") or [])
    value = headers.get(b"content-type")
    if value is None:
        return True
    mime = MimeType()
    mime["content-type"] = value.decode("latin-1")
    subtype = mime.get_content_subtype()
    return mime.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


class FiniteJsonMiddleware:
    """Refuse a JSON body with a non-finite number (400 NON_FINITE_NUMBER); pass everything else.
    Installed innermost, inside the middleware that gives each request its id (it answers with it)
    and the security middleware that bounds the body's size."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in WITH_BODY or not _is_json(scope):
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = bytearray()
        while True:
            message = await receive()
            messages.append(message)
            body += message.get("body", b"")
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        token = non_finite_number(bytes(body)) if body else None
        if token is not None:
            rid = (scope.get("state") or {}).get("request_id") or uuid.uuid4().hex  # the app's own id
            message = (
                f"the JSON body holds the number {token}, which is not finite: "
                "send a finite number (or null where a value may be missing)"
            )
            response = error_response(400, "NON_FINITE_NUMBER", message, rid, details={"value": token})
            await response(scope, receive, send)
            return
        await self.app(scope, _replay(messages, receive), send)


def _replay(messages: list[Message], then: Receive) -> Receive:
    """The messages already read, in order, then the rest from `then` (a disconnect, say)."""
    pending = list(messages)

    async def receive() -> Message:
        return pending.pop(0) if pending else await then()

    return receive
