"""Every route's rate and concurrency limits, and the bound on each body as the route reads it.

Runs inside the security layer (which has checked the Host, Origin and key, and puts the key's id
in the scope under `KEY_SCOPE`). A request is classed by its route (`route_class`: cheap read,
page, spending, sandbox, upload) and counted against its subject, the key or else the client's
address, with the class's limits (`shared.access.route_limits`): a place in flight first, then the
rate, so a refused request costs no quota. Cheap reads and pages give their place back once their
answer starts (a live progress stream does not hold one for its whole life); the others when they
end. The spending and sandbox classes are counted in the database, one budget across processes.

Bodies are never read ahead: the route reads them as they arrive, an upload going through the
multipart parser into a spooled temporary file (in memory up to 1 MB, then on disk) that the import
route reads, so memory stays bounded whatever the size. A body that grows past its limit, or stops
arriving for `body_idle_seconds`, is cut: the route sees a disconnect, and the client gets 413 or
408 instead of the route's answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from anyio import to_thread
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from stockdesk.entrypoints.http_errors import error_response
from stockdesk.entrypoints.request_ids import request_id_of
from stockdesk.entrypoints.security import API, KEY_SCOPE, STATE_CHANGING, UPLOAD_PATHS, is_spending, is_ui
from stockdesk.shared.access import AccessPolicy
from stockdesk.shared.access.route_limits import (
    ClassLimit,
    LimitClass,
    MemoryLimits,
    Refusal,
    Release,
    enter,
)
from stockdesk.shared.db.access_counter_store import SqlAccessCounters
from stockdesk.shared.errors import StockdeskError

# Routes that start a sandboxed strategy worker per request (seconds of CPU each).
SANDBOX_ROUTES = frozenset({("POST", f"{API}/strategy/backtest"), ("POST", "/strategy/backtest")})
ASSET_PREFIXES = ("/static/", "/favicon.ico")  # files, not pages: cheap reads
RELEASED_AT_START = frozenset({LimitClass.CHEAP, LimitClass.PAGE})
_DISCONNECT: Message = {"type": "http.disconnect"}


def route_class(method: str, path: str) -> LimitClass:
    """The limit class of a request: what it costs the server."""
    if (method, path) in SANDBOX_ROUTES:
        return LimitClass.SANDBOX
    if is_spending(method, path):
        return LimitClass.SPENDING
    if path in UPLOAD_PATHS and method in STATE_CHANGING:
        return LimitClass.UPLOAD
    if is_ui(path) and not path.startswith(ASSET_PREFIXES):
        return LimitClass.PAGE
    return LimitClass.CHEAP


def subject_of(scope: Scope) -> str:
    """Who a request is counted against: its API key, or else (keyless loopback) its client address."""
    key_id = scope.get(KEY_SCOPE)
    if key_id and key_id != "local":
        return f"key:{key_id}"
    client = scope.get("client")
    return f"client:{client[0] if client else 'unknown'}"


class BodyGuard:
    """Counts a body as the route reads it; past `limit` bytes, or after `idle` seconds without a
    part of it, the route sees a disconnect and what it answers is dropped for the guard's refusal."""

    def __init__(self, receive: Receive, send: Send, limit: int, idle: float, on_start: Callable[[], None]):
        self._receive, self._send = receive, send
        self._limit, self._idle, self._on_start = limit, idle, on_start
        self._size = 0
        self._complete = False
        self.started = False
        self.refusal: tuple[int, str, str] | None = None

    async def receive(self) -> Message:
        if self.refusal is not None:
            return _DISCONNECT
        if self._complete:  # after the body: a wait for the client to go away, as long as it takes
            return await self._receive()
        with anyio.move_on_after(self._idle) as waited:
            message = await self._receive()
        if waited.cancelled_caught:
            self.refusal = (408, "BODY_STALLED", f"no part of the request body came for {self._idle:.0f} s")
            return _DISCONNECT
        if message["type"] == "http.request":
            self._size += len(message.get("body", b""))
            if self._size > self._limit:
                self.refusal = (413, "BODY_TOO_LARGE", f"request bodies are limited to {self._limit} bytes")
                return _DISCONNECT
            self._complete = not message.get("more_body", False)
        return message

    async def send(self, message: Message) -> None:
        if self.refusal is not None and not self.started:
            return  # the route's answer to a body it never got whole
        if message["type"] == "http.response.start":
            self.started = True
            self._on_start()
        await self._send(message)


class LimitsMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        policy: AccessPolicy,
        shared: Callable[[], SqlAccessCounters],
        body_idle_seconds: float = 30.0,
    ):
        self.app = app
        self.policy = policy
        self._shared = shared
        self.memory = MemoryLimits()
        self.body_idle_seconds = body_idle_seconds

    def limit_of(self, limit_class: LimitClass) -> ClassLimit:
        spending = ClassLimit(self.policy.rate_per_minute, self.policy.max_concurrent_per_key, shared=True)
        return self.policy.route_limits.of(limit_class, spending)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        limit_class = route_class(method, path)
        limit = self.limit_of(limit_class)
        try:
            held = await self._enter(subject_of(scope), limit_class, limit)
        except StockdeskError as exc:  # the shared counters' database is locked or unreachable
            await self._refuse(scope, receive, send, exc.http_status, exc.code, exc.message)
            return
        if isinstance(held, Refusal):
            retry = {"Retry-After": str(held.retry_after)}
            await self._refuse(scope, receive, send, 429, held.code, held.message, held.details, retry)
            return
        body_limit = self.policy.max_upload_bytes if path in UPLOAD_PATHS else self.policy.max_body_bytes
        on_start = held if limit_class in RELEASED_AT_START else (lambda: None)
        guard = BodyGuard(receive, send, body_limit, self.body_idle_seconds, on_start)
        try:
            await self.app(scope, guard.receive, guard.send)
        except Exception:
            if guard.refusal is None:
                raise  # the route's own failure: the server's error handling answers it
        finally:
            await self._release(held, limit)
        if guard.refusal is not None and not guard.started:
            await self._refuse(scope, receive, send, *guard.refusal)

    async def _enter(self, subject: str, limit_class: LimitClass, limit: ClassLimit) -> Release | Refusal:
        if not limit.shared:
            return enter(self.memory.lease, self.memory.admit, subject, limit_class, limit)
        store = self._shared()
        return await to_thread.run_sync(enter, store.lease, store.admit, subject, limit_class, limit)

    @staticmethod
    async def _release(held: Release, limit: ClassLimit) -> None:
        if not limit.shared:
            held()
            return
        with anyio.CancelScope(shield=True):  # a client gone away still gives its place back
            await to_thread.run_sync(held)

    async def _refuse(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        status: int,
        code: str,
        message: str,
        details: dict[str, int] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """The refusal as the path's clients read errors: JSON for the API, a page in the page's
        language for the web UI (rendered off the event loop)."""
        rid = request_id_of(scope)
        app: Any = scope.get("app")
        render: Callable[..., Any] | None = getattr(getattr(app, "state", None), "ui_error", None)
        if render is None or not is_ui(scope["path"]) or scope["path"].startswith(ASSET_PREFIXES):
            extra = {"details": details} if details else {}
            answer = error_response(status, code, message, rid, headers, **extra)
        else:
            request = Request({**scope, "state": dict(scope.get("state") or {})})
            answer = await to_thread.run_sync(render, request, status, code, message, details)
            answer.headers.update({"X-Request-ID": rid, **(headers or {})})
        await answer(scope, receive, send)
