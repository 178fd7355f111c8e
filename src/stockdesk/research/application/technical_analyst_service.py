"""TechnicalAnalystService: the technical expert's own application entry point."""

from __future__ import annotations

from datetime import date

from stockdesk.research.application.dtos import TechnicalAnalystResultDTO
from stockdesk.research.application.evidence_cards import cards_for
from stockdesk.research.application.expert_choice_text import technical_fields
from stockdesk.research.application.expert_choices import answered, guarded
from stockdesk.research.application.inputs import require_found, require_symbol
from stockdesk.research.application.snapshot.technical_snapshot_builder import TechnicalSnapshotBuilder
from stockdesk.research.application.stock_data import StockData
from stockdesk.research.domain.dtos.expert_choice import verdict_words
from stockdesk.research.domain.dtos.technical import (
    KeyTechnicalLevels,
    TechnicalAnalysisOutput,
    TechnicalSnapshotDTO,
)
from stockdesk.research.domain.ports.choices import IExpertChoicePort
from stockdesk.research.domain.ports.technical import ITechnicalAnalystAgentPort
from stockdesk.shared.claims import collect_texts
from stockdesk.shared.errors import BadRequestException

MIN_BARS = 20


TECHNICAL_TEXTS = ("evidence", "risk_warning", "summary_reasoning")
EXPERT = "technical_analyst"
WORDS = verdict_words(TechnicalAnalysisOutput, "signal")


def technical_texts(output: TechnicalAnalysisOutput) -> dict[str, str | list[str]]:
    return collect_texts(output, TECHNICAL_TEXTS)


class TechnicalAnalystService:
    def __init__(
        self,
        data: StockData,
        snapshot_builder: TechnicalSnapshotBuilder,
        agent: ITechnicalAnalystAgentPort,
        chooser: IExpertChoicePort | None = None,
    ):
        """With a `chooser` (choices mode) the model picks a signal and cards; code writes the text."""
        self._data = data
        self._builder = snapshot_builder
        self._agent = agent
        self._chooser = chooser

    def build_snapshot(self, symbol: str, as_of: date | None = None) -> TechnicalSnapshotDTO:
        symbol = require_symbol(symbol)
        day = as_of or date.today()
        canonical, name, _ = require_found(self._data.get_stock_info(symbol), symbol)
        bars = self._data.get_price_bars(canonical, day)
        if len(bars) < MIN_BARS:
            raise BadRequestException(
                f"该标的行情数据不足（{len(bars)} 根日线，至少 {MIN_BARS}），请先同步: {canonical}",
                code="NOT_ENOUGH_BARS",
            )
        return self._builder.build(canonical, name, bars, day)

    def run(self, symbol: str, as_of: date | None = None) -> TechnicalAnalystResultDTO:
        snapshot = self.build_snapshot(symbol, as_of)
        cards, facts = cards_for(EXPERT, snapshot), snapshot.model_dump(mode="json")
        done = answered(
            self._chooser, EXPERT, snapshot, cards, WORDS, facts,
            render=lambda choice: technical_fields(choice, cards),
            prose=lambda: guarded(
                lambda feedback: self._agent.answer(snapshot, feedback), technical_texts, facts, EXPERT
            ),
        )  # fmt: skip
        levels = KeyTechnicalLevels(
            support=snapshot.support_levels[:3], resistance=snapshot.resistance_levels[:3]
        )  # code's swing levels: the model no longer writes prices
        return TechnicalAnalystResultDTO(
            **done.fields,
            **done.trace(),
            key_technical_levels=levels,
            symbol=snapshot.symbol,
            as_of=snapshot.as_of,
            technical_indicators=facts,
            evidence_cards=cards,
        )
