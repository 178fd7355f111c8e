"""Choices mode: the debate's agents pick card ids, code writes every sentence from the cards.

The scripted provider answers by schema name (BullChoice, BearChoice, ResolutionChoice) as the
embedded model would through its grammar; what the tests check is the code around the picks: the
direction rules (a wrong pick re-asked once, then dropped and recorded) and the rendering.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from stockdesk.debate.application import DebateService
from stockdesk.debate.application.choice_text import disagreement
from stockdesk.debate.domain.dtos.choices import choice_model
from stockdesk.debate.infrastructure.agents.bear_advocate.agent import BearAdvocateAgent
from stockdesk.debate.infrastructure.agents.bull_advocate.agent import BullAdvocateAgent
from stockdesk.debate.infrastructure.agents.choices.agent import ChoiceAgent
from stockdesk.debate.infrastructure.agents.resolution.agent import ResolutionAgent
from stockdesk.debate.infrastructure.agents.sampling import SAMPLING
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.container import build_llm_service
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import LLMAliasConfig, Settings
from tests.conftest import scripted_service
from tests.debate.research_results import SYMBOL, views

BULL = {
    "support": ["financial.profit_dedt_yoy", "valuation.pe_percentile"],
    "concede": ["technical.macd_hist"],
}
BEAR = {
    "support": ["valuation.graham_safety_margin", "technical.ma20"],
    "concede": ["financial.cash_quality"],
}
RESOLUTION = {
    "direction": "BULLISH",
    "confidence": 0.6,
    "decisive": ["financial.profit_dedt_yoy"],
    "disagreements": [["valuation.pe_percentile", "valuation.graham_safety_margin"]],
}
TERMINAL = ("。", ".")


def routed(answers: dict[str, list[dict]]) -> tuple[ScriptedProvider, list[CompletionRequest]]:
    """Each schema's answers in turn (the last one repeats); the requests seen, in order."""
    seen: list[CompletionRequest] = []

    def answer(request: CompletionRequest) -> str:
        seen.append(request)
        queue = answers[request.schema_name]
        return json.dumps(queue.pop(0) if len(queue) > 1 else queue[0], ensure_ascii=False)

    return ScriptedProvider([answer]), seen


def service(provider: ScriptedProvider) -> DebateService:
    adapter = LLMHandle(scripted_service(provider), SAMPLING)
    return DebateService(
        BullAdvocateAgent(adapter),
        BearAdvocateAgent(adapter),
        ResolutionAgent(adapter),
        chooser=ChoiceAgent(adapter),
        output_style="choices",
    )


def run(**answers: list[dict]) -> tuple[object, list[CompletionRequest]]:
    given = {"BullChoice": [BULL], "BearChoice": [BEAR], "ResolutionChoice": [RESOLUTION]}
    provider, seen = routed({**given, **answers})
    return service(provider).run(SYMBOL, views()), seen


def sentences(outcome: object) -> list[str]:
    bull, bear = outcome.bull_case, outcome.bear_case  # type: ignore[attr-defined]
    return [
        bull.core_thesis, *bull.supporting_arguments, *bull.acknowledged_risks,
        bear.core_thesis, *bear.supporting_arguments, *bear.acknowledged_strengths,
        *outcome.key_disagreements, outcome.conflict_resolution,  # type: ignore[attr-defined]
    ]  # fmt: skip


def test_clean_picks_give_an_outcome_written_by_code_from_the_cards() -> None:
    outcome, seen = run()
    assert [r.schema_name for r in seen].count("ResolutionChoice") == 1 and len(seen) == 3
    cards = {c.id: c for v in views() for c in v.cards}
    assert outcome.bull_case.core_thesis == (
        f"看多论点：{cards['financial.profit_dedt_yoy'].text_zh}；{cards['valuation.pe_percentile'].text_zh}。"
    )
    assert outcome.bull_case.acknowledged_risks == [f"{cards['technical.macd_hist'].text_zh}。"]
    assert outcome.key_disagreements == [
        f"{cards['valuation.pe_percentile'].text_zh}，而{cards['valuation.graham_safety_margin'].text_zh}。"
    ]
    assert (
        outcome.conflict_resolution == f"结论看多，决定性证据：{cards['financial.profit_dedt_yoy'].text_zh}。"
    )
    assert outcome.direction == "BULLISH" and outcome.confidence == 0.6 and outcome.risk_matrix == []
    assert all(s.endswith(TERMINAL) for s in sentences(outcome))  # no sentence is cut off
    english = outcome.choices["english"]
    assert english["bull"]["thesis"].startswith("The bull case: ") and english["conclusion"].endswith(".")
    assert outcome.choices["picks"]["bull"]["support"] == BULL["support"]
    assert all(not r["retried"] for r in outcome.claim_checks.values())


def test_every_quoted_card_shows_the_snapshots_number() -> None:
    outcome, _ = run()
    figures = {c.id: c for v in views() for c in v.cards}
    for card_id in (*BULL["support"], *BEAR["support"]):
        for value in figures[card_id].figures.values():
            assert f"{value:g}" in "".join(sentences(outcome)), (card_id, value)


