"""What both search-driven experts (macro intelligence, catalyst detective) do around the LLM.

build_snapshot: check the symbol, run the expert's search dimensions, build the context.
run: one guarded LLM round (numbers grounded in the search context, no trade instructions),
then two checks made in code: every cited URL must be one that was in the context (others are
dropped and flagged, never replaced), and with no information at all the answer is held to
neutral, low confidence and 数据不足 whatever the model wrote. When the search found nothing at
all, that answer is fixed in code and no LLM call is spent on it. In choices mode the model only
reads the articles' titles (as cards) and picks a verdict and the articles it rests on.
"""

from __future__ import annotations

from abc import ABC
from datetime import date
from typing import Generic, TypeVar

from pydantic import BaseModel

from stockdesk.llm_platform.application.agent import Agent
from stockdesk.research.application.expert_choice_text import search_fields
from stockdesk.research.application.expert_choices import choose
from stockdesk.research.application.expert_runner import run_guarded
from stockdesk.research.application.inputs import require_found, require_symbol
from stockdesk.research.application.search_cards import search_cards
from stockdesk.research.application.search_data import SearchDataAdapter
from stockdesk.research.application.snapshot.search_snapshot_builder import SearchSnapshotBuilder
from stockdesk.research.domain.dtos.expert import AgentAnswer, GuardReport
from stockdesk.research.domain.dtos.expert_choice import verdict_words
from stockdesk.research.domain.dtos.search import SearchSnapshotDTO
from stockdesk.research.domain.ports.choices import IExpertChoicePort
from stockdesk.shared.claims import collect_texts

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)
NO_INFORMATION_CONFIDENCE = 0.2
INSUFFICIENT = "数据不足"


def verify_sources(cited: list[str], allowed: list[str]) -> tuple[list[str], list[str]]:
    """(kept, dropped): a cited URL is kept only when it was in the context, exactly."""
    known = set(allowed)
    kept = list(dict.fromkeys(u.strip() for u in cited if u.strip() in known))
    dropped = [u for u in cited if u.strip() not in known]
    return kept, dropped


def insufficient(summary: str) -> str:
    return summary if INSUFFICIENT in summary else f"{INSUFFICIENT}：{summary}"


