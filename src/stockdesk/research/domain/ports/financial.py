"""Ports of the financial auditor."""

from __future__ import annotations

from stockdesk.llm_platform.application.agent import Agent, AgentAnswer
from stockdesk.research.domain.dtos.financial import (
    FinancialAuditOutput,
    FinancialSnapshotDTO,
)

IFinancialAuditorAgentPort = Agent[FinancialSnapshotDTO, AgentAnswer[FinancialAuditOutput]]
