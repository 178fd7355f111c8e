"""Strategy lab over REST: one backtest, start an autonomous run, read a run.

Runs go through the server's job executor (bounded, queued, cancellable between iterations); a run
stopped by a cancel or a server stop is `interrupted` and `POST /api/v1/jobs/{id}/resume` continues
it (the run's own `.../resume` and `.../cancel` answer 307 to the general jobs routes).
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends, Query
from starlette.responses import Response

from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.routes import cancel_moved, resume_moved
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.strategy_lab.application.service import StrategyLabService
from stockdesk.strategy_lab.domain.dtos import BacktestResult, StrategyRunDTO
from stockdesk.strategy_lab.presentation.backtests import checked_backtest
from stockdesk.strategy_lab.presentation.jobs import launch_strategy_run
from stockdesk.strategy_lab.presentation.rest.strategy_schemas import BacktestBody, RunBody


def build_strategy_router(
    get_service: Callable[[], StrategyLabService],
    get_jobs: Callable[[], JobExecutor],
    bounds: RequestBounds | None = None,
) -> APIRouter:
    router = APIRouter(prefix="/strategy", tags=["strategy"])
    limits = bounds or RequestBounds()

    @router.post("/backtest", response_model=BacktestResult)
    def backtest(body: BacktestBody, service: StrategyLabService = Depends(get_service)) -> BacktestResult:
        """Score one parameter set (no LLM); bad parameters are 400 INVALID_STRATEGY_PARAMS with details."""
        return checked_backtest(service, limits, body)

    @router.post("/runs", response_model=StrategyRunDTO, status_code=202)
    def start_run(body: RunBody, service: StrategyLabService = Depends(get_service)) -> StrategyRunDTO:
        """Create the run (bounds, universe and window checked now) and iterate as a job; poll GET."""
        return launch_strategy_run(service, get_jobs(), limits, body.config())

    @router.post("/runs/{run_id}/resume", include_in_schema=False)
    def resume(run_id: str) -> Response:
        """Moved to `POST /api/v1/jobs/{id}/resume` (307): it continues from the last stored iteration."""
        return resume_moved(run_id)

    @router.post("/runs/{run_id}/cancel", include_in_schema=False)
    def cancel(run_id: str) -> Response:
        """Moved to `POST /api/v1/jobs/{id}/cancel` (307); the run ends `interrupted`, resumable."""
        return cancel_moved(run_id)

    @router.get("/runs", response_model=list[StrategyRunDTO])
    def runs(
        limit: int = Query(default=20, ge=1, le=200), service: StrategyLabService = Depends(get_service)
    ) -> list[StrategyRunDTO]:
        return service.list(limit)

    @router.get("/runs/{run_id}", response_model=StrategyRunDTO)
    def run(run_id: str, service: StrategyLabService = Depends(get_service)) -> StrategyRunDTO:
        """Every iteration so far (params, reasoning, code, metrics, errors, tokens) and the champion."""
        return service.get(run_id)

    return router
