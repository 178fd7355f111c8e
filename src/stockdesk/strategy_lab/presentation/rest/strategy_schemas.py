"""Request bodies of the strategy routes (responses are the application's DTOs)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from stockdesk.shared.dates import IsoDay
from stockdesk.shared.symbol_text import SymbolText
from stockdesk.strategy_lab.domain.dtos import (
    DEFAULT_MAX_DRAWDOWN,
    BacktestWindow,
    ExecutionSettings,
    RunConfig,
    SplitConfig,
)


class WindowBody(BaseModel):
    universe: list[SymbolText] | None = Field(
        default=None, max_length=2000, description="stored symbols; omitted or empty = all"
    )
    start: IsoDay | None = None
    end: IsoDay | None = None

    def window(self) -> BacktestWindow:
        return BacktestWindow(universe=self.universe or None, start=self.start, end=self.end)


class BacktestBody(WindowBody):
    params: dict[str, Any] = Field(
        description=(
            "parameters of one family, chosen by strategy_type (momentum, mean_reversion, volatility; "
            "missing = momentum); checked with structured feedback"
        )
    )
    execution: ExecutionSettings = Field(default_factory=ExecutionSettings)


class RunBody(WindowBody):
    iterations: int = Field(5, ge=1, le=50)
    max_drawdown_limit: float = Field(DEFAULT_MAX_DRAWDOWN, gt=0.0, le=1.0)
    max_attempts: int = Field(3, ge=1, le=5)
    split: SplitConfig = Field(default_factory=SplitConfig)
    execution: ExecutionSettings = Field(default_factory=ExecutionSettings)

    def config(self) -> RunConfig:
        return RunConfig(
            iterations=self.iterations,
            window=self.window(),
            max_drawdown_limit=self.max_drawdown_limit,
            max_attempts=self.max_attempts,
            split=self.split,
            execution=self.execution,
        )
