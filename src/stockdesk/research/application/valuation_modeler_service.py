"""ValuationModelerService: the valuation expert's own application entry point (spec requirement 1)."""

from __future__ import annotations

from datetime import date

from stockdesk.research.application.dtos import ValuationModelerResultDTO
from stockdesk.research.application.evidence_cards import cards_for
from stockdesk.research.application.expert_choice_text import valuation_fields
from stockdesk.research.application.expert_choices import answered, guarded
from stockdesk.research.application.inputs import require_financials, require_found, require_symbol
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.research.application.stock_data import StockData
from stockdesk.research.domain.dtos.expert_choice import verdict_words
from stockdesk.research.domain.dtos.valuation import ValuationModelOutput, ValuationSnapshotDTO
from stockdesk.research.domain.ports.choices import IExpertChoicePort
from stockdesk.research.domain.ports.valuation import IValuationModelerAgentPort
from stockdesk.shared.claims import collect_texts

VALUATION_TEXTS = ("key_evidence", "risk_factors", "reasoning_summary")
EXPERT = "valuation_modeler"
WORDS = verdict_words(ValuationModelOutput, "valuation_verdict")


def valuation_texts(output: ValuationModelOutput) -> dict[str, str | list[str]]:
    """The fields the guards read: numbers grounded, no trade instruction, claims true to the input."""
    return collect_texts(output, VALUATION_TEXTS)


class ValuationModelerService:
    def __init__(
        self,
        data: StockData,
        snapshot_builder: ValuationSnapshotBuilder,
        agent: IValuationModelerAgentPort,
        chooser: IExpertChoicePort | None = None,
    ):
        """With a `chooser` (choices mode) the model picks a verdict and cards; code writes the text."""
        self._data = data
        self._builder = snapshot_builder
        self._agent = agent
        self._chooser = chooser

    def build_snapshot(self, symbol: str, as_of: date | None = None) -> ValuationSnapshotDTO:
        """Input checks, then the snapshot (no LLM call): used by `run` and by `--snapshot-only`."""
        symbol = require_symbol(symbol)
        day = as_of or date.today()
        overview = require_found(self._data.get_stock_overview(symbol, day), symbol)
        finance = require_financials(self._data.get_finance_records(overview.symbol, day), overview.symbol)
        dailies = self._data.get_valuation_dailies(overview.symbol, day)
        return self._builder.build(overview, dailies, finance, day)

    def run(self, symbol: str, as_of: date | None = None) -> ValuationModelerResultDTO:
        snapshot = self.build_snapshot(symbol, as_of)
        cards, facts = cards_for(EXPERT, snapshot), snapshot.model_dump(mode="json")
        done = answered(
            self._chooser, EXPERT, snapshot, cards, WORDS, facts,
            render=lambda choice: valuation_fields(choice, cards, snapshot),
            prose=lambda: guarded(
                lambda feedback: self._agent.answer(snapshot, feedback), valuation_texts, facts, EXPERT
            ),
        )  # fmt: skip
        return ValuationModelerResultDTO(
            **done.fields,
            **done.trace(),
            symbol=snapshot.symbol,
            as_of=snapshot.as_of,
            valuation_indicators=facts,
            evidence_cards=cards,
        )
