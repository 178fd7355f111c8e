"""Ports of the financial auditor."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.research.domain.dtos.financial import (
    AuditFinanceRecordInput,
    FinancialAuditOutput,
    FinancialSnapshotDTO,
)
from stockdesk.research.domain.ports.expert_agent import IExpertAgentPort


class IFinancialSnapshotBuilder(ABC):
    @abstractmethod
    def build(
        self, symbol: str, name: str, industry: str, records: list[AuditFinanceRecordInput], as_of: date
    ) -> FinancialSnapshotDTO: ...


IFinancialAuditorAgentPort = IExpertAgentPort[FinancialSnapshotDTO, FinancialAuditOutput]
