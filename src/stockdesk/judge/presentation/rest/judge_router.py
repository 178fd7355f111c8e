"""POST /api/v1/judge/verdict: the judge on its own, for debugging and independent tests."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends

from stockdesk.judge.application import JudgeService, VerdictDTO
from stockdesk.judge.presentation.rest.judge_schemas import VerdictRequest


def build_judge_router(get_service: Callable[[], JudgeService]) -> APIRouter:
    router = APIRouter(tags=["judge"])

    @router.post("/judge/verdict", response_model=VerdictDTO)
    def verdict(request: VerdictRequest, service: JudgeService = Depends(get_service)) -> VerdictDTO:
        """A debate outcome in, one structured verdict out, with the rules that changed it."""
        return service.run_on_outcome(
            request.symbol.strip(), request.debate_outcome, request.evidence, samples=request.samples
        )

    return router
