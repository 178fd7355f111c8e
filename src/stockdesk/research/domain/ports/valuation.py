"""Ports of the valuation modeler (names from the spec)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.research.domain.dtos.valuation import (
    FinanceRecordInput,
    StockOverviewInput,
    ValuationDailyInput,
    ValuationModelOutput,
    ValuationSnapshotDTO,
)
from stockdesk.research.domain.ports.expert_agent import IExpertAgentPort


class IValuationSnapshotBuilder(ABC):
    @abstractmethod
    def build(
        self,
        overview: StockOverviewInput,
        dailies: list[ValuationDailyInput],
        finance: list[FinanceRecordInput],
        as_of: date,
    ) -> ValuationSnapshotDTO: ...


IValuationModelerAgentPort = IExpertAgentPort[ValuationSnapshotDTO, ValuationModelOutput]
