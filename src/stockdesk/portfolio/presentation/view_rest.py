"""GET /api/v1/portfolio: the portfolio view of a watchlist or of the holdings as of a date (the
CLI's `stockdesk portfolio`), as JSON, the HTML report or its PDF. Errors: 400 PORTFOLIO_SOURCE
(neither or both of `watchlist` and `holdings`), 400 PORTFOLIO_EMPTY (no valued holdings, or no
stored bars of the names by then), 404 WATCHLIST_NOT_FOUND, 400 for a value outside the schema; the
codes are in the OpenAPI document through `entrypoints/openapi.py` (ROUTE_ERRORS, ROUTE_400)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import HTMLResponse, Response

from stockdesk.portfolio.application import PortfolioView
from stockdesk.portfolio.application.view_service import DEFAULT_CAPITAL, MAX_AMOUNT, PortfolioViewService
from stockdesk.portfolio.domain.model import NAME_RULE
from stockdesk.portfolio.presentation.report import render_view_html
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.exports import DOCUMENT_RESPONSES, document_bytes, download


def build_portfolio_view_router(get_service: Callable[[], PortfolioViewService]) -> APIRouter:
    router = APIRouter(prefix="/portfolio", tags=["portfolio"])

    @router.get("", response_model=PortfolioView, responses=DOCUMENT_RESPONSES)
    def view(
        as_of: IsoDay = Query(..., description="YYYY-MM-DD: nothing dated after it is read"),
        watchlist: str | None = Query(default=None, max_length=64, pattern=NAME_RULE),
        holdings: bool = Query(default=False, description="the holdings instead of a watchlist"),
        capital: float = Query(
            default=DEFAULT_CAPITAL, gt=0, le=MAX_AMOUNT, description="a watchlist's book value"
        ),
        cash: float = Query(default=0.0, ge=0, le=MAX_AMOUNT, description="cash beside the holdings"),
        format: Literal["json", "html", "pdf"] = Query(default="json"),
        lang: Literal["en", "zh"] = Query(default="en", description="the report's language (html, pdf)"),
        service: PortfolioViewService = Depends(get_service),
    ) -> PortfolioView | Response:
        """Target weights from the day's rules verdicts (caps per name and industry, a risk budget),
        the trades to get there (lots, costs) and the risk of the current and the target book."""
        found = service.view(as_of, watchlist=watchlist, holdings=holdings, capital=capital, cash=cash)
        if format == "json":
            return found
        html = render_view_html(found, lang)
        if format == "html":
            return HTMLResponse(html)
        return download(document_bytes(html, "pdf"), "pdf", f"portfolio-{found.as_of.isoformat()}.pdf")

    return router
