"""Ports of the technical analyst."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.research.domain.dtos.technical import (
    PriceBarInput,
    TechnicalAnalysisOutput,
    TechnicalSnapshotDTO,
)
from stockdesk.research.domain.ports.expert_agent import IExpertAgentPort


class ITechnicalSnapshotBuilder(ABC):
    @abstractmethod
    def build(
        self, symbol: str, name: str, bars: list[PriceBarInput], as_of: date
    ) -> TechnicalSnapshotDTO: ...


ITechnicalAnalystAgentPort = IExpertAgentPort[TechnicalSnapshotDTO, TechnicalAnalysisOutput]
