"""Ports of the financial auditor."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from stockdesk.llm_platform.application.agent import Agent, AgentAnswer
from stockdesk.research.domain.dtos.financial import (
    AuditFinanceRecordInput,
    FinancialAuditOutput,
    FinancialSnapshotDTO,
)


class IFinancialDataPort(ABC):
    @abstractmethod
    def get_stock_info(self, symbol: str) -> tuple[str, str, str] | None:
        """(canonical symbol, name, industry), or None when unknown."""

    @abstractmethod
    def get_finance_records(self, symbol: str, as_of: date) -> list[AuditFinanceRecordInput]: ...


class IFinancialSnapshotBuilder(ABC):
    @abstractmethod
    def build(
        self, symbol: str, name: str, industry: str, records: list[AuditFinanceRecordInput], as_of: date
    ) -> FinancialSnapshotDTO: ...


IFinancialAuditorAgentPort = Agent[FinancialSnapshotDTO, AgentAnswer[FinancialAuditOutput]]
