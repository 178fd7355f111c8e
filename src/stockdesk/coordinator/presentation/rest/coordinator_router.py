"""Research sessions over REST: run one, list them, read one whole, retry its failed experts."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response, StreamingResponse

from stockdesk.coordinator.application import (
    AnalysisProgress,
    AnalysisRuns,
    ResearchCoordinatorService,
    ResearchSession,
    SessionPage,
    SessionStatus,
)
from stockdesk.coordinator.presentation.rest.coordinator_schemas import ResearchBody
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.routes import cancel_moved
from stockdesk.shared.sse import HEADERS, progress_events


def build_coordinator_router(
    get_service: Callable[[], ResearchCoordinatorService],
    get_runs: Callable[[], AnalysisRuns] | None = None,
) -> APIRouter:
    router = APIRouter(prefix="/coordinator/research", tags=["coordinator"])

    @router.post("", response_model=ResearchSession)
    async def research(
        body: ResearchBody, service: ResearchCoordinatorService = Depends(get_service)
    ) -> ResearchSession:
        """The whole pipeline; a failing expert makes the session `partial`, never a 5xx."""
        return await service.arun(body.to_request())

    @router.get("/sessions", response_model=SessionPage)
    def sessions(
        symbol: str | None = None,
        status: SessionStatus | None = None,
        since: IsoDay | None = Query(default=None, description="sessions started on or after this day"),
        action: str | None = Query(default=None, max_length=8, description="the verdict's action"),
        offset: int = Query(default=0, ge=0, le=1_000_000_000),
        limit: int = Query(default=20, ge=1, le=200),
        service: ResearchCoordinatorService = Depends(get_service),
    ) -> SessionPage:
        return service.list(
            symbol=symbol,
            status=status.value if status else None,
            since=since,
            action=action,
            offset=offset,
            limit=limit,
        )

    @router.get("/sessions/{session_id}", response_model=ResearchSession)
    def session(
        session_id: str, service: ResearchCoordinatorService = Depends(get_service)
    ) -> ResearchSession:
        """Everything: each expert's input/output/indicators, the debate, the verdict, node timings."""
        return service.get(session_id)

    @router.post("/{session_id}/retry", response_model=ResearchSession)
    async def retry(
        session_id: str, service: ResearchCoordinatorService = Depends(get_service)
    ) -> ResearchSession:
        """Rerun only the failed experts, reuse the rest; the new session names its parent."""
        return await service.aretry(session_id)

    if get_runs is not None:
        _job_routes(router, get_runs)
    return router


def _job_routes(router: APIRouter, get_runs: Callable[[], AnalysisRuns]) -> None:
    """The same pipeline as a job: answered at once with the session id, followed by polling or SSE."""

    @router.post("/jobs", response_model=AnalysisProgress, status_code=202)
    def start(body: ResearchBody, runs: AnalysisRuns = Depends(get_runs)) -> AnalysisProgress:
        """Queue an analysis (404 unknown symbol now, not later); its id is the session's."""
        return runs.start(body.to_request())

    @router.get("/jobs/{session_id}", response_model=AnalysisProgress)
    def progress(session_id: str, runs: AnalysisRuns = Depends(get_runs)) -> AnalysisProgress:
        """Each node's state, LLM calls, tokens and elapsed time; the stored session once it ended."""
        return runs.progress(session_id)

    @router.post("/jobs/{session_id}/cancel", include_in_schema=False)
    def cancel(session_id: str) -> Response:
        """Moved to `POST /api/v1/jobs/{id}/cancel` (307); the session is kept as `cancelled`."""
        return cancel_moved(session_id)

    @router.post("/jobs/{session_id}/retry", response_model=AnalysisProgress, status_code=202)
    def retry_job(session_id: str, runs: AnalysisRuns = Depends(get_runs)) -> AnalysisProgress:
        """Retry a session's failed parts as a job: answered at once with the new session's id."""
        return runs.retry(session_id)

    @router.get(
        "/jobs/{session_id}/events",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}, "description": "progress as JSON events"}},
    )
    def events(session_id: str, runs: AnalysisRuns = Depends(get_runs)) -> StreamingResponse:
        """Server-sent events: a `progress` event (AnalysisProgress JSON) per change, then `done`."""
        runs.progress(session_id)  # 404 before the stream starts
        stream = progress_events(
            lambda: runs.progress(session_id),
            lambda p: p.model_dump_json(),
            lambda p: p.finished,
            event="progress",
        )
        return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)
