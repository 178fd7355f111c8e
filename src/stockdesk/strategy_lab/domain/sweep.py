"""A strategy sweep: many parameter sets (a grid, or several LLM proposals) scored in one durable job.

The spec is the job's identity: the same spec (grid or number of LLM runs, window, split, execution,
drawdown limit) opens the same job, so running it again resumes instead of starting over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

from stockdesk.shared.errors import BadRequestException
from stockdesk.strategy_lab.domain.dtos import (
    DEFAULT_MAX_DRAWDOWN,
    BacktestWindow,
    ExecutionSettings,
    RunSummary,
    SplitConfig,
)
from stockdesk.strategy_lab.domain.params import StrategyParams

MAX_SETS = 5_000  # parameter sets (or LLM proposals) in one sweep
MAX_LLM_RUNS = 1_000
LLM_KEY_PREFIX = "llm-"  # an LLM proposal's task key: llm-0001 (its number is also its seed)
SUMMARY_KEY = "~summary"  # the job's last task: the champion's holdout and the overfitting statistics


class SweepGridError(BadRequestException):
    """The grid file cannot give a single valid parameter set (or is malformed)."""

    code = "INVALID_SWEEP_GRID"


class SweepSpec(BaseModel):
    """What a sweep scores: exactly one of `grid` (name -> values, their product) or `llm_runs`."""

    grid: dict[str, list[Any]] | None = Field(
        default=None, description="parameter -> values; the cartesian product per family"
    )
    llm_runs: int | None = Field(
        default=None, ge=1, le=MAX_LLM_RUNS, description="LLM proposals, one call each, seeds 1..K"
    )
    window: BacktestWindow = Field(default_factory=BacktestWindow)
    split: SplitConfig = Field(default_factory=SplitConfig)
    execution: ExecutionSettings = Field(default_factory=ExecutionSettings)
    max_drawdown_limit: float = Field(DEFAULT_MAX_DRAWDOWN, gt=0.0, le=1.0)

    @field_validator("grid", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        """A fixed value may be written as a scalar: it is a list of one."""
        if isinstance(value, dict):
            return {str(k): v if isinstance(v, list) else [v] for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _one_source(self) -> SweepSpec:
        if (self.grid is None) == (self.llm_runs is None):
            raise ValueError("give exactly one of grid (parameter -> values) or llm_runs (a number)")
        if self.grid is not None and any(not values for values in self.grid.values()):
            empty = [k for k, v in self.grid.items() if not v]
            raise ValueError(f"grid values must not be empty lists: {', '.join(empty)}")
        return self


@dataclass(frozen=True)
class SweepSet:
    """One task of a sweep: a grid's parameter set, or an LLM proposal chosen when its task runs."""

    key: str
    number: int  # 1-based: the position in the grid's expansion, or the LLM proposal's seed
    params: StrategyParams | None  # None for an LLM proposal


class SkippedSet(BaseModel):
    """A combination of the grid the parameter union rejects, with why."""

    values: dict[str, Any]
    reason: str


@dataclass(frozen=True)
class SweepPlan:
    """A spec's tasks and the grid combinations left out."""

    sets: list[SweepSet]
    skipped: list[SkippedSet]

    def by_key(self) -> dict[str, SweepSet]:
        return {s.key: s for s in self.sets}


class SweepRow(BaseModel):
    """One parameter set's line in the ranked table (figures after costs; None where not scored)."""

    rank: int | None = Field(description="by validation Sharpe, sets within the drawdown limit first")
    key: str
    number: int
    status: str = Field(description="the trial's status when its task is done, else the task's")
    params: dict[str, Any] | None = None
    in_sample_sharpe: float | None = None
    in_sample_annual_return: float | None = None
    in_sample_max_drawdown: float | None = None
    validation_sharpe: float | None = None
    validation_annual_return: float | None = None
    validation_total_return: float | None = None
    validation_max_drawdown: float | None = None
    validation_trades: int | None = None
    within_limit: bool | None = Field(default=None, description="validation drawdown within the limit")
    champion: bool = False
    duplicate_of: int | None = Field(default=None, description="an LLM proposal repeating an earlier set")
    reasoning: str | None = None
    tokens: int = 0
    error: str | None = None


class SweepCounts(BaseModel):
    """The parameter sets' tasks (the summary task is not counted)."""

    done: int = 0
    failed: int = 0
    pending: int = 0
    total: int = 0


class SweepResults(BaseModel):
    """A sweep ranked out of sample; `summary` holds the champion's holdout, scored once."""

    job_id: str
    status: str
    error: str | None = None
    spec: SweepSpec
    counts: SweepCounts
    rows: list[SweepRow]
    skipped: list[SkippedSet] = Field(default_factory=list)
    champion_key: str | None = None
    summary: RunSummary | None = Field(default=None, description="written once every set has finished")
    notes: list[str] = Field(default_factory=list)
