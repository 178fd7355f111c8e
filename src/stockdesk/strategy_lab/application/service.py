"""The strategy lab's application interface: what the CLI, REST and other contexts call."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from stockdesk.strategy_lab.application.autonomous_loop import AutonomousLoop, LoopObserver
from stockdesk.strategy_lab.application.backtest_service import BacktestService
from stockdesk.strategy_lab.application.feedback import details_from_validation_error
from stockdesk.strategy_lab.application.trials import best_scored
from stockdesk.strategy_lab.domain.dtos import (
    BacktestResult,
    BacktestWindow,
    ExecutionSettings,
    RunConfig,
    StrategyRunDTO,
)
from stockdesk.strategy_lab.domain.errors import (
    InvalidStrategyParamsError,
    NothingToReplayError,
    StrategyRunNotFoundError,
)
from stockdesk.strategy_lab.domain.params import (
    StrategyParams,
    validate_params,
    with_family,
)
from stockdesk.strategy_lab.domain.ports import IStrategyRunRepository


def parse_params(raw: str | dict[str, Any]) -> StrategyParams:
    """Parameters typed by a person (CLI --params, REST body), with the same feedback the LLM gets.

    Any family; without strategy_type the set is a momentum set (what people typed before there
    were families, and what stored runs hold).
    """
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as exc:
        raise InvalidStrategyParamsError(f"--params is not JSON: {exc.msg} at character {exc.pos}") from exc
    if isinstance(data, dict) and isinstance(data.get("params"), dict):
        data = data["params"]  # a whole answer's JSON section ({"params": {...}}) is accepted too
    try:
        return validate_params(data)
    except ValidationError as exc:
        details = details_from_validation_error(exc, with_family(data))
        summary = "; ".join(
            f"{d.field_path.removeprefix('params.')}: {d.suggestion or d.error_type}" for d in details
        )
        raise InvalidStrategyParamsError(
            f"invalid strategy parameters: {summary}", details={"errors": [d.as_dict() for d in details]}
        ) from exc


class StrategyLabService:
    def __init__(
        self,
        backtests: BacktestService,
        runs: IStrategyRunRepository,
        loop: Callable[[], AutonomousLoop],
    ):
        self._backtests = backtests
        self._runs = runs
        self._loop = loop  # built on first use: `backtest` and `show` never load a model

    def backtest(
        self, params: StrategyParams, window: BacktestWindow, execution: ExecutionSettings | None = None
    ) -> BacktestResult:
        return self._backtests.backtest(params, window, execution)

    def create_run(self, config: RunConfig) -> StrategyRunDTO:
        return self._loop().create(config)

    def execute(self, run_id: str, observer: LoopObserver | None = None) -> StrategyRunDTO:
        return self._loop().execute(run_id, observer)

    def get(self, run_id: str) -> StrategyRunDTO:
        run = self._runs.get(run_id)
        if run is None:
            raise StrategyRunNotFoundError(f"no strategy run with id {run_id}", details={"id": run_id})
        return run

    def list(self, limit: int = 20) -> list[StrategyRunDTO]:
        return self._runs.list(limit)

    def replay(self, run_id: str, number: int | None = None) -> BacktestResult:
        """Re-score an iteration from its stored parameters, for its equity curve.

        The code is rendered again from the parameters (validated when read back); the stored code is
        only ever shown, never run. Default: the champion, else the best-scoring iteration even if
        its drawdown was too deep.
        """
        run = self.get(run_id)
        if number is None:
            record = run.champion or best_scored(run.iterations)
        else:
            record = next((i for i in run.iterations if i.number == number), None)
        if record is None or record.params is None or record.metrics is None:
            which = "has no scored iteration" if number is None else f"has no scored iteration {number}"
            raise NothingToReplayError(f"strategy run {run_id} {which}")
        panel = self._backtests.panel(run.config.window, run.config.split)
        if run.summary is None and panel.plan is not None:
            panel = panel.until(panel.plan.selection.end)  # the holdout is shown once the run is done
        return self._backtests.score(record.params, panel, run.config.execution)
