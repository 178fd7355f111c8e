"""Ports of the financial auditor."""

from __future__ import annotations

from stockdesk.research.domain.dtos.financial import (
    FinancialAuditOutput,
    FinancialSnapshotDTO,
)
from stockdesk.research.domain.ports.expert_agent import IExpertAgentPort

IFinancialAuditorAgentPort = IExpertAgentPort[FinancialSnapshotDTO, FinancialAuditOutput]
