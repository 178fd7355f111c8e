"""What the strategy lab's interfaces take and return."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, model_validator

from stockdesk.backtest.application import CostModel, PerformanceMetrics, StrategyMetrics
from stockdesk.strategy_lab.domain.params import StrategyParams, with_family

# Stored iterations from before the families have no strategy_type: they are momentum sets.
AnyParams = Annotated[StrategyParams, BeforeValidator(with_family)]

# Momentum portfolios of a handful of A-shares drew down 35-48% on the sample (2017-2020; the
# equal-weight universe itself -36%): a tighter default would leave most runs without a champion.
DEFAULT_MAX_DRAWDOWN = 0.5


SplitMode = Literal["fixed", "walk_forward"]
MIN_HOLDOUT = 0.1


class SplitConfig(BaseModel):
    """How a run cuts its window in time: the loop sees in-sample, selection sees validation, nobody
    sees the holdout until the run has picked its champion."""

    mode: SplitMode = Field(
        "fixed",
        description="fixed: one in-sample and one validation period; "
        "walk_forward: rolling in-sample windows, each followed by its validation window",
    )
    in_sample: float = Field(0.6, gt=0.0, lt=1.0, description="share of the window's trading days")
    validation: float = Field(0.2, gt=0.0, lt=1.0, description="share of the window's trading days")
    folds: int = Field(3, ge=2, le=12, description="walk_forward: number of rolling windows")

    @model_validator(mode="after")
    def _holdout_left(self) -> SplitConfig:
        if self.in_sample + self.validation > 1.0 - MIN_HOLDOUT + 1e-9:
            raise ValueError(
                f"in_sample ({self.in_sample}) + validation ({self.validation}) must leave at least "
                f"{MIN_HOLDOUT:.0%} of the window for the holdout"
            )
        return self

    @property
    def holdout(self) -> float:
        return round(1.0 - self.in_sample - self.validation, 10)


class Period(BaseModel):
    start: date
    end: date
    days: int = Field(ge=1, description="trading days, both ends included")


class Fold(BaseModel):
    in_sample: Period
    validation: Period


class SplitPlan(BaseModel):
    """The periods of one run, fixed when the run starts (from the trading calendar, never from prices)."""

    mode: SplitMode
    folds: list[Fold] = Field(min_length=1, description="fixed mode: exactly one")
    holdout: Period

    @property
    def in_sample(self) -> list[Period]:
        return [f.in_sample for f in self.folds]

    @property
    def validation(self) -> Period:
        """The validation span: with walk_forward the folds' validation windows, back to back."""
        first, last = self.folds[0].validation, self.folds[-1].validation
        return Period(start=first.start, end=last.end, days=sum(f.validation.days for f in self.folds))

    @property
    def selection(self) -> Period:
        """Everything the loop and the selection may read: from the first in-sample day to the last
        validation day."""
        first = self.folds[0].in_sample
        return Period(start=first.start, end=self.validation.end, days=self._selection_days())

    def _selection_days(self) -> int:
        if self.mode == "fixed":
            return self.folds[0].in_sample.days + self.folds[0].validation.days
        return self.folds[0].in_sample.days + self.validation.days


class BacktestWindow(BaseModel):
    universe: list[str] | None = Field(default=None, description="None: every stored security with history")
    start: date | None = Field(default=None, description="first day scored; default: 3 years before `end`")
    end: date | None = Field(default=None, description="last day scored; default: the newest stored bar")


class EquityPoint(BaseModel):
    day: date
    strategy: float
    benchmark: float
    gross: float | None = Field(default=None, description="the strategy without costs")


class EquityTurnover(BaseModel):
    day: date
    turnover: float


class TradeRecord(BaseModel):
    day: date = Field(description="execution day (the open after the decision)")
    symbol: str
    side: Literal["buy", "sell", "stop"]
    weight: float = Field(description="change of the portfolio weight, + bought, - sold")
    price: float | None = Field(default=None, description="raw fill price where known")


class ExecutionSettings(BaseModel):
    """How orders meet the market (the shared execution module's rules) and what they cost."""

    capital: float | None = Field(
        1_000_000.0,
        gt=0.0,
        description="starting money: A-shares trade in lots of 100 shares; None = fractional",
    )
    slippage: float = Field(0.0005, ge=0.0, lt=0.05, description="per side, a fraction of the traded value")
    price_limits: bool = Field(True, description="no buy at a limit-up open, no sell at a limit-down open")
    t_plus_one: bool = Field(True, description="A-shares bought today can be sold tomorrow at the earliest")


class BacktestResult(BaseModel):
    params: AnyParams
    universe: list[str]
    start: date
    end: date
    metrics: StrategyMetrics = Field(description="after costs")
    gross_metrics: StrategyMetrics | None = Field(default=None, description="the same orders without costs")
    benchmark: PerformanceMetrics
    beat_benchmark: bool
    costs: dict[str, CostModel] = Field(description="per market (A-share sells: stamp duty by date on top)")
    execution: ExecutionSettings = Field(default_factory=ExecutionSettings)
    equity_curve: list[EquityPoint] = Field(default_factory=list)
    turnover: list[EquityTurnover] = Field(default_factory=list, description="one-way turnover per execution")
    trades: list[TradeRecord] = Field(default_factory=list)
    blocked_orders: int = Field(0, description="orders a price limit or a suspension kept from filling")
    notes: list[str] = Field(default_factory=list)


