"""The Watchlists page: every named list with its symbols (each a link to analyze it and to its
data page), a form to add symbols (the Analyze form's autocomplete, several at once), and buttons to
remove a symbol or a whole list. The same WatchlistService as `stockdesk watch` and the REST routes;
a refused form comes back with the error in the page's language and nothing written."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.form_text import split_list
from stockdesk.portfolio.application import WatchlistService
from stockdesk.shared.errors import BadRequestException, StockdeskError

PAGE = "watchlists/index.html.j2"


def build_watchlists_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def service() -> WatchlistService:
        return deps.container.portfolio.watchlists

    def page(request: Request, status: int = 200, **extra: Any) -> Response:
        context = {"lists": service().lists(), "error": None, "name": "", "symbols": "", **extra}
        return deps.pages.render(request, PAGE, context, status_code=status)

    def done(name: str) -> Response:
        return RedirectResponse(f"/watchlists#list-{name}", status_code=303)

    @router.get("/watchlists")
    def watchlists(request: Request) -> Response:
        return page(request)

    @router.post("/watchlists")
    def add(
        request: Request, name: str = Form("", max_length=64), symbols: str = Form("", max_length=4000)
    ) -> Response:
        """Add the typed symbols (codes or names) to the list, creating it; 404 UNKNOWN_SYMBOL etc."""
        try:
            typed = split_list(symbols)
            if not typed:
                raise BadRequestException("enter at least one symbol", code="SYMBOL_REQUIRED")
            found = service().add(name, typed)
        except StockdeskError as exc:
            return page(request, exc.http_status, error=exc, name=name, symbols=symbols)
        return done(found.name)

    @router.post("/watchlists/{name}/remove")
    def remove(request: Request, name: str, symbol: str = Form("", max_length=40)) -> Response:
        """Remove one symbol from the list, or (no symbol) the list itself."""
        try:
            service().remove(name, [symbol] if symbol.strip() else None)
        except StockdeskError as exc:
            return page(request, exc.http_status, error=exc)
        return done(name) if symbol.strip() else RedirectResponse("/watchlists", status_code=303)

    return router
