"""The portfolio view over REST, as a job (kind `portfolio_view`): POST the request (202, the job and
its Location), poll it (its progress, then the view), read its report as HTML or PDF. The verdicts
are computed a name at a time in the background; `POST /api/v1/jobs/{id}/cancel` stops it (the
per-kind cancel route answers 307 to it) and posting the request again goes on from where it
stopped. The request is checked before a job is opened: 400 PORTFOLIO_SOURCE (neither or both of
`watchlist` and `holdings`), 400 PORTFOLIO_EMPTY (no valued holdings, or no stored bars of the names
by then), 404 WATCHLIST_NOT_FOUND, 400 for a value outside the schema; 404 PORTFOLIO_JOB_NOT_FOUND
for an unknown job and 409 PORTFOLIO_JOB_NOT_FINISHED for the report of one not done. The codes are
in the OpenAPI document through `entrypoints/openapi.py` (ROUTE_ERRORS, ROUTE_400)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from stockdesk.portfolio.application.view_jobs import PortfolioViewJobs, ViewJob
from stockdesk.portfolio.application.view_service import DEFAULT_CAPITAL, MAX_AMOUNT, PortfolioViewService
from stockdesk.portfolio.domain.model import NAME_RULE
from stockdesk.portfolio.presentation.report import render_view_html
from stockdesk.portfolio.presentation.view_jobs import launch_view
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.exports import document_bytes, download
from stockdesk.shared.routes import API_PREFIX, cancel_moved
from stockdesk.shared.tasks.executor import JobExecutor


class PortfolioJobBody(BaseModel):
    as_of: IsoDay = Field(description="YYYY-MM-DD: nothing dated after it is read")
    watchlist: str | None = Field(default=None, max_length=64, pattern=NAME_RULE)
    holdings: bool = Field(default=False, description="the holdings instead of a watchlist")
    capital: float = Field(
        default=DEFAULT_CAPITAL, gt=0, le=MAX_AMOUNT, description="a watchlist's book value"
    )
    cash: float = Field(default=0.0, ge=0, le=MAX_AMOUNT, description="cash beside the holdings")


REPORT_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {
        "content": {"text/html": {}, "application/pdf": {}},
        "description": "The view's report: `format=html` the page, `format=pdf` the page printed",
    }
}


def build_portfolio_view_router(
    get_service: Callable[[], PortfolioViewService],
    get_jobs: Callable[[], PortfolioViewJobs],
    get_executor: Callable[[], JobExecutor],
) -> APIRouter:
    router = APIRouter(prefix="/portfolio/jobs", tags=["portfolio"])

    @router.post("", response_model=ViewJob, status_code=202)
    def start(body: PortfolioJobBody, response: Response) -> ViewJob:
        """Check the request now, compute the verdicts and the view as a job; answers the job to poll
        (Location). The same request over the same list and book names the same job."""
        request = get_service().check(
            body.as_of, watchlist=body.watchlist, holdings=body.holdings, capital=body.capital, cash=body.cash
        )
        job = launch_view(get_jobs(), get_executor(), request)
        response.headers["Location"] = f"{API_PREFIX}/portfolio/jobs/{job.job_id}"
        return job

    @router.post("/{job_id}/cancel", include_in_schema=False)
    def cancel(job_id: str) -> Response:
        """Moved to `POST /api/v1/jobs/{id}/cancel` (307); POSTing the request again resumes."""
        return cancel_moved(job_id)

    @router.get("/{job_id}", response_model=ViewJob)
    def status(job_id: str) -> ViewJob:
        """Progress (names with their verdict of all), and the view once the job is done."""
        return get_jobs().status(job_id, with_view=True)

    @router.get("/{job_id}/report", response_class=HTMLResponse, responses=REPORT_RESPONSES)
    def report(
        job_id: str,
        format: Literal["html", "pdf"] = Query(default="html"),
        lang: Literal["en", "zh"] = Query(default="en", description="the report's language"),
    ) -> Response:
        """The view as the HTML report or its PDF (409 PORTFOLIO_JOB_NOT_FINISHED until it is done;
        503 PDF_UNAVAILABLE without Chromium)."""
        view = get_jobs().result(job_id)
        html = render_view_html(view, lang)
        if format == "html":
            return HTMLResponse(html)
        return download(document_bytes(html, "pdf"), "pdf", f"portfolio-{view.as_of.isoformat()}.pdf")

    return router
