"""Who a web UI request is, from its session cookie; the cookie's Set-Cookie lines; the UI's refusals.

The cookie holds a session id (shared/access/sessions.py), never an API key. A session opened by
signing in acts as its key. On a loopback server (keys on the spending routes only) the UI opens a
session for the local user on the first page it serves without one, so the local user needs no key,
while a script that only copies the UI's Origin header has no session and is refused. A cookie that
names no live session (logged out, expired, its key revoked, another server's) sends a page to the
login form and is cleared; a local session is not accepted by a server that needs keys everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from anyio import to_thread
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import Message, Receive, Scope, Send

from stockdesk.entrypoints.http_errors import error_response
from stockdesk.shared.access import AccessPolicy, AuthMode
from stockdesk.shared.access.sessions import LOCAL, SESSION_TTL, UiSession, session_cookie_name
from stockdesk.shared.db.ui_session_store import SqlUiSessionStore

LEGACY_KEY_COOKIE = "stockdesk_key"  # the cookie that held the key itself (before sessions): cleared
Header = tuple[bytes, bytes]


@dataclass(frozen=True)
class Caller:
    """What a request's cookie says: the key id it acts as (None: nothing), or a stale cookie."""

    key_id: str | None = None
    session: UiSession | None = None
    stale: bool = False

    @property
    def signed_in(self) -> bool:
        """A session opened with a key (the pages then offer to sign out)."""
        return self.session is not None and not self.session.local


def cookie_name(scope: Scope) -> str:
    return session_cookie_name(header(scope, b"host") or "")


def cookie(scope: Scope, name: str) -> str | None:
    for part in (header(scope, b"cookie") or "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name and value.strip():
            return value.strip()
    return None


def set_session_cookie(response: Response, name: str, session_id: str, *, secure: bool) -> None:
    """The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page or
    link sends it), Secure over https, for the whole site, living as long as the session."""
    response.set_cookie(
        name,
        session_id,
        max_age=int(SESSION_TTL.total_seconds()),
        path="/",
        httponly=True,
        samesite="strict",
        secure=secure,
    )


def clear_session_cookie(response: Response, name: str, *, secure: bool) -> None:
    response.delete_cookie(name, path="/", httponly=True, samesite="strict", secure=secure)


def _set_cookie_headers(response: Response) -> list[Header]:
    return [(k, v) for k, v in response.raw_headers if k == b"set-cookie"]


class UiIdentity:
    """The security middleware's reading of session cookies (one store lookup per request)."""

    def __init__(self, policy: AccessPolicy, store: Callable[[], SqlUiSessionStore]):
        self.policy = policy
        self._store = store

    async def identify(self, scope: Scope, *, ui: bool) -> Caller:
        """The caller the cookie names; `ui`: the request is for a page (the local user's session
        opens pages and the UI's forms, never the REST API, whose spending routes take keys only)."""
        session_id = cookie(scope, cookie_name(scope))
        if session_id is None:
            return Caller()
        session = await to_thread.run_sync(self._store().find, session_id)
        if session is None or (session.local and self.policy.auth != AuthMode.SPENDING):
            return Caller(stale=True)
        if session.local and not ui:
            return Caller()
        return Caller(key_id=session.key_id, session=session)

    def may_open_local(self, method: str) -> bool:
        """On loopback (keys on spending routes only) a page asked for without a session gets one."""
        return self.policy.auth == AuthMode.SPENDING and method == "GET"

    async def open_local(self, scope: Scope) -> tuple[Caller, list[Header]]:
        """A new local session for this browser: the caller, and the Set-Cookie that gives it."""
        session_id = await to_thread.run_sync(self._store().open, LOCAL)
        response = Response()
        set_session_cookie(response, cookie_name(scope), session_id, secure=_https(scope))
        return Caller(key_id=LOCAL), _set_cookie_headers(response) + legacy_cleared(scope)

    async def refuse_stale(self, scope: Scope, receive: Receive, send: Send, rid: str) -> None:
        """A cookie of no live session: a page goes to the login form, a form post gets a 401 page
        in the page's language; either way the cookie is cleared."""
        if scope["method"] in ("GET", "HEAD"):
            response: Response = login_redirect(scope)
        else:
            response = ui_refusal(scope, 401, "SESSION_EXPIRED", "the sign-in has ended: sign in again", rid)
        clear_session_cookie(response, cookie_name(scope), secure=_https(scope))
        await response(scope, receive, send)

    async def refuse_unsigned(self, scope: Scope, receive: Receive, send: Send, rid: str) -> None:
        """No key and no session where one is needed: a page goes to the login form; a form post
        (e.g. a script posting with a copied Origin header) gets a 401 page and starts nothing."""
        if scope["method"] in ("GET", "HEAD"):
            await login_redirect(scope)(scope, receive, send)
            return
        message = "an API key or a session of this site's web UI is required"
        await ui_refusal(scope, 401, "API_KEY_REQUIRED", message, rid)(scope, receive, send)


def login_redirect(scope: Scope) -> RedirectResponse:
    """The login form, coming back to the page asked for afterwards."""
    query = scope.get("query_string") or b""
    target = scope["path"] + (f"?{query.decode('latin-1')}" if query else "")
    return RedirectResponse(f"/login?{urlencode({'next': target})}", status_code=303)


def ui_refusal(scope: Scope, status: int, code: str, message: str, rid: str) -> Response:
    """The refusal as the UI's error page (or htmx fragment) in the page's language, worded by its
    code; a JSON error where the UI is not mounted."""
    render = getattr(getattr(scope.get("app"), "state", None), "ui_error", None)
    if render is None:
        return error_response(status, code, message, rid)
    response: Response = render(Request(scope), status, code, message, None)
    response.headers["X-Request-ID"] = rid
    return response


def legacy_cleared(scope: Scope) -> list[Header]:
    """The Set-Cookie that deletes an old cookie holding an API key, when the browser still sends one."""
    if cookie(scope, LEGACY_KEY_COOKIE) is None:
        return []
    response = Response()
    response.delete_cookie(LEGACY_KEY_COOKIE, httponly=True, samesite="strict")
    return _set_cookie_headers(response)


def with_headers(send: Send, headers: list[Header]) -> Send:
    """`send` adding `headers` to the answer's start (the Set-Cookie of a session opened on the way)."""
    if not headers:
        return send

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *headers]}
        await send(message)

    return sending


def _https(scope: Scope) -> bool:
    return scope.get("scheme") == "https"


def header(scope: Scope, name: bytes) -> str | None:
    """A request header's value (the first of that name), decoded as HTTP defines it (latin-1)."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None
