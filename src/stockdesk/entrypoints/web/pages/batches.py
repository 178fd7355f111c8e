"""Batch analyses from the web: the start form and recent batches, a batch's live progress, its index.

Starting goes through the app's `BatchLauncher` (`deps.batches`), exactly as `POST /api/v1/batch/analyses`
does (the same body is the same job: starting it again analyses only the symbols left). The page's
Cancel posts to the general jobs route. Progress is read from the durable job and the executor, so
a reload or a second tab shows the same state; the ranked index is the service's rows.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, StreamingResponse
from starlette.responses import Response

from stockdesk.coordinator.application.batch_analysis import BatchAnalysisService
from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.analyses_view import DEBATE_CHOICES, EXPERT_CHOICES
from stockdesk.entrypoints.web.pages.batches_view import (
    BatchForm,
    BatchView,
    batch_view,
    index_rows,
    refusal_lines,
)
from stockdesk.shared.errors import StockdeskError
from stockdesk.shared.sse import HEADERS, progress_events

INDEX = "batches/index.html.j2"
DETAIL = "batches/detail.html.j2"
LIST_SIZE = 20


def build_batches_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    def service() -> BatchAnalysisService:
        return deps.batches.service()

    def view(job_id: str) -> BatchView:
        found = service()
        live = deps.jobs().state_of(job_id)  # first: a job ending in between then reads as ended
        return batch_view(found.get(job_id), found.counts(job_id), live)

    def index(request: Request, form: BatchForm, error: StockdeskError | None = None) -> Response:
        found = service()
        live = deps.jobs().states()
        batches = [batch_view(job, found.counts(job.id), live.get(job.id)) for job in found.recent(LIST_SIZE)]
        context = {
            "form": form,
            "error": error,
            "refusal": refusal_lines(error) if error else [],
            "batches": batches,
            "expert_choices": EXPERT_CHOICES,
            "debate_choices": DEBATE_CHOICES,
            "max_symbols": deps.bounds.max_symbols,
        }
        return deps.pages.render(request, INDEX, context, status_code=error.http_status if error else 200)

    @router.get("/batches")
    def batches(request: Request) -> Response:
        return index(request, BatchForm())

    @router.post("/batches")
    def start(
        request: Request,
        symbols: str = Form(""),
        as_of: str = Form(""),
        experts: Annotated[list[str] | None, Form()] = None,
        debate: str = Form(DEBATE_CHOICES[0]),
        max_tokens: str = Form(""),
        max_cost_usd: str = Form(""),
        rules_only: bool = Form(False),
    ) -> Response:
        """Start (or go on with) the batch as REST does, then its page; a refused form comes back
        filled in, with the reason in the page's language and nothing started."""
        form = BatchForm(symbols, as_of, experts or [], debate, max_tokens, max_cost_usd, rules_only)
        try:
            job_id = deps.batches.launch(form.body())
        except StockdeskError as exc:
            return index(request, form, exc)
        return RedirectResponse(f"/batches/{job_id}", status_code=303)

    @router.get("/batches/{job_id}")
    def detail(request: Request, job_id: str) -> Response:
        """Live: progress over SSE. Ended: the ranked index (and, with symbols left, a way on)."""
        batch = view(job_id)
        context: dict[str, Any] = {
            "batch": batch,
            "rows": [] if batch.live else index_rows(service().rows(job_id)),
        }
        return deps.pages.render(request, DETAIL, context)

    @router.get("/batches/{job_id}/events")
    def events(request: Request, job_id: str) -> StreamingResponse:
        """The progress panel as an HTML fragment per change (`progress`), then `done`."""
        view(job_id)  # 404 before the stream starts
        stream = progress_events(
            lambda: view(job_id),
            lambda batch: deps.pages.render_text(request, DETAIL, "progress", {"batch": batch}),
            lambda batch: not batch.live,
            event="progress",
        )
        return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)

    return router
