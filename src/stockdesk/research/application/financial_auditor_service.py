"""FinancialAuditorService: the financial expert's own application entry point."""

from __future__ import annotations

from datetime import date
from typing import Any

from stockdesk.research.application.code_signals import (
    financial_dimension_scores,
    financial_score,
    financial_signal,
)
from stockdesk.research.application.dtos import FinancialAuditorResultDTO
from stockdesk.research.application.evidence_cards import cards_for
from stockdesk.research.application.expert_choice_text import financial_fields
from stockdesk.research.application.expert_choices import Answered, answered, guarded
from stockdesk.research.application.inputs import require_financials, require_found, require_symbol
from stockdesk.research.application.snapshot.financial_snapshot_builder import FinancialSnapshotBuilder
from stockdesk.research.application.stock_data import StockData
from stockdesk.research.domain.dtos.expert_choice import verdict_words
from stockdesk.research.domain.dtos.financial import (
    DimensionAnalysis,
    FinancialAuditOutput,
    FinancialSnapshotDTO,
)
from stockdesk.research.domain.ports.choices import IExpertChoicePort
from stockdesk.research.domain.ports.financial import IFinancialAuditorAgentPort
from stockdesk.shared.claims import collect_texts

FINANCIAL_TEXTS = (
    "summary_reasoning",
    "key_risks",
    "dimension_analyses.*.assessment",
)

EXPERT = "financial_auditor"
WORDS = verdict_words(FinancialAuditOutput, "signal")


def financial_texts(output: FinancialAuditOutput) -> dict[str, str | list[str]]:
    return collect_texts(output, FINANCIAL_TEXTS)


class FinancialAuditorService:
    def __init__(
        self,
        data: StockData,
        snapshot_builder: FinancialSnapshotBuilder,
        agent: IFinancialAuditorAgentPort,
        chooser: IExpertChoicePort | None = None,
    ):
        """With a `chooser` (choices mode) the model picks a signal and cards; code writes the text."""
        self._data = data
        self._builder = snapshot_builder
        self._agent = agent
        self._chooser = chooser

    def build_snapshot(self, symbol: str, as_of: date | None = None) -> FinancialSnapshotDTO:
        symbol = require_symbol(symbol)
        day = as_of or date.today()
        canonical, name, industry = require_found(self._data.get_stock_info(symbol), symbol)
        records = require_financials(self._data.get_audit_records(canonical, day), canonical)
        return self._builder.build(canonical, name, industry, records, day)

    def _prose(self, snapshot: FinancialSnapshotDTO, facts: dict[str, Any]) -> Answered:
        """Prose mode: the guarded answer; each dimension's score from code, its words from the model."""
        done = guarded(
            lambda feedback: self._agent.answer(snapshot, feedback), financial_texts, facts, EXPERT
        )
        parsed: FinancialAuditOutput = done.answer.parsed
        scores = financial_dimension_scores(snapshot.model_dump(mode="json"))
        done.fields["dimension_analyses"] = [
            DimensionAnalysis(dimension=d.dimension, score=scores.get(d.dimension), assessment=d.assessment)
            for d in parsed.dimension_analyses
        ]
        return done

    def run(self, symbol: str, as_of: date | None = None) -> FinancialAuditorResultDTO:
        snapshot = self.build_snapshot(symbol, as_of)
        cards, facts = cards_for(EXPERT, snapshot), snapshot.model_dump(mode="json", exclude={"table"})
        done = answered(
            self._chooser, EXPERT, snapshot, cards, WORDS, facts,
            render=lambda choice: financial_fields(choice, cards, snapshot),
            prose=lambda: self._prose(snapshot, facts),
        )  # fmt: skip
        indicators = snapshot.model_dump(mode="json")
        return FinancialAuditorResultDTO(
            **done.fields,
            **done.trace(),
            financial_score=financial_score(financial_signal(indicators)),
            symbol=snapshot.symbol,
            as_of=snapshot.as_of,
            financial_indicators=indicators,
            evidence_cards=cards,
        )
