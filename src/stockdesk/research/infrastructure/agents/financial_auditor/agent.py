"""IFinancialAuditorAgentPort on the shared expert agent."""

from __future__ import annotations

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.research.domain.dtos.financial import FinancialAuditOutput, FinancialSnapshotDTO
from stockdesk.research.domain.ports.financial import IFinancialAuditorAgentPort
from stockdesk.research.infrastructure.agents.structured_agent import ExpertAgent

# Five short dimension notes in Chinese fit well within 700 tokens (scores come from code);
# the budget only stops a runaway answer.
OUTPUT_TOKENS = 700


class FinancialAuditorAgent(
    ExpertAgent[FinancialSnapshotDTO, FinancialAuditOutput], IFinancialAuditorAgentPort
):
    def __init__(self, llm: LLMHandle):
        super().__init__(
            llm,
            package=__package__,
            output_model=FinancialAuditOutput,
            expert="financial_auditor",
            max_tokens=OUTPUT_TOKENS,
        )
