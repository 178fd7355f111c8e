"""The Portfolio page: a form (a watchlist or the holdings, a date, the capital or the cash) and the
portfolio view it asks for, from the same PortfolioViewService as `stockdesk portfolio` and
GET /api/v1/portfolio: the allocation chart (current vs target weights), the value chart (the
target book over the window against the benchmark), the risk figures, the names with the reasons
for their weights, and the trades. A refused form comes back with the error in the page's language."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.i18n import pick_language
from stockdesk.entrypoints.web.pages.portfolio_view import portfolio_page
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException, StockdeskError

PAGE = "portfolio/index.html.j2"


def _amount(text: str, field: str, default: float) -> float:
    if not text.strip():
        return default
    try:
        return float(text.replace(",", "").strip())
    except ValueError:
        raise BadRequestException(f"{field}: not a number", code="PORTFOLIO_AMOUNT") from None


def build_portfolio_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/portfolio")
    def portfolio(
        request: Request,
        source: str = Query("", max_length=16),
        watchlist: str = Query("", max_length=64),
        as_of: str = Query("", max_length=10),
        capital: str = Query("", max_length=24),
        cash: str = Query("", max_length=24),
    ) -> Response:
        """Without `source` the form only; `source=watchlist|holdings` with `as_of`: the view."""
        container = deps.container.portfolio
        form = {"source": source or "watchlist", "watchlist": watchlist, "as_of": as_of,
                "capital": capital, "cash": cash}  # fmt: skip
        lists = [w.name for w in container.watchlists.lists()]
        context: dict[str, Any] = {"form": form, "lists": lists, "error": None, "view": None}
        status = 200
        if source:
            try:
                if source not in ("watchlist", "holdings"):
                    raise BadRequestException("choose a watchlist or the holdings", code="PORTFOLIO_SOURCE")
                day = parse_day(as_of.strip() or None, "as_of")
                if day is None:
                    raise BadRequestException("enter a date", code="INVALID_DATE", details={"date": ""})
                found = container.view.view(
                    day,
                    watchlist=watchlist.strip() or None if source == "watchlist" else None,
                    holdings=source == "holdings",
                    capital=_amount(capital, "capital", 1_000_000.0),
                    cash=_amount(cash, "cash", 0.0),
                )
                context["view"] = portfolio_page(found, pick_language(request))
            except StockdeskError as exc:
                context["error"], status = exc, exc.http_status
        return deps.pages.render(request, PAGE, context, status_code=status)

    return router
