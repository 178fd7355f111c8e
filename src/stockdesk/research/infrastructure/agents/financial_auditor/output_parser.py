"""Output parser of the financial auditor."""

from __future__ import annotations

from stockdesk.research.domain.dtos.financial import FinancialAuditOutput
from stockdesk.research.infrastructure.agents.structured_agent import parse_expert_output


def parse_financial_output(raw: str) -> FinancialAuditOutput:
    return parse_expert_output(raw, FinancialAuditOutput, "financial_auditor")
