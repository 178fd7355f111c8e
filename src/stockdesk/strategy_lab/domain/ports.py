"""Ports of the strategy lab: the strategist LLM, the template, the sandbox, run storage."""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from dataclasses import dataclass

import pandas as pd
from pydantic import BaseModel

from stockdesk.llm_platform.application.agent import Agent
from stockdesk.strategy_lab.domain.dtos import (
    IterationRecord,
    RunConfig,
    RunStatus,
    RunSummary,
    StrategyRunDTO,
)
from stockdesk.strategy_lab.domain.params import StrategyParams


@dataclass(frozen=True)
class StoredSecurity:
    market: str
    name: str


class PromptContext(BaseModel):
    """The sections of one strategist prompt, computed in code and filled into the prompt resources."""

    output_schema: str
    allowed_values: str
    rules: str
    performance_context: str
    previous_errors: str


class StrategistReply(BaseModel):
    prompt: str
    text: str
    tokens: int = 0


@dataclass(frozen=True)
class StrategistQuestion:
    """One strategist prompt's sections; `run_id` links the call to its iteration in the audit."""

    context: PromptContext
    run_id: str | None = None


# The LLM that picks parameters, as the desk's one agent contract: it answers with text the
# generator parses; a retry's `feedback` is the block of validation errors, after the prompt.
IStrategist = Agent[StrategistQuestion, StrategistReply]


class IStrategyTemplate(ABC):
    """Renders a standalone strategy module from validated parameters."""

    name: str

    @abstractmethod
    def render(self, params: StrategyParams) -> str: ...


class IStrategySession(ABC):
    """One run's use of the sandbox (a worker may be reused; every strategy starts afresh)."""

    @abstractmethod
    def weights(
        self, params: StrategyParams, closes: pd.DataFrame, fundamentals: pd.DataFrame
    ) -> pd.DataFrame:
        """Render the template for `params`, check the code and run it isolated.

        Raises StrategyExecutionError when the strategy fails, hits a limit or returns garbage.
        """


class IStrategySandbox(ABC):
    """Where strategies run. It takes validated parameters, never code: it renders what it runs.

    Stored code is for reading only; nothing that reads a stored iteration can run it.
    """

    @abstractmethod
    def session(self) -> AbstractContextManager[IStrategySession]: ...


class IStrategyRunRepository(ABC):
    @abstractmethod
    def create(self, run_id: str, config: RunConfig) -> StrategyRunDTO: ...

    @abstractmethod
    def save_iteration(self, record: IterationRecord, champion_number: int | None) -> None:
        """Store one iteration and the run's current champion in one transaction."""

    @abstractmethod
    def save_summary(self, run_id: str, summary: RunSummary) -> None:
        """The run's split figures and overfitting statistics, written when its iterations are done."""

    @abstractmethod
    def set_status(self, run_id: str, status: RunStatus, error: str | None = None) -> None: ...

    @abstractmethod
    def get(self, run_id: str) -> StrategyRunDTO | None: ...

    @abstractmethod
    def list(self, limit: int = 20) -> list[StrategyRunDTO]: ...
