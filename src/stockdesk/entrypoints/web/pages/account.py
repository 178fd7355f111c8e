"""Login (beyond loopback the UI needs an API key, kept in an HttpOnly cookie) and the language switch."""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from stockdesk.entrypoints.security import KEY_COOKIE
from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.i18n import LANG_COOKIE, LANGUAGES

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

    @router.get("/login")
    def login_form(request: Request, next: str = "/") -> Response:
        return deps.pages.render(request, "login.html.j2", {"next": safe_next(next), "error": None})

    @router.post("/login")
    def login(request: Request, key: str = Form(...), next: str = Form("/")) -> Response:
        record = deps.container.api_keys.authenticate(key.strip())
        if record is None:
            context = {"next": safe_next(next), "error": "login.invalid"}
            return deps.pages.render(request, "login.html.j2", context, status_code=401)
        response = RedirectResponse(safe_next(next), status_code=303)
        response.set_cookie(
            KEY_COOKIE,
            key.strip(),
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            max_age=30 * 24 * 3600,
        )
        return response

    @router.post("/logout")
    def logout() -> Response:
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(KEY_COOKIE)
        return response

    @router.get("/lang/{lang}")
    def switch_language(lang: str, next: str = "/") -> Response:
        """The language switch: remembered in a cookie, back to the page it was clicked on."""
        response = RedirectResponse(safe_next(next), status_code=303)
        if lang in LANGUAGES:
            response.set_cookie(LANG_COOKIE, lang, max_age=YEAR, samesite="lax")
        return response

    return router
