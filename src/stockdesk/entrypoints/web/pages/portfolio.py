"""The Portfolio pages: a form (a watchlist or the holdings, a date, the capital or the cash) that
opens the view's job (kind `portfolio_view`, as `stockdesk portfolio` and
`POST /api/v1/portfolio/jobs` do) and goes to its page, which follows the verdicts as they come
(SSE, the one job panel with Cancel, or Resume once stopped), then shows the view: the allocation
chart (current vs target weights), the value chart (the target book over the window against the
benchmark), the risk figures, the names with the reasons for their weights, and the trades. A
refused form comes back with the error in the page's language; a bad request opens no job."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, StreamingResponse
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.i18n import pick_language
from stockdesk.entrypoints.web.pages.portfolio_view import (
    PortfolioForm,
    ViewJobPage,
    job_page,
    portfolio_page,
)
from stockdesk.portfolio.presentation.view_jobs import launch_view
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException, StockdeskError
from stockdesk.shared.sse import HEADERS, progress_events

PAGE = "portfolio/index.html.j2"
JOB_PAGE = "portfolio/job.html.j2"


def _amount(text: str, field: str, default: float) -> float:
    if not text.strip():
        return default
    try:
        return float(text.replace(",", "").strip())
    except ValueError:
        raise BadRequestException(f"{field}: not a number", code="PORTFOLIO_AMOUNT") from None


def build_portfolio_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def form_page(request: Request, form: PortfolioForm, error: StockdeskError | None = None) -> Response:
        lists = [w.name for w in deps.container.portfolio.watchlists.lists()]
        context: dict[str, Any] = {"form": form, "lists": lists, "error": error}
        return deps.pages.render(request, PAGE, context, status_code=error.http_status if error else 200)

    @router.get("/portfolio")
    def portfolio(request: Request) -> Response:
        return form_page(request, PortfolioForm())

    @router.post("/portfolio")
    def start(
        request: Request,
        source: str = Form("", max_length=16),
        watchlist: str = Form("", max_length=64),
        as_of: str = Form("", max_length=10),
        capital: str = Form("", max_length=24),
        cash: str = Form("", max_length=24),
    ) -> Response:
        """Check the request (a refusal comes back on the form), open its job, go to its page."""
        form = PortfolioForm(source or "watchlist", watchlist, as_of, capital, cash)
        container = deps.container.portfolio
        try:
            if source not in ("watchlist", "holdings"):
                raise BadRequestException("choose a watchlist or the holdings", code="PORTFOLIO_SOURCE")
            day = parse_day(as_of.strip() or None, "as_of")
            if day is None:
                raise BadRequestException("enter a date", code="INVALID_DATE", details={"date": ""})
            checked = container.view.check(
                day,
                watchlist=watchlist.strip() or None if source == "watchlist" else None,
                holdings=source == "holdings",
                capital=_amount(capital, "capital", 1_000_000.0),
                cash=_amount(cash, "cash", 0.0),
            )
            job = launch_view(container.view_jobs, deps.jobs(), checked)
        except StockdeskError as exc:
            return form_page(request, form, exc)
        return RedirectResponse(f"/portfolio/jobs/{job.job_id}", status_code=303)

    def follow(job_id: str) -> ViewJobPage:
        live = deps.jobs().state_of(job_id)  # first: a job ending in between then reads as ended
        return job_page(deps.container.portfolio.view_jobs.status(job_id), live)

    @router.get("/portfolio/jobs/{job_id}")
    def job(request: Request, job_id: str) -> Response:
        """Live: the verdicts as they come (SSE). Done: the view, in the page's language."""
        page = follow(job_id)
        context: dict[str, Any] = {"page": page, "view": None}
        if page.job.assembled:
            found = deps.container.portfolio.view_jobs.result(job_id)
            context["view"] = portfolio_page(found, pick_language(request))
        return deps.pages.render(request, JOB_PAGE, context)

    @router.get("/portfolio/jobs/{job_id}/events")
    def events(request: Request, job_id: str) -> StreamingResponse:
        """The progress panel as an HTML fragment per change (`progress`), then `done`."""
        follow(job_id)  # 404 before the stream starts
        stream = progress_events(
            lambda: follow(job_id),
            lambda page: deps.pages.render_text(request, JOB_PAGE, "progress", {"page": page, "view": None}),
            lambda page: not page.live,
            event="progress",
        )
        return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)

    return router