def test_a_bull_supporting_with_a_bearish_card_is_re_asked_then_accepted() -> None:
    wrong = {"support": ["valuation.graham_safety_margin", "financial.revenue_yoy"], "concede": []}
    outcome, seen = run(BullChoice=[wrong, BULL])
    bulls = [r for r in seen if r.schema_name == "BullChoice"]
    assert len(bulls) == 2 and "valuation.graham_safety_margin" in bulls[1].messages[-1].content
    assert "方向为利空" in bulls[1].messages[-1].content  # the re-ask says why
    record = outcome.claim_checks["bull_advocate"]
    assert record["retried"] and record["dropped"] == [] and len(record["first_wrong"]) == 1
    assert outcome.choices["picks"]["bull"]["support"] == BULL["support"]


def test_a_wrong_pick_still_wrong_after_the_re_ask_is_dropped_and_recorded() -> None:
    wrong = {"support": ["technical.ma60", "financial.cash_quality"], "concede": ["technical.ma20"]}
    outcome, seen = run(BearChoice=[wrong])
    assert [r.schema_name for r in seen].count("BearChoice") == 2
    record = outcome.claim_checks["bear_advocate"]
    assert record["retried"] and len(record["dropped"]) == 3
    assert outcome.bear_case.core_thesis == "看空论点：没有方向相符的证据卡。"
    assert outcome.bear_case.supporting_arguments == [] and outcome.bear_case.acknowledged_strengths == []


def test_decisive_cards_against_the_direction_and_odd_pairs_are_dropped() -> None:
    wrong = {
        "direction": "BEARISH",
        "confidence": 0.55,
        "decisive": ["valuation.graham_safety_margin", "financial.revenue_yoy"],
        "disagreements": [["valuation.pe_percentile", "financial.revenue_yoy"]],  # two bullish cards
    }
    outcome, _ = run(ResolutionChoice=[wrong])
    assert outcome.direction == "BEARISH"
    assert outcome.choices["picks"]["resolution"]["decisive"] == ["valuation.graham_safety_margin"]
    assert outcome.key_disagreements == []
    assert len(outcome.claim_checks["resolution"]["dropped"]) == 2


def test_the_answer_schema_enumerates_each_fields_cards_by_direction() -> None:
    cards = [(c.id, c.direction) for v in views() for c in v.cards]
    bull = choice_model("bull", cards).model_json_schema()["properties"]
    assert bull["support"]["items"]["enum"] == [i for i, d in cards if d >= 0]  # the grammar keeps a bull
    assert bull["concede"]["items"]["enum"] == [i for i, d in cards if d < 0]  # on its side
    assert bull["support"]["maxItems"] == 3 and bull["concede"]["maxItems"] == 2
    bear = choice_model("bear", cards).model_json_schema()["properties"]
    assert bear["support"]["items"]["enum"] == [i for i, d in cards if d <= 0]
    resolution = choice_model("resolution", cards).model_json_schema()["properties"]
    assert resolution["decisive"]["items"]["enum"] == [i for i, _ in cards]
    bullish, bearish = resolution["disagreements"]["items"]["prefixItems"]  # a pair: one card of each side
    assert bullish["enum"] == [i for i, d in cards if d > 0] and bearish["enum"] == [
        i for i, d in cards if d < 0
    ]
    only_bullish = choice_model("bear", [("a", 1)]).model_json_schema()["properties"]
    assert only_bullish["support"]["maxItems"] == 0  # nothing a bear may pick: it must stay empty


def test_without_any_card_the_debate_falls_back_to_prose() -> None:
    _, seen = routed({})
    only_search = [v for v in views() if not v.cards]
    calls: list[str] = []
    prose = ScriptedProvider([_prose(calls)])
    service(prose).run(SYMBOL, only_search)
    assert set(calls) == {"BearArgument", "BullArgument", "ResolutionResult"} and seen == []


def _prose(calls: list[str]) -> Callable[[CompletionRequest], str]:
    from tests.debate.test_bull_bear import ANSWERS

    def answer(request: CompletionRequest) -> str:
        calls.append(request.schema_name)
        return ANSWERS[request.schema_name]

    return answer


def test_the_embedded_model_gets_choices_and_remote_aliases_prose() -> None:
    assert LLMAliasConfig(name="local", provider="embedded").style() == "choices"
    assert LLMAliasConfig(name="remote", base_url="http://x").style() == "prose"
    assert LLMAliasConfig(name="remote", base_url="http://x", output_style="choices").style() == "choices"
    assert scripted_service(ScriptedProvider(["{}"])).output_style() == "prose"  # tests script prose
    local = build_llm_service(Settings(), None)  # no alias configured: the embedded model (not started here)
    assert local.output_style() == "choices"
    assert build_llm_service(Settings(llm_output_style="prose"), None).output_style() == "prose"


def test_a_disagreement_spaces_a_latin_word_after_the_chinese_conjunction() -> None:
    cards = {c.id: c for v in views() for c in v.cards}
    bullish = next(c for c in cards.values() if c.direction > 0)
    bearish = next(c for c in cards.values() if c.direction < 0 and c.text_zh[:1].isascii())
    assert disagreement([bearish.id, bullish.id], cards, "zh") == f"{bullish.text_zh}，而 {bearish.text_zh}。"
