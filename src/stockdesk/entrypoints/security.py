"""Access control for every REST request, applied before any route runs.

In order: the Host header against the allowlist (400: DNS rebinding), the declared body size (413),
the Origin of state-changing and cross-site spending requests (403), who the caller is (an API key in
a header, else the web UI's session cookie: entrypoints/ui_identity.py) and a refusal (401, or the
login form for a page) where the policy requires one, then for the routes that spend LLM tokens or
search credits the caller's token budget for the day (429). The caller's key id ("local": the
loopback UI's sessions, --no-auth) goes on in the scope (`KEY_SCOPE`) to the limits layer inside this
one (`entrypoints/limits.py`: every route's rate and concurrency, the body as it is read). A spending
request runs inside a usage scope capped at the per-request budget (and what is left of the day's),
and the tokens it spent, including those of a job it started, are charged to its key, or to the
local user's one daily budget.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from anyio import to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from stockdesk.entrypoints.http_errors import error_response
from stockdesk.entrypoints.request_ids import request_id
from stockdesk.entrypoints.ui_identity import Caller, UiIdentity, legacy_cleared, with_headers
from stockdesk.entrypoints.ui_identity import header as _header
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.shared.access import AccessGrant, AccessPolicy, AuthMode
from stockdesk.shared.access.grant import reset_grant, set_grant
from stockdesk.shared.access.sessions import LOCAL
from stockdesk.shared.db.api_key_store import SqlApiKeyStore
from stockdesk.shared.db.ui_session_store import SqlUiSessionStore
from stockdesk.shared.errors import StockdeskError

API = "/api/v1"
PUBLIC_PATHS = frozenset(
    {f"{API}/health", f"{API}/docs", f"{API}/docs/oauth2-redirect", f"{API}/openapi.json"}
)
# Routes that spend LLM tokens or search credits: keys required on them unless --no-auth.
SPENDING_ROUTES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (method, re.compile(pattern))
    for method, pattern in (
        ("GET", rf"{API}/research/[^/]+"),
        ("POST", rf"{API}/coordinator/research"),
        ("POST", rf"{API}/coordinator/research/[^/]+/retry"),
        ("POST", rf"{API}/coordinator/research/jobs"),
        ("POST", rf"{API}/coordinator/research/jobs/[^/]+/retry"),
        ("POST", rf"{API}/debate/run"),
        ("POST", rf"{API}/judge/verdict"),
        ("POST", rf"{API}/strategy/runs"),
        ("POST", rf"{API}/evaluations"),
        ("POST", rf"{API}/briefings"),
        ("POST", rf"{API}/batch/analyses"),
        ("POST", rf"{API}/data/sync"),  # provider quotas and tokens (Tushare points) are spent too
        ("POST", rf"{API}/jobs/[^/]+/resume"),  # a resumed evaluation, briefing or strategy run
        ("POST", rf"{API}/schedules/[^/]+/run"),  # a scheduled run (experts and full modes call models)
    )
)
# The web UI's routes that start the same spending work (served at /, beside the API).
UI_SPENDING_ROUTES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (method, re.compile(pattern))
    for method, pattern in (
        ("POST", r"/analyses"),
        ("POST", r"/batches"),  # a batch analysis (rules-only ones spend nothing, but start as one form)
        ("POST", r"/sessions/[^/]+/retry"),
        ("POST", r"/evaluations"),
        ("POST", r"/strategy/runs"),
        ("POST", r"/strategy/runs/[^/]+/resume"),
        ("POST", r"/briefings"),
        ("POST", r"/data/sync"),
        ("POST", r"/schedules/[^/]+/run"),  # a scheduled run (its experts and full modes call the models)
        ("POST", r"/jobs/[^/]+/resume"),
        ("POST", r"/settings/ping"),  # one model call: `stockdesk llm ping`
    )
)
# /logout is public: it ends whatever session its cookie names, and a stale cookie must not block it
UI_PUBLIC_PREFIXES = ("/static/", "/login", "/logout", "/lang/", "/favicon.ico")
UPLOAD_PATHS = frozenset({"/data/import", "/holdings/import", f"{API}/holdings/import"})
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
KEY_SCOPE = "stockdesk.key_id"  # the authenticated key's id ("local": none), for the limits layer


def is_ui(path: str) -> bool:
    """A web UI path (everything the API prefix does not hold)."""
    return not (path == API or path.startswith(f"{API}/"))


def is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or (is_ui(path) and path.startswith(UI_PUBLIC_PREFIXES))


def is_spending(method: str, path: str) -> bool:
    routes = UI_SPENDING_ROUTES if is_ui(path) else SPENDING_ROUTES
    return any(method == m and pattern.fullmatch(path) for m, pattern in routes)


def presented_key(scope: Scope) -> str | None:
    """`Authorization: Bearer KEY` or `X-API-Key: KEY` (the web UI's cookie names a session instead)."""
    auth = _header(scope, b"authorization")
    if auth and auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return (_header(scope, b"x-api-key") or "").strip() or None


def _seconds_to_midnight(now: datetime) -> int:
    tomorrow = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
    return max(1, int((tomorrow - now).total_seconds()))


class SecurityMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        policy: AccessPolicy,
        keys: Callable[[], SqlApiKeyStore],
        sessions: Callable[[], SqlUiSessionStore],
        llm: Callable[[], LLMService],
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ):
        self.app = app
        self.policy = policy
        self._keys = keys
        self.identity = UiIdentity(policy, sessions)
        self._llm = llm
        self._clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = request_id(_header(scope, b"x-request-id"))  # bounded: echoed and logged
        scope.setdefault("state", {})["request_id"] = rid

        async def refuse(status: int, code: str, message: str, **headers: str) -> None:
            await error_response(status, code, message, rid, headers)(scope, receive, send)

        method, path = scope["method"], scope["path"]
        host = _header(scope, b"host") or ""
        if not self.policy.host_allowed(host):
            await refuse(400, "HOST_NOT_ALLOWED", f"Host {host!r} is not served here (see api_allowed_hosts)")
            return
        limit = self.policy.max_upload_bytes if path in UPLOAD_PATHS else self.policy.max_body_bytes
        length = _header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await refuse(413, "BODY_TOO_LARGE", f"request bodies are limited to {limit} bytes")
            return
        spending = is_spending(method, path)
        origin = _header(scope, b"origin")
        if origin and (method in STATE_CHANGING or spending) and not self.policy.origin_allowed(origin, host):
            await refuse(403, "ORIGIN_FORBIDDEN", f"requests from origin {origin!r} are not accepted")
            return
        if (
            spending
            and not origin
            and (_header(scope, b"sec-fetch-site") or "") in ("cross-site", "same-site")
        ):
            await refuse(403, "ORIGIN_FORBIDDEN", "cross-site requests may not start work here")
            return
        public = is_public(path)
        identified = None if public else await self._identify(scope, receive, send, rid, refuse)
        if identified is False:
            return  # refused
        caller, cookies = identified or (Caller(), [])
        required = not public and (
            self.policy.auth == AuthMode.ALL or (self.policy.auth == AuthMode.SPENDING and spending)
        )
        if required and caller.key_id is None:
            if is_ui(path):
                await self.identity.refuse_unsigned(scope, receive, send, rid)
                return
            await refuse(
                401,
                "API_KEY_REQUIRED",
                "an API key is required: send 'Authorization: Bearer KEY' "
                "(create one with 'stockdesk keys create')",
                **{"WWW-Authenticate": "Bearer"},
            )
            return
        key_id = caller.key_id or LOCAL
        scope["state"].update(key_id=key_id, signed_in=caller.signed_in)
        scope[KEY_SCOPE] = key_id
        send = with_headers(send, cookies)
        if not spending:
            await self.app(scope, receive, send)
            return
        await self._spend(scope, receive, send, key_id, refuse)

    async def _identify(
        self, scope: Scope, receive: Receive, send: Send, rid: str, refuse: Any
    ) -> tuple[Caller, list[tuple[bytes, bytes]]] | bool:
        """Who calls: a key in a header, else the UI's session cookie, else (a loopback page) a new
        local session; with the Set-Cookie lines the answer carries (that session's, and the removal
        of an old cookie holding a key); False when refused here (an unknown key, a stale cookie)."""
        key = presented_key(scope)
        if key is not None:
            record = await to_thread.run_sync(self._keys().authenticate, key)
            if record is None:
                await refuse(
                    401,
                    "API_KEY_INVALID",
                    "the API key is unknown or revoked",
                    **{"WWW-Authenticate": "Bearer"},
                )
                return False
            return Caller(key_id=record.id), []
        if self.policy.auth == AuthMode.NONE:
            return Caller(), []
        ui = is_ui(scope["path"])
        caller = await self.identity.identify(scope, ui=ui)
        if caller.stale and ui:
            await self.identity.refuse_stale(scope, receive, send, rid)
            return False
        if caller.key_id is None and ui and self.identity.may_open_local(scope["method"]):
            return await self.identity.open_local(scope)
        return caller, legacy_cleared(scope) if ui else []

    async def _spend(self, scope: Scope, receive: Receive, send: Send, key_id: str, refuse: Any) -> None:
        """The day's token budget (a refusal costs no rate or concurrency quota: the limits layer
        inside counts the request only once it passed here), then the request, metered."""
        now = self._clock()
        today: date = now.date()
        store = self._keys()
        spent_today = await to_thread.run_sync(store.tokens_on, key_id, today)
        daily = self.policy.max_tokens_per_day
        if daily is not None and spent_today >= daily:
            who = "the local user" if key_id == LOCAL else "this key"
            await refuse(
                429,
                "TOKEN_BUDGET_SPENT",
                f"{who} has spent its {daily} tokens for today (UTC)",
                **{"Retry-After": str(_seconds_to_midnight(now))},
            )
            return
        caps = [c for c in (self.policy.max_tokens_per_request, daily and daily - spent_today) if c]
        try:
            llm = self._llm()
        except StockdeskError:  # the model cannot be built (a key is missing): no token can be spent, and
            llm = None  # the route meets the same error and answers it as its page or body does
        if llm is None:
            await self.app(scope, receive, send)
        else:
            await self._metered(llm, scope, receive, send, key_id, min(caps) if caps else None)

    async def _metered(
        self, llm: LLMService, scope: Scope, receive: Receive, send: Send, key_id: str, cap: int | None
    ) -> None:
        """Run the request in a usage scope capped at `cap` tokens, charging what it spent to the key."""
        store = self._keys()
        with llm.usage_scope(cap) as meter:
            grant = AccessGrant(
                key_id=key_id,
                run_id=uuid.uuid4().hex,
                spent=lambda: meter.tokens,
                charge=lambda tokens: store.add_tokens(key_id, self._clock().date(), tokens),
            )
            token = set_grant(grant)
            try:
                await self.app(scope, receive, send)
            finally:
                reset_grant(token)
                await to_thread.run_sync(grant.record)