class IterationStatus(StrEnum):
    GENERATION_FAILED = "generation_failed"
    BACKTEST_FAILED = "backtest_failed"
    INVALID_METRICS = "invalid_metrics"
    RAN = "ran"
    BEAT_BENCHMARK = "beat_benchmark"


SCORED_STATUSES = (IterationStatus.RAN, IterationStatus.BEAT_BENCHMARK)


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    INTERRUPTED = "interrupted"
    FAILED = "failed"


class FoldFigures(BaseModel):
    in_sample_sharpe: float
    validation_sharpe: float


class TrialReturns(BaseModel):
    """Daily returns after costs, rounded to 1e-8: over the selection span (for PBO) and the validation
    span (for the deflated Sharpe of the champion)."""

    selection: list[float] = Field(default_factory=list)
    validation: list[float] = Field(default_factory=list)


class IterationRecord(BaseModel):
    run_id: str
    number: int = Field(ge=1)
    status: IterationStatus
    params: AnyParams | None = None
    reasoning: str | None = None
    code: str | None = None
    metrics: StrategyMetrics | None = Field(
        default=None, description="IN-SAMPLE, after costs: what the loop sees"
    )
    benchmark: PerformanceMetrics | None = Field(default=None, description="in-sample equal-weight universe")
    validation: StrategyMetrics | None = Field(
        default=None, description="what the selection sees; never prompted"
    )
    validation_benchmark: PerformanceMetrics | None = None
    folds: list[FoldFigures] = Field(default_factory=list, description="walk_forward: per-fold Sharpe ratios")
    returns: TrialReturns | None = Field(
        default=None, description="daily returns for the overfitting statistics"
    )
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
    split: SplitConfig = Field(default_factory=SplitConfig)
    execution: ExecutionSettings = Field(default_factory=ExecutionSettings)
    max_drawdown_limit: float = Field(
        DEFAULT_MAX_DRAWDOWN, gt=0.0, le=1.0, description="the champion must not lose more than this"
    )
    max_attempts: int = Field(3, ge=1, le=10)


class SplitFigures(StrategyMetrics):
    """The champion's figures over one split (after costs), with the same orders' gross figures and the
    equal-weight universe beside them."""

    periods: list[Period] = Field(default_factory=list)
    gross: StrategyMetrics | None = None
    benchmark: PerformanceMetrics | None = None


class ChampionSplits(BaseModel):
    in_sample: SplitFigures
    validation: SplitFigures
    holdout: SplitFigures


class OverfittingFigures(BaseModel):
    """How much the champion's validation Sharpe owes to having tried many sets."""

    trials: int
    deflated_sharpe: float | None = Field(
        description="Bailey & Lopez de Prado: P(true Sharpe > 0 | N trials)"
    )
    validation_sharpe_per_day: float | None = None
    expected_max_sharpe_per_day: float | None = Field(default=None, description="SR0 of N trials of no skill")
    skewness: float | None = None
    kurtosis: float | None = None
    observations: int = 0
    pbo: float | None = Field(description="probability of backtest overfitting (CSCV over the trials)")
    partitions: int | None = None
    combinations: int | None = None
    notes: list[str] = Field(default_factory=list)


class RunSummary(BaseModel):
    """Written once, when the iterations are done: the holdout is evaluated here and nowhere else."""

    plan: SplitPlan
    splits: ChampionSplits | None = None
    overfitting: OverfittingFigures
    notes: list[str] = Field(
        default_factory=list, description="every note, the overfitting ones too (English)"
    )
    i18n: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="the notes in each language: {lang: {'notes': [...]}}"
    )


class UnreadableRow(BaseModel):
    """A stored row of a run that could not be read (malformed JSON, a value its model refuses): it is
    left out of the run, named here, and logged once, so one bad row does not fail the whole list."""

    table: str = Field(description="strategy_iterations, or strategy_runs for the run's own summary")
    row_id: str = Field(description="the row's primary key")
    number: int | None = Field(default=None, description="the iteration's number, when it could be read")
    error: str = Field(description="why it could not be read, on one line")


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
    summary: RunSummary | None = None
    families_tried: list[str] = Field(default_factory=list, description="in the order first tried")
    trials: int = Field(0, description="parameter sets backtested")
    splits: ChampionSplits | None = Field(
        default=None, description="the champion: in-sample, validation, holdout"
    )
    deflated_sharpe: float | None = None
    pbo: float | None = None
    unreadable: list[UnreadableRow] = Field(
        default_factory=list, description="stored rows left out because they could not be read"
    )

    @model_validator(mode="after")
    def _derived(self) -> StrategyRunDTO:
        """The JSON contract's top-level figures, derived from the iterations and the summary."""
        self.families_tried = list(
            dict.fromkeys(i.params.strategy_type for i in self.iterations if i.params is not None)
        )
        self.trials = sum(1 for i in self.iterations if i.status in SCORED_STATUSES)
        if self.summary is not None:
            self.splits = self.summary.splits
            self.deflated_sharpe = self.summary.overfitting.deflated_sharpe
            self.pbo = self.summary.overfitting.pbo
        return self
