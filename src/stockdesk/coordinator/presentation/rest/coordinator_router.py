"""Research sessions over REST: run one, list them, read one whole, retry its failed experts."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends, Query

from stockdesk.coordinator.application import (
    ResearchCoordinatorService,
    ResearchSession,
    SessionPage,
    SessionStatus,
)
from stockdesk.coordinator.presentation.rest.coordinator_schemas import ResearchBody
from stockdesk.shared.dates import IsoDay


def build_coordinator_router(get_service: Callable[[], ResearchCoordinatorService]) -> APIRouter:
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
        offset: int = Query(default=0, ge=0, le=1_000_000_000),
        limit: int = Query(default=20, ge=1, le=200),
        service: ResearchCoordinatorService = Depends(get_service),
    ) -> SessionPage:
        return service.list(
            symbol=symbol, status=status.value if status else None, since=since, offset=offset, limit=limit
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

    return router
