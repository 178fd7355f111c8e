"""POST /api/v1/debate/run: the debate on its own, for debugging and independent tests."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends

from stockdesk.debate.application import DebateOutcomeDTO, DebateService
from stockdesk.debate.presentation.rest.debate_schemas import DebateRequest
from stockdesk.research.application import expert_views


def build_debate_router(get_service: Callable[[], DebateService]) -> APIRouter:
    router = APIRouter(tags=["debate"])

    @router.post("/debate/run", response_model=DebateOutcomeDTO)
    def run(request: DebateRequest, service: DebateService = Depends(get_service)) -> DebateOutcomeDTO:
        """Expert results in, one debate outcome out, with every LLM call's prompt and answer."""
        views = expert_views(request.expert_results)  # research reads its own results (a 400 if not)
        return service.run(request.symbol, views, mode=request.mode, as_of=request.as_of)

    return router
