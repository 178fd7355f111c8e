"""Paper books over REST: list, open, show (JSON, or the report as HTML / PDF) and close.

Stepping and replaying are the CLI's (`stockdesk paper step|replay`) and the scheduler's work: a
step runs the rules analysis of every symbol of the book, which does not fit one request.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from stockdesk.paper.application import BookView, PaperBook, PaperService
from stockdesk.paper.domain.models import MAX_WEIGHT, NAME_PATTERN
from stockdesk.paper.presentation.report import render_book_html
from stockdesk.shared.exports import DOCUMENT_RESPONSES, document_bytes, download
from stockdesk.shared.symbol_text import SymbolText

BookName = Path(..., pattern=NAME_PATTERN, description="the book's name")


class OpenBook(BaseModel):
    name: str = Field(pattern=NAME_PATTERN)
    market: Literal["CN", "US"] = "CN"
    capital: float = Field(default=1_000_000.0, gt=0.0, description="starting cash, in the market's currency")
    symbols: list[SymbolText] = Field(
        default_factory=list, max_length=500, description="the universe; or give `watchlist` instead"
    )
    watchlist: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="a watchlist whose symbols (as they are now) the book takes",
    )
    benchmark: SymbolText | None = Field(default=None, description="None: the equal-weight universe")
    max_weight: float = Field(default=MAX_WEIGHT, gt=0.0, le=1.0, description="cap per name, a fraction")


def build_paper_router(get_service: Callable[[], PaperService]) -> APIRouter:
    router = APIRouter(prefix="/paper/books", tags=["paper books"])

    @router.get("", response_model=list[PaperBook])
    def books(service: PaperService = Depends(get_service)) -> list[PaperBook]:
        """Every paper book, by name."""
        return service.list()

    @router.post("", response_model=PaperBook, status_code=201)
    def open_book(body: OpenBook, service: PaperService = Depends(get_service)) -> PaperBook:
        """Open a book over symbols or a watchlist (409 PAPER_BOOK_EXISTS; 400 PAPER_BAD_INPUT for
        unknown symbols, another market, no symbols or both; 404 WATCHLIST_NOT_FOUND)."""
        return service.open(
            body.name, market=body.market, capital=body.capital, symbols=body.symbols,
            benchmark=body.benchmark, max_weight=body.max_weight, watchlist=body.watchlist,
        )  # fmt: skip

    @router.get("/{name}", response_model=BookView, responses=DOCUMENT_RESPONSES)
    def show(
        name: str = BookName,
        as_of: date | None = Query(default=None, description="default: the last stepped day"),
        format: Literal["json", "html", "pdf"] = Query(default="json"),
        service: PaperService = Depends(get_service),
    ) -> BookView | Response:
        """Positions, trades, daily marks and the figures (404 PAPER_BOOK_NOT_FOUND)."""
        view = service.show(name, as_of)
        if format == "json":
            return view
        if format == "html":
            return HTMLResponse(render_book_html(view))
        return download(document_bytes(render_book_html(view), "pdf"), "pdf", f"paper-{view.book.name}.pdf")

    @router.post("/{name}/close", response_model=PaperBook)
    def close(name: str = BookName, service: PaperService = Depends(get_service)) -> PaperBook:
        """No more steps; the history stays."""
        return service.close(name)

    return router
