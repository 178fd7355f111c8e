"""Ports of the technical analyst."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.llm_platform.application.agent import Agent, AgentAnswer
from stockdesk.research.domain.dtos.technical import (
    PriceBarInput,
    TechnicalAnalysisOutput,
    TechnicalSnapshotDTO,
)


class ITechnicalDataPort(ABC):
    @abstractmethod
    def get_stock_name(self, symbol: str) -> tuple[str, str] | None:
        """(canonical symbol, name), or None when the symbol is unknown."""

    @abstractmethod
    def get_price_bars(self, symbol: str, as_of: date) -> list[PriceBarInput]: ...


class ITechnicalSnapshotBuilder(ABC):
    @abstractmethod
    def build(
        self, symbol: str, name: str, bars: list[PriceBarInput], as_of: date
    ) -> TechnicalSnapshotDTO: ...


ITechnicalAnalystAgentPort = Agent[TechnicalSnapshotDTO, AgentAnswer[TechnicalAnalysisOutput]]
