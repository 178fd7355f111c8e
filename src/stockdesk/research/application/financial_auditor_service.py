"""FinancialAuditorService: the financial expert's own application entry point."""

from __future__ import annotations

from datetime import date

from stockdesk.research.application.code_signals import (
    financial_dimension_scores,
    financial_score,
    financial_signal,
)
from stockdesk.research.application.dtos import FinancialAuditorResultDTO
from stockdesk.research.application.evidence_cards import cards_for
from stockdesk.research.application.expert_runner import run_guarded
from stockdesk.research.application.inputs import require_financials, require_found, require_symbol
from stockdesk.research.domain.dtos.financial import (
    DimensionAnalysis,
    FinancialAuditOutput,
    FinancialSnapshotDTO,
)
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
        indicators = snapshot.model_dump(mode="json")
        parsed = answer.parsed
        scores = financial_dimension_scores(indicators)
        return FinancialAuditorResultDTO(
            **parsed.model_dump(exclude={"dimension_analyses"}),
            financial_score=financial_score(financial_signal(indicators)),
            dimension_analyses=[
                DimensionAnalysis(
                    dimension=d.dimension, score=scores.get(d.dimension), assessment=d.assessment
                )
                for d in parsed.dimension_analyses
            ],
            symbol=snapshot.symbol,
            as_of=snapshot.as_of,
            input=answer.input,
            output=answer.output,
            financial_indicators=indicators,
            evidence_cards=cards_for("financial_auditor", snapshot),
            grounding=guards.grounding,
            guards=guards,
        )
