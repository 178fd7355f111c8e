"""Ports of the two soft-intelligence experts (macro intelligence, catalyst detective)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.llm_platform.application.agent import Agent, AgentAnswer
from stockdesk.research.domain.dtos.search import (
    DimensionSearchResult,
    SearchSnapshotDTO,
    StockSearchContext,
)
from stockdesk.research.domain.dtos.soft_intel import CatalystDetectiveOutput, MacroIntelligenceOutput


class ISearchDataPort(ABC):
    """Runs one expert's search dimensions for a stock as of a date."""

    @abstractmethod
    def get_search_context(self, symbol: str, as_of: date) -> StockSearchContext | None:
        """Name, industry, market and language of the stock, or None when it is unknown."""

    @abstractmethod
    def search(self, context: StockSearchContext) -> list[DimensionSearchResult]: ...


class ISearchSnapshotBuilder(ABC):
    @abstractmethod
    def build(
        self, context: StockSearchContext, results: list[DimensionSearchResult]
    ) -> SearchSnapshotDTO: ...


IMacroIntelligenceAgentPort = Agent[SearchSnapshotDTO, AgentAnswer[MacroIntelligenceOutput]]


ICatalystDetectiveAgentPort = Agent[SearchSnapshotDTO, AgentAnswer[CatalystDetectiveOutput]]
