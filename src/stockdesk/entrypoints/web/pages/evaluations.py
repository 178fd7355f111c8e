"""The evaluation dashboard: start form and past evaluations, a job's live progress, its report.

Starting goes through `evaluation.presentation.jobs` (what the REST routes call); the page's Cancel
and Resume post to the general jobs routes (`pages/jobs.py`). Progress is read from the durable job
(the service) and the executor, so a reload or a second tab shows the same state, and the report's
figures are the scored report's.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse, StreamingResponse
from starlette.responses import Response

from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.evaluations_view import (
    EXPERTS,
    MODES,
    SET_NAMES,
    EvaluationForm,
    JobView,
    VerdictQuery,
    job_view,
    report_view,
)
from stockdesk.entrypoints.web.pages.jobs import moved_to_jobs
from stockdesk.evaluation.application.evaluation_service import EvaluationService
from stockdesk.evaluation.presentation.jobs import launch_evaluation
from stockdesk.shared.errors import BadRequestException, StockdeskError
from stockdesk.shared.sse import HEADERS, progress_events

INDEX = "evaluations/index.html.j2"
DETAIL = "evaluations/detail.html.j2"
LIST_SIZE = 20


def build_evaluations_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def service() -> EvaluationService:
        return deps.container.evaluation.service

    def view(job_id: str) -> JobView:
        live = deps.jobs().state_of(job_id)  # first: a job ending in between then reads as ended
        return job_view(service().status(job_id), live)

    def index(request: Request, form: EvaluationForm, error: StockdeskError | None = None) -> Response:
        live = deps.jobs().states()
        jobs = [job_view(job, live.get(job.job_id)) for job in service().list(LIST_SIZE)]
        context = {"form": form, "error": error, "jobs": jobs, "modes": MODES}
        return deps.pages.render(request, INDEX, context, status_code=error.http_status if error else 200)

    @router.get("/evaluations")
    def evaluations(request: Request) -> Response:
        return index(request, EvaluationForm())

    @router.post("/evaluations")
    def start(
        request: Request,
        symbols: str = Form(""),
        start: str = Form(""),
        end: str = Form(""),
        every: str = Form("20"),
        horizons: str = Form("5,20,60"),
        mode: str = Form("rules"),
        benchmark: str = Form(""),
        experts: Annotated[list[str] | None, Form()] = None,
        slippage: str = Form(""),
    ) -> Response:
        """Start (or resume) as REST does, then its page; a refused form comes back with the reason."""
        form = EvaluationForm(symbols, start, end, every, horizons, mode, benchmark, experts or [], slippage)
        try:
            job = launch_evaluation(service(), deps.jobs(), deps.bounds, form.body().config())
        except StockdeskError as exc:
            return index(request, form, exc)
        return RedirectResponse(f"/evaluations/{job.job_id}", status_code=303)

    @router.get("/evaluations/{job_id}")
    def detail(
        request: Request,
        job_id: str,
        h: str = "",
        sort: str = "",
        direction: str = Query("", alias="dir"),
        page: str = "",
    ) -> Response:
        """Live: progress over SSE. Finished: the stored report and one page of its verdicts, sorted
        as asked (a bad value is a 400 in the page's language). Stopped early: progress and Resume."""
        job = view(job_id)
        try:
            query = VerdictQuery.parse([x.strip() for x in job.horizons.split(",")], h, sort, direction, page)
            report = report_view(service().overview(job_id), query) if job.finished else None
        except BadRequestException as exc:
            shown = {
                "status": exc.http_status,
                "code": exc.code,
                "message": exc.message,
                "details": exc.details,
            }
            return deps.pages.render(request, "error.html.j2", shown, status_code=exc.http_status)
        context: dict[str, Any] = {
            "job": job, "report": report, "query": query, "set_names": SET_NAMES, "expert_names": EXPERTS,
        }  # fmt: skip
        return deps.pages.render(request, DETAIL, context)

    @router.get("/evaluations/{job_id}/events")
    def events(request: Request, job_id: str) -> StreamingResponse:
        """The progress panel as an HTML fragment per change (`progress`), then `done`."""
        view(job_id)  # 404 before the stream starts
        stream = progress_events(
            lambda: view(job_id),
            lambda job: deps.pages.render_text(request, DETAIL, "progress", {"job": job}),
            lambda job: not job.live,
            event="progress",
        )
        return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)

    @router.post("/evaluations/{job_id}/cancel")
    def cancel(job_id: str) -> Response:
        """Moved to the jobs route (307), which comes back to this evaluation's page."""
        return moved_to_jobs(job_id, "cancel", f"/evaluations/{job_id}")

    return router
