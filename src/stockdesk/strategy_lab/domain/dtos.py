"""What the strategy lab's interfaces take and return."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.shared.execution import CostModel, PerformanceMetrics, StrategyMetrics
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams

# Momentum portfolios of a handful of A-shares drew down 35-48% on the sample (2017-2020; the
# equal-weight universe itself -36%): a tighter default would leave most runs without a champion.
DEFAULT_MAX_DRAWDOWN = 0.5


class BacktestWindow(BaseModel):
    universe: list[str] | None = Field(default=None, description="None: every stored security with history")
    start: date | None = Field(default=None, description="first day scored; default: 3 years before `end`")
    end: date | None = Field(default=None, description="last day scored; default: the newest stored bar")


class EquityPoint(BaseModel):
    day: date
    strategy: float
    benchmark: float


class BacktestResult(BaseModel):
    params: MomentumStrategyParams
    universe: list[str]
    start: date
    end: date
    metrics: StrategyMetrics
    benchmark: PerformanceMetrics
    beat_benchmark: bool
    costs: dict[str, CostModel] = Field(description="per market")
    equity_curve: list[EquityPoint] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class IterationStatus(StrEnum):
    GENERATION_FAILED = "generation_failed"
    BACKTEST_FAILED = "backtest_failed"
    INVALID_METRICS = "invalid_metrics"
    RAN = "ran"
    BEAT_BENCHMARK = "beat_benchmark"


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    INTERRUPTED = "interrupted"
    FAILED = "failed"


class IterationRecord(BaseModel):
    run_id: str
    number: int = Field(ge=1)
    status: IterationStatus
    params: MomentumStrategyParams | None = None
    reasoning: str | None = None
    code: str | None = None
    metrics: StrategyMetrics | None = None
    benchmark: PerformanceMetrics | None = None
    errors: list[dict[str, Any]] = Field(default_factory=list)
    attempts: int = 0
    llm_calls: int = 0
    tokens: int = 0
    is_champion: bool = False
    started_at: datetime
    seconds: float = 0.0


class RunConfig(BaseModel):
    iterations: int = Field(ge=1, le=200)
    window: BacktestWindow = Field(default_factory=BacktestWindow)
    max_drawdown_limit: float = Field(
        DEFAULT_MAX_DRAWDOWN, gt=0.0, le=1.0, description="the champion must not lose more than this"
    )
    max_attempts: int = Field(3, ge=1, le=10)


class StrategyRunDTO(BaseModel):
    id: str
    status: RunStatus
    config: RunConfig
    created_at: datetime
    finished_at: datetime | None = None
    champion: IterationRecord | None = None
    iterations: list[IterationRecord] = Field(default_factory=list)
    error: str | None = None
    tokens: int = 0
    llm_calls: int = 0
