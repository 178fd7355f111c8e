"""Ports of the two soft-intelligence experts (macro intelligence, catalyst detective)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from stockdesk.research.domain.dtos.search import (
    DimensionSearchResult,
    SearchSnapshotDTO,
    StockSearchContext,
)
from stockdesk.research.domain.dtos.soft_intel import CatalystDetectiveOutput, MacroIntelligenceOutput
from stockdesk.research.domain.ports.expert_agent import IExpertAgentPort


class ISearchSnapshotBuilder(ABC):
    @abstractmethod
    def build(
        self, context: StockSearchContext, results: list[DimensionSearchResult]
    ) -> SearchSnapshotDTO: ...


IMacroIntelligenceAgentPort = IExpertAgentPort[SearchSnapshotDTO, MacroIntelligenceOutput]


ICatalystDetectiveAgentPort = IExpertAgentPort[SearchSnapshotDTO, CatalystDetectiveOutput]
