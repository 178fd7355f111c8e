"""`GET /api/v1/health`, answered on a path no request or job can block.

The outermost middleware answers it before any other layer (after the Host check): no API key, no
limit, no thread pool and no database query on the request's path. Whether the store opened (its
schema brought to the newest migration, what a process does once) is found out by a thread of its
own and kept; the first health request of a process waits for it a moment without blocking the
event loop, later ones read what was found (a failed open is tried again after a while, a hung one
is reported as not open yet). The route
in the app stays for the OpenAPI document and answers the same body if ever reached.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from stockdesk import __version__
from stockdesk.entrypoints.request_ids import request_id_of
from stockdesk.shared.access import AccessPolicy
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import StockdeskError
from stockdesk.shared.routes import API_PREFIX

HEALTH_PATH = f"{API_PREFIX}/health"
FIRST_WAIT_SECONDS = 5.0  # the first request waits this long for the store's first open
RETRY_SECONDS = 15.0  # a store that failed to open is tried again this often (on health requests)


class HealthProbe:
    """What /health reports: the version, the store's state, the model aliases."""

    def __init__(self, settings: Settings, open_store: Callable[[], None]):
        self._settings = settings
        self._open_store = open_store
        self._database: str | None = None  # "ok" or "error: ..." once known
        self._checked_at = 0.0
        self._checking = threading.Lock()
        self._waited = False  # only the process's first request waits for the first open

    def report(self, database: str) -> dict[str, Any]:
        return {
            "status": "ok" if database == "ok" else "degraded",
            "version": __version__,
            "database": database,
            "llm_aliases": [a.name for a in self._settings.resolved_aliases()],
        }

    def check(self) -> str:
        """Open the store now (in the calling thread) and keep the result."""
        try:
            self._open_store()
            state = "ok"
        except StockdeskError as exc:
            state = f"error: {exc.message}"
        self._database, self._checked_at = state, time.monotonic()
        return state

    def _check_in_background(self) -> None:
        if not self._checking.acquire(blocking=False):
            return  # one check at a time

        def run() -> None:
            try:
                self.check()
            finally:
                self._checking.release()

        threading.Thread(target=run, name="health-store-check", daemon=True).start()

    async def answer(self) -> dict[str, Any]:
        """The report, without a thread pool or a database query on the event loop."""
        if self._database is None:
            self._check_in_background()
            deadline = time.monotonic() + (0.0 if self._waited else FIRST_WAIT_SECONDS)
            self._waited = True
            while self._database is None and time.monotonic() < deadline:
                await anyio.sleep(0.01)
        elif self._database != "ok" and time.monotonic() - self._checked_at > RETRY_SECONDS:
            self._check_in_background()
        late = "error: the store has not opened yet"
        return self.report(self._database or late)


class HealthMiddleware:
    """The outermost layer: answers GET /health for an allowed Host; everything else passes on."""

    def __init__(self, app: ASGIApp, *, probe: HealthProbe, policy: AccessPolicy):
        self.app = app
        self.probe = probe
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != HEALTH_PATH or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", ()))
        if not self.policy.host_allowed(headers.get(b"host", b"").decode("latin-1")):
            await self.app(scope, receive, send)  # the security layer answers 400 HOST_NOT_ALLOWED
            return
        body = await self.probe.answer()
        await JSONResponse(body, headers={"X-Request-ID": request_id_of(scope)})(scope, receive, send)
