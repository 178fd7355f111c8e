"""FinancialAuditorService: the financial expert's own application entry point."""

from __future__ import annotations

from datetime import date

from stockdesk.research.application.dtos import FinancialAuditorResultDTO
from stockdesk.research.application.expert_runner import run_guarded
from stockdesk.research.application.inputs import require_financials, require_found, require_symbol
from stockdesk.research.domain.dtos.financial import FinancialAuditOutput, FinancialSnapshotDTO
from stockdesk.research.domain.ports.financial import (
    IFinancialAuditorAgentPort,
    IFinancialDataPort,
    IFinancialSnapshotBuilder,
)
from stockdesk.shared.claims import collect_texts

FINANCIAL_TEXTS = (
    "summary_reasoning",
    "key_risks",
    "dimension_analyses.*.assessment",
    "dimension_analyses.*.key_findings",
)


def financial_texts(output: FinancialAuditOutput) -> dict[str, str | list[str]]:
    return collect_texts(output, FINANCIAL_TEXTS)


class FinancialAuditorService:
    def __init__(
        self,
        data: IFinancialDataPort,
        snapshot_builder: IFinancialSnapshotBuilder,
        agent: IFinancialAuditorAgentPort,
    ):
        self._data = data
        self._builder = snapshot_builder
        self._agent = agent

    def build_snapshot(self, symbol: str, as_of: date | None = None) -> FinancialSnapshotDTO:
        symbol = require_symbol(symbol)
        day = as_of or date.today()
        canonical, name, industry = require_found(self._data.get_stock_info(symbol), symbol)
        records = require_financials(self._data.get_finance_records(canonical, day), canonical)
        return self._builder.build(canonical, name, industry, records, day)

    def run(self, symbol: str, as_of: date | None = None) -> FinancialAuditorResultDTO:
        snapshot = self.build_snapshot(symbol, as_of)
        answer, guards = run_guarded(
            lambda feedback: self._agent.analyze(snapshot, feedback),
            financial_texts,
            snapshot.model_dump(mode="json", exclude={"table"}),
            expert="financial_auditor",
        )
        return FinancialAuditorResultDTO(
            **answer.parsed.model_dump(),
            symbol=snapshot.symbol,
            as_of=snapshot.as_of,
            input=answer.input,
            output=answer.output,
            financial_indicators=snapshot.model_dump(mode="json"),
            grounding=guards.grounding,
            guards=guards,
        )
