"""Analyses started from the web: the form's POST and the live progress page (SSE).

Starting goes through AnalysisRuns.start, exactly as `POST /api/v1/coordinator/research/jobs`
does; progress is read from AnalysisRuns.progress (the live run, or the stored session after it),
so a reload or a second tab shows the same state. The page's Cancel posts to the general jobs
route (`POST /jobs/{id}/cancel?back=...`), which stops the analysis through the job kinds and
comes back here; the page's own cancel route answers 307 there.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, StreamingResponse
from starlette.responses import Response

from stockdesk.coordinator.application import AnalysisProgress
from stockdesk.data_engineering.application import resolve_typed
from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.i18n import pick_language
from stockdesk.entrypoints.web.pages.analyses_view import AnalysisForm, progress_view
from stockdesk.entrypoints.web.pages.home import home_context
from stockdesk.entrypoints.web.pages.jobs import moved_to_jobs
from stockdesk.shared.errors import BadRequestException, StockdeskError
from stockdesk.shared.sse import HEADERS, progress_events

TEMPLATE = "analyses/progress.html.j2"


def build_analyses_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)
    runs = lambda: deps.container.analyses  # noqa: E731 (built on first use, like the REST routes)

    @router.post("/analyses")
    def start(
        request: Request,
        symbol: str = Form(""),
        as_of: str = Form(""),
        experts: Annotated[list[str] | None, Form()] = None,
        debate: str = Form("bull-bear"),
        rules_only: str | None = Form(None),
        pick: str | None = Form(None),
    ) -> Response:
        """Queue the analysis and go to its progress page; a refused form comes back with the reason.
        A name typed without picking a suggestion is resolved (several matches: the list to pick
        from, each a button sending `pick`)."""
        symbol = pick or symbol
        form = AnalysisForm(symbol, as_of, experts or [], debate, rules_only is not None)
        resolved = resolve_typed(deps.container.data.securities.execute(), symbol)
        try:
            if isinstance(resolved, list):
                raise BadRequestException(
                    f"'{symbol.strip()}' matches {len(resolved)} securities: pick one",
                    code="SYMBOL_AMBIGUOUS",
                    details={"typed": symbol.strip(), "count": len(resolved)},
                )
            form.symbol = resolved
            started = runs().start(form.to_request())
        except StockdeskError as exc:
            context = home_context(deps, form, exc, pick_language(request)) | {
                "choices": resolved if isinstance(resolved, list) else []
            }
            return deps.pages.render(request, "home.html.j2", context, status_code=exc.http_status)
        return RedirectResponse(f"/analyses/{started.session_id}", status_code=303)

    def context(progress: AnalysisProgress, request: Request) -> dict[str, object]:
        return {"p": progress_view(progress, pick_language(request))}

    @router.get("/analyses/{session_id}")
    def progress(request: Request, session_id: str) -> Response:
        """Live: follows the run over SSE. Finished: the stored state (cancelled/interrupted and why)."""
        return deps.pages.render(request, TEMPLATE, context(runs().progress(session_id), request))

    @router.get("/analyses/{session_id}/events")
    def events(request: Request, session_id: str) -> StreamingResponse:
        """The progress table as an HTML fragment per change (`progress`), then `done`."""
        runs().progress(session_id)  # 404 before the stream starts
        stream = progress_events(
            lambda: runs().progress(session_id),
            lambda p: deps.pages.render_text(request, TEMPLATE, "progress", context(p, request)),
            lambda p: p.finished,
            event="progress",
        )
        return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)

    @router.post("/analyses/{session_id}/cancel")
    def cancel(session_id: str) -> Response:
        """Moved to the jobs route (307), which comes back to this analysis's page."""
        return moved_to_jobs(session_id, "cancel", f"/analyses/{session_id}")

    return router
