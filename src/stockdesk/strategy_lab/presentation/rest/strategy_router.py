"""Strategy lab over REST: one backtest, start an autonomous run, read a run."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, BackgroundTasks, Depends, Query

from stockdesk.strategy_lab.application.service import StrategyLabService, parse_params
from stockdesk.strategy_lab.domain.dtos import BacktestResult, StrategyRunDTO
from stockdesk.strategy_lab.presentation.rest.strategy_schemas import BacktestBody, RunBody


def build_strategy_router(get_service: Callable[[], StrategyLabService]) -> APIRouter:
    router = APIRouter(prefix="/strategy", tags=["strategy"])

    @router.post("/backtest", response_model=BacktestResult)
    def backtest(body: BacktestBody, service: StrategyLabService = Depends(get_service)) -> BacktestResult:
        """Score one parameter set (no LLM); bad parameters are 400 INVALID_STRATEGY_PARAMS with details."""
        return service.backtest(parse_params(body.params), body.window())

    @router.post("/runs", response_model=StrategyRunDTO, status_code=202)
    def start_run(
        body: RunBody, tasks: BackgroundTasks, service: StrategyLabService = Depends(get_service)
    ) -> StrategyRunDTO:
        """Create the run (universe and window checked now) and iterate in the background; poll GET."""
        run = service.create_run(body.config())
        tasks.add_task(service.execute, run.id)
        return run

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
