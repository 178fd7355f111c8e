"""Login and logout (the UI's cookie names a server-side session, never the key) and the language switch.

Signing in with a key opens a session acting as that key; logging out deletes the session the cookie
names, so the old cookie opens nothing any more. Both are public routes: a stale cookie (logged out,
expired, another server's) must never stand between the user and the login form.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from stockdesk.entrypoints.ui_identity import clear_session_cookie, cookie_name, set_session_cookie
from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.i18n import LANG_COOKIE, LANGUAGES
from stockdesk.shared.access import AuthMode

YEAR = 365 * 24 * 3600


def safe_next(target: str | None) -> str:
    """Only a path of this site (no scheme, no host, no '//'): never an open redirect."""
    if not target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


def build_account_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def form(request: Request, next: str, error: str | None, status_code: int = 200) -> Response:
        # on loopback the local user needs no key: the form says so, with a way on to the page
        local = getattr(request.app.state.policy, "auth", None) == AuthMode.SPENDING
        context = {"next": safe_next(next), "error": error, "local": local}
        return deps.pages.render(request, "login.html.j2", context, status_code=status_code)

    @router.get("/login")
    def login_form(request: Request, next: str = "/") -> Response:
        return form(request, next, None)

    @router.post("/login")
    def login(request: Request, key: str = Form(...), next: str = Form("/")) -> Response:
        record = deps.container.api_keys.authenticate(key.strip())
        if record is None:
            return form(request, next, "login.invalid", status_code=401)
        name = cookie_name(request.scope)
        sessions = deps.container.ui_sessions
        previous = request.cookies.get(name)
        if previous:  # signing in again (or over the local session): the old one ends
            sessions.close(previous)
        response = RedirectResponse(safe_next(next), status_code=303)
        set_session_cookie(response, name, sessions.open(record.id), secure=request.url.scheme == "https")
        return response

    @router.post("/logout")
    def logout(request: Request) -> Response:
        """End the session the cookie names (if any is still alive) and clear the cookie."""
        name = cookie_name(request.scope)
        session_id = request.cookies.get(name)
        if session_id:
            deps.container.ui_sessions.close(session_id)
        response = RedirectResponse("/login", status_code=303)
        clear_session_cookie(response, name, secure=request.url.scheme == "https")
        return response

    @router.get("/lang/{lang}")
    def switch_language(lang: str, next: str = "/") -> Response:
        """The language switch: remembered in a cookie, back to the page it was clicked on."""
        response = RedirectResponse(safe_next(next), status_code=303)
        if lang in LANGUAGES:
            response.set_cookie(LANG_COOKIE, lang, max_age=YEAR, samesite="lax")
        return response

    return router