class SearchExpertService(ABC, Generic[T, R]):
    """Subclasses name their fields; only the text the guards read is code of their own."""

    expert: str
    output_model: type[T]
    result_model: type[R]
    indicators_field: str  # macro_indicators / catalyst_indicators: the search context sent
    verdict_field: str  # macro_environment / catalyst_assessment
    summary_field: str
    cleared_when_nothing_found: tuple[str, ...]  # lists that could only have been invented

    def __init__(
        self,
        data: SearchDataAdapter,
        snapshot_builder: SearchSnapshotBuilder,
        agent: Agent[SearchSnapshotDTO, AgentAnswer[T]],
        chooser: IExpertChoicePort | None = None,
    ):
        """With a `chooser` (choices mode) the model picks a verdict and articles; code writes."""
        self._data = data
        self._builder = snapshot_builder
        self._analyze = agent.answer
        self._chooser = chooser

    text_fields: tuple[str, ...]  # field paths of the free text the guards read

    def texts(self, output: T) -> dict[str, str | list[str]]:
        """The free text the guards read, by field path."""
        return collect_texts(output, self.text_fields)

    def hold_to_no_information(self, output: T) -> T:
        """The answer when nothing was found: neutral, low confidence, 数据不足, no events."""
        update: dict[str, object] = {
            self.verdict_field: "Neutral",
            "confidence_score": min(output.confidence_score, NO_INFORMATION_CONFIDENCE),  # type: ignore[attr-defined]
            self.summary_field: insufficient(getattr(output, self.summary_field)),
        }
        update.update({name: [] for name in self.cleared_when_nothing_found})
        return output.model_copy(update=update)

    def answer_without_llm(self, snapshot: SearchSnapshotDTO) -> AgentAnswer[T]:
        """Nothing was found: the model could only say 数据不足 (or invent), so code says it."""
        fields: dict[str, object] = {name: [] for name in self.cleared_when_nothing_found}
        fields.update(
            {
                self.verdict_field: "Neutral",
                "confidence_score": NO_INFORMATION_CONFIDENCE,
                self.summary_field: f"{INSUFFICIENT}：分析日（含）之前未检索到与该标的相关的资料。",
                "dimension_analyses": [
                    {"dimension": d.topic, "assessment": INSUFFICIENT, "key_points": []}
                    for d in snapshot.dimensions
                ],
                "information_sources": [],
            }
        )
        output = self.output_model.model_validate(fields)
        note = "(no LLM call: the search found nothing before the analysis date)"
        return AgentAnswer(input=snapshot.search_context, output=note, parsed=output)

    def result(
        self, output: T, snapshot: SearchSnapshotDTO, answer: AgentAnswer[T], guards: GuardReport
    ) -> R:
        """The symmetric result DTO: parsed fields, input, output, the indicators sent, guards."""
        return self.result_model(
            **output.model_dump(),
            symbol=snapshot.symbol,
            as_of=snapshot.as_of,
            input=answer.input,
            output=answer.output,
            grounding=guards.grounding,
            guards=guards,
            **{self.indicators_field: snapshot.model_dump(mode="json")},
        )

    def chosen_result(self, snapshot: SearchSnapshotDTO, chooser: IExpertChoicePort) -> R:
        """Choices mode: the model reads the articles' titles and picks a verdict and up to 3 of
        them; code writes the fields (see expert_choice_text.search_fields)."""
        pairs = search_cards(self.expert, snapshot)
        cards, urls = [c for c, _ in pairs], {c.id: url for c, url in pairs}
        words = verdict_words(self.output_model, self.verdict_field)
        facts = snapshot.model_dump(mode="json")
        done = choose(
            chooser, self.expert, snapshot, cards, words, facts,
            lambda choice: search_fields(choice, cards, snapshot, urls),
        )  # fmt: skip
        assert done.choice is not None  # choices mode always records its picks
        summary = done.fields.pop("summary")
        return self.result_model(
            **{self.verdict_field: done.choice.verdict, self.summary_field: summary},
            **done.fields,
            **done.trace(),
            **{name: [] for name in self.cleared_when_nothing_found},
            symbol=snapshot.symbol,
            as_of=snapshot.as_of,
            evidence_cards=[c for c in cards if c.id in done.choice.cards],
            **{self.indicators_field: facts},
        )

    def build_snapshot(self, symbol: str, as_of: date | None = None) -> SearchSnapshotDTO:
        symbol = require_symbol(symbol)
        day = as_of or date.today()
        context = require_found(self._data.get_search_context(symbol, day), symbol)
        return self._builder.build(context, self._data.search(context))

    def run(self, symbol: str, as_of: date | None = None) -> R:
        snapshot = self.build_snapshot(symbol, as_of)
        if snapshot.has_information and self._chooser is not None:
            return self.chosen_result(snapshot, self._chooser)
        if not snapshot.has_information:
            answer, guards = self.answer_without_llm(snapshot), GuardReport()
        else:
            answer, guards = run_guarded(
                lambda feedback: self._analyze(snapshot, feedback),
                self.texts,
                snapshot.model_dump(mode="json"),
                expert=self.expert,
            )
        output = answer.parsed
        kept, dropped = verify_sources(output.information_sources, snapshot.source_urls)  # type: ignore[attr-defined]
        output = output.model_copy(update={"information_sources": kept})
        if not snapshot.has_information:
            output = self.hold_to_no_information(output)
        guards = guards.model_copy(
            update={
                "unverified_sources": dropped,
                "no_information": not snapshot.has_information,
                "flagged": guards.flagged or bool(dropped),
            }
        )
        return self.result(output, snapshot, answer, guards)
