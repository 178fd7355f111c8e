"""The Paper books pages: the list of books and a book's page (figures, the equity curve against
its benchmark, positions and trades), read from PaperService as `stockdesk paper show` does."""

from __future__ import annotations

from fastapi import APIRouter, Path, Request
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.paper_view import book_page, book_rows


def build_paper_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/paper")
    def books(request: Request) -> Response:
        rows = book_rows(deps.container.paper.service.list())
        return deps.pages.render(request, "paper/index.html.j2", {"books": rows})

    @router.get("/paper/{name}")
    def book(request: Request, name: str = Path(..., max_length=40)) -> Response:
        """An unknown book: the error page (404)."""
        view = deps.container.paper.service.show(name)
        return deps.pages.render(request, "paper/book.html.j2", {"b": book_page(view)})

    return router
