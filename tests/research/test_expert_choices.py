"""Choices mode for the snapshot experts: the model picks a verdict and cards, code writes the text.

The store is populate_store's 600001.SH: its PE is at the top of its history (percentile 100, a
bearish card), its Graham safety margin is negative (bearish) and its PEG 1.45 is mid (neutral).
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.application.evidence_cards import cards_for
from stockdesk.research.container import ResearchContainer
from stockdesk.research.infrastructure.agents.choices.agent import ExpertChoiceAgent
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.conftest import scripted_service
from tests.research.support import AS_OF, populate_store

SYMBOL = "600001.SH"
PE, MARGIN, PEG = "valuation.pe_percentile", "valuation.graham_safety_margin", "valuation.peg_ratio"


class Script:
    """Answers in order; records each request (its prompt and the schema it was given)."""

    def __init__(self, *answers: dict[str, object]):
        self.answers = [json.dumps(a, ensure_ascii=False) for a in answers]
        self.requests: list[CompletionRequest] = []

    def __call__(self, request: CompletionRequest) -> str:
        self.requests.append(request)
        return self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]

    def prompt(self, call: int) -> str:
        return self.requests[call].messages[-1].content


def container(
    database: Database, script: Script, style: str = "choices", notes: bool = True
) -> ResearchContainer:
    populate_store(database)
    data = DataEngineeringContainer(Settings(), database)
    llm = scripted_service(ScriptedProvider([script] * 4))
    return ResearchContainer(
        basic_info=data.stock_basic_info,
        valuations=data.valuations,
        finance=data.finance,
        bars=data.daily_bars,
        llm_service=lambda: llm,
        search=lambda: None,  # type: ignore[arg-type,return-value]
        output_style=lambda: style,
        expert_notes=notes,
    )


def choice(verdict: str, cards: list[str], note: str = "", confidence: float = 0.7) -> dict[str, object]:
    return {"verdict": verdict, "confidence": confidence, "cards": cards, "note": note}


def texts(database: Database, *ids: str) -> list[str]:
    snapshot = container(database, Script()).valuation_modeler.build_snapshot(SYMBOL, AS_OF)
    by_id = {c.id: c.text_zh for c in cards_for("valuation_modeler", snapshot)}
    return [by_id[i] for i in ids]


def test_the_model_picks_and_code_writes_every_sentence(database: Database) -> None:
    script = Script(choice("Overvalued", [PE, MARGIN]))
    research = container(database, script)
    assert isinstance(research.chooser, ExpertChoiceAgent)
    result = research.valuation_modeler.run(SYMBOL, AS_OF)
    pe_text, margin_text = texts(database, PE, MARGIN)
    assert len(script.requests) == 1
    assert result.valuation_verdict == "Overvalued" and result.confidence_score == 0.7
    assert result.key_evidence == [pe_text, margin_text]
    assert result.reasoning_summary == f"高估。依据：{pe_text}；{margin_text}。"
    assert result.choice is not None and result.choice.cards == [PE, MARGIN] and not result.choice.retried
    schema = script.requests[0].json_schema or {}
    shown = {
        v["properties"]["verdict"]["enum"][0]: v["properties"]["cards"]["items"]["enum"]
        for v in schema["anyOf"]
    }
    assert set(shown) == {"Undervalued", "Fair", "Overvalued"}  # one alternative per verdict word
    assert PE in shown["Overvalued"] and PE in shown["Fair"] and PE not in shown["Undervalued"]
    assert f"[{PE}]" in script.prompt(0) and "↓利空" in script.prompt(0)


def test_a_pick_against_the_verdict_is_reasked_once_then_dropped(database: Database) -> None:
    """A bullish verdict resting on a card code reads bearish: re-asked with the reason, then dropped."""
    wrong = choice("Undervalued", [PE, PEG])
    script = Script(wrong, wrong)
    result = container(database, script).valuation_modeler.run(SYMBOL, AS_OF)
    assert len(script.requests) == 2
    assert f"cards:{PE}" in script.prompt(1) and "方向为利空" in script.prompt(1)
    assert result.choice is not None and result.choice.retried
    assert result.choice.cards == [PEG] and result.choice.dropped == [next(iter(result.choice.first_wrong))]
    assert result.guards.flagged
    assert texts(database, PE)[0] not in result.reasoning_summary
    assert result.key_evidence == texts(database, PEG)


def test_a_corrected_pick_is_kept_whole(database: Database) -> None:
    script = Script(choice("Undervalued", [PE]), choice("Overvalued", [PE]))
    result = container(database, script).valuation_modeler.run(SYMBOL, AS_OF)
    assert result.choice is not None and result.choice.retried and result.choice.dropped == []
    assert result.valuation_verdict == "Overvalued" and not result.guards.flagged


def test_a_long_note_is_dropped_never_cut(database: Database) -> None:
    long_note = "估值处于历史高位并且安全边际为负，" * 4
    script = Script(choice("Overvalued", [PE], long_note))
    result = container(database, script).valuation_modeler.run(SYMBOL, AS_OF)
    assert len(script.requests) == 1  # an optional note is not worth a second call
    assert result.choice is not None and result.choice.note == "" and not result.choice.retried
    assert result.choice.dropped and "超过 40 个字" in result.choice.dropped[0]
    assert "模型补充" not in result.reasoning_summary and "估值处于历史高位" not in result.reasoning_summary


def test_a_note_with_a_number_not_in_the_input_is_dropped(database: Database) -> None:
    script = Script(choice("Overvalued", [PE], "市盈率高达 88.8 倍"))
    result = container(database, script).valuation_modeler.run(SYMBOL, AS_OF)
    assert result.choice is not None and result.choice.note == "" and "88.8" in result.choice.dropped[0]
    assert "88.8" not in result.reasoning_summary


def test_a_checked_note_is_kept_as_the_models_words(database: Database) -> None:
    result = container(
        database, Script(choice("Overvalued", [PE], "估值处于历史高位"))
    ).valuation_modeler.run(SYMBOL, AS_OF)
    assert result.reasoning_summary.endswith("模型补充：估值处于历史高位。")


def test_risks_are_the_strongest_cards_against_the_verdict(database: Database) -> None:
    result = container(database, Script(choice("Fair", [PEG]))).valuation_modeler.run(SYMBOL, AS_OF)
    research = container(database, Script())
    cards = cards_for("valuation_modeler", research.valuation_modeler.build_snapshot(SYMBOL, AS_OF))
    bearish = sorted((c for c in cards if c.direction < 0), key=lambda c: -c.strength)[:2]
    assert bearish and result.risk_factors == [c.text_zh for c in bearish]


@pytest.mark.parametrize("expert", ["technical_analyst", "financial_auditor"])
def test_technical_and_financial_experts_choose_too(database: Database, expert: str) -> None:
    research = container(database, Script())
    service = getattr(research, expert)
    cards = cards_for(expert, service.build_snapshot(SYMBOL, AS_OF))
    neutral = [c for c in cards if c.direction == 0][:1]
    word = "NEUTRAL"
    script = Script(choice(word, [c.id for c in neutral]))
    result = getattr(container(database, script), expert).run(SYMBOL, AS_OF)
    assert len(script.requests) == 1 and result.signal == word
    assert result.summary_reasoning.startswith("中性。")
    for card in neutral:
        assert card.text_zh in result.summary_reasoning
    if expert == "financial_auditor":
        by_dimension = defaultdict(str, {d.dimension: d.assessment for d in result.dimension_analyses})
        assert len(result.dimension_analyses) == 5 and by_dimension["growth"]


def test_prose_mode_keeps_the_written_answer(database: Database) -> None:
    assert container(database, Script(), style="prose").chooser is None


def test_a_bullish_note_resting_on_a_bearish_card_is_dropped(database: Database) -> None:
    """The recorded bad bull case in small: a bullish call argued from the other side's fact."""
    pe_text = texts(database, PE)[0]
    script = Script(choice("Undervalued", [PEG], f"{pe_text}，因此看多"))
    result = container(database, script).valuation_modeler.run(SYMBOL, AS_OF)
    assert result.choice is not None and result.choice.note == "" and not result.guards.flagged
    assert "side_contradiction" in {v.kind for v in result.guards.first_violations}
    assert pe_text not in result.reasoning_summary


def test_without_notes_the_answer_has_no_note_field(database: Database) -> None:
    """The default (STOCKDESK_LLM_EXPERT_NOTES off): no note asked for, none in the schema."""
    script = Script(choice("Overvalued", [PE]))
    result = container(database, script, notes=False).valuation_modeler.run(SYMBOL, AS_OF)
    schema = script.requests[0].json_schema or {}
    assert all("note" not in v["properties"] for v in schema["anyOf"])
    assert '"note"' not in script.prompt(0) and '"note"' not in script.requests[0].messages[0].content
    assert (
        result.choice is not None and result.choice.note == "" and "模型补充" not in result.reasoning_summary
    )
