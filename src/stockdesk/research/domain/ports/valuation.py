"""Ports of the valuation modeler (names from the spec)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.llm_platform.application.agent import Agent, AgentAnswer
from stockdesk.research.domain.dtos.valuation import (
    FinanceRecordInput,
    StockOverviewInput,
    ValuationDailyInput,
    ValuationModelOutput,
    ValuationSnapshotDTO,
)


class IValuationDataPort(ABC):
    """Fetches the three kinds of data through data_engineering's application interface."""

    @abstractmethod
    def get_stock_overview(self, symbol: str, as_of: date) -> StockOverviewInput | None:
        """None when the symbol is unknown."""

    @abstractmethod
    def get_valuation_dailies(self, symbol: str, as_of: date) -> list[ValuationDailyInput]: ...

    @abstractmethod
    def get_finance_records(self, symbol: str, as_of: date) -> list[FinanceRecordInput]: ...


class IValuationSnapshotBuilder(ABC):
    @abstractmethod
    def build(
        self,
        overview: StockOverviewInput,
        dailies: list[ValuationDailyInput],
        finance: list[FinanceRecordInput],
        as_of: date,
    ) -> ValuationSnapshotDTO: ...


IValuationModelerAgentPort = Agent[ValuationSnapshotDTO, AgentAnswer[ValuationModelOutput]]
