"""Ports of the strategy lab: market data, the strategist LLM, the strategy template, run storage."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

import pandas as pd
from pydantic import BaseModel

from stockdesk.strategy_lab.domain.dtos import IterationRecord, RunConfig, RunStatus, StrategyRunDTO
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams


class IStrategyMarketData(ABC):
    """Prices and fundamentals of a universe, read through data_engineering's application interface."""

    @abstractmethod
    def securities(self) -> dict[str, str]:
        """Every stored security -> its market (CN, US, HK, TW)."""

    @abstractmethod
    def adjusted_closes(self, symbols: list[str], start: date, end: date) -> pd.DataFrame:
        """Dates x symbols of split/dividend-adjusted closes (NaN where a symbol did not trade)."""

    @abstractmethod
    def reported_financials(self, symbols: list[str], as_of: date) -> pd.DataFrame:
        """As reported and announced by `as_of`: symbol, end_date, ann_date, report_type, revenue, roe."""


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


class IStrategist(ABC):
    """The LLM that picks parameters; it answers with text the generator parses."""

    @abstractmethod
    def render(self, context: PromptContext) -> str:
        """The user prompt: the prompt resources filled with the context's sections."""

    @abstractmethod
    def complete(self, prompt: str, run_id: str | None = None) -> StrategistReply:
        """One LLM call; `run_id` links it to the iteration in the call audit."""


class IStrategyTemplate(ABC):
    """Renders a standalone strategy module from validated parameters."""

    name: str

    @abstractmethod
    def render(self, params: MomentumStrategyParams) -> str: ...


class IStrategyRunRepository(ABC):
    @abstractmethod
    def create(self, run_id: str, config: RunConfig) -> StrategyRunDTO: ...

    @abstractmethod
    def save_iteration(self, record: IterationRecord, champion_number: int | None) -> None:
        """Store one iteration and the run's current champion in one transaction."""

    @abstractmethod
    def set_status(self, run_id: str, status: RunStatus, error: str | None = None) -> None: ...

    @abstractmethod
    def get(self, run_id: str) -> StrategyRunDTO | None: ...

    @abstractmethod
    def list(self, limit: int = 20) -> list[StrategyRunDTO]: ...
