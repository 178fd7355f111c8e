"""The prose checks of the shared claim kernel: what free prose argues, not only the numbers it quotes.

Each check has positives (the recorded embedded-model outputs among them) next to negatives that
must stay clean: negations, concessions that turn, the right side, the chosen action, headlines
and bullets without a full stop. Precision matters more than recall: a false positive drops real
analysis after one repair round.
"""

from __future__ import annotations

from typing import Any

import pytest

from stockdesk.shared.claims import check_claims, drop_violating, repair_feedback
from stockdesk.shared.claims.text_units import sentences

# the recorded bad demo run (embedded 1.5B model): a multi-year growth average of +2.57 while the
# newest period's revenue fell 13.74% and its deducted profit 25.49%
FALLING_NOW = {
    "digests": [
        {"expert": "valuation_modeler", "key_figures": {"growth_rate_avg": 2.57, "pe_percentile": 85}},
        {
            "expert": "financial_auditor",
            "key_figures": {"period": "2020Q1", "revenue_yoy": -13.74, "profit_dedt_yoy": -25.49},
        },
    ]
}
RECORDED_BULL = "被评估为被高估，但其盈利能力在增长，且财务状况堪忧，因此仍被看多"
RECORDED_JUDGE = "多头论点支持买入操作，保守方案的止盈和仓位减半是合理的。"


def card(card_id: str, text_zh: str, direction: int, **figures: float) -> dict[str, Any]:
    """An evidence card as research dumps it (a plain dict: the kernel imports no research type)."""
    return {
        "id": card_id,
        "expert": "valuation_modeler",
        "text_zh": text_zh,
        "text_en": "",
        "direction": direction,
        "strength": 0.5,
        "figures": figures,
    }


# cards nested as a view carries them, two levels down
CARDS = {
    "digests": [
        {
            "expert": "valuation_modeler",
            "cards": [
                card("valuation.pe_percentile", "PE 历史分位 85（偏高）", -1, pe_percentile=85),
                card("valuation.graham_safety_margin", "安全边际 12.8%（价格低于格雷厄姆内在价值）", 1,
                     graham_safety_margin=12.8),
            ],
        },
        {
            "expert": "financial_auditor",
            "cards": [card("financial.revenue_yoy", "营收同比 -13.74%（下降）", -1, revenue_yoy=-13.74)],
        },
    ]
}  # fmt: skip


def kinds(texts: dict[str, Any], facts: object = None, **options: Any) -> list[str]:
    return [v.kind for v in check_claims(texts, facts or {}, **options)]


# ---- action_contradiction ----------------------------------------------------------------------


def test_the_recorded_hold_reasoning_that_argues_for_a_buy_contradicts_its_action() -> None:
    [violation] = check_claims({"reasoning": RECORDED_JUDGE}, {}, action="HOLD")
    assert violation.kind == "action_contradiction" and violation.term == "支持买入"
    assert violation.text == RECORDED_JUDGE.rstrip("。") and "你选择的操作是 HOLD" in violation.detail


@pytest.mark.parametrize(
    ("action", "text"),
    [
        ("HOLD", "技术面向上，建议买入。"),
        ("HOLD", "应当逢低买入。"),
        ("SELL", "估值偏低，值得加仓。"),
        ("HOLD", "The bull case supports a buy."),
        ("BUY", "估值过高，建议卖出。"),
        ("BUY", "短期应当减仓。"),
        ("HOLD", "保守方案的仓位减半是合理的。"),  # HOLD holds nothing: no position is reasonable
    ],
)
def test_a_text_arguing_for_another_action_than_the_chosen_one_is_flagged(action: str, text: str) -> None:
    assert kinds({"reasoning": text}, action=action) == ["action_contradiction"]


@pytest.mark.parametrize(
    ("action", "text"),
    [
        ("HOLD", "证据分歧较大，不支持买入。"),  # negated
        ("HOLD", "暂不买入，等待突破。"),  # no advocacy at all
        ("HOLD", "不建议加仓。"),
        ("HOLD", "虽然多头论点支持买入，但证据分歧较大，观望为宜。"),  # conceded
        ("HOLD", "多头论点支持买入，但证据分歧较大，选择观望。"),  # answered by the chosen action
        ("HOLD", "若突破 110 可以买入。"),  # the HOLD plan's own level to watch
        ("HOLD", "空仓观望是合理的。"),  # no position is the HOLD position
        ("HOLD", "仓位减半并不合理。"),
        ("BUY", "多头论据更充分，建议买入。"),  # the chosen action itself
        ("BUY", "若跌破 95.5 则应离场。"),  # the plan's own exit
        ("BUY", "保守方案仓位减半是合理的。"),  # a BUY plan's position
        ("SELL", "基本面转弱，建议减仓。"),
        (None, "建议买入。"),  # no action given: not the judge, no check
    ],
)
def test_negated_conceded_conditional_or_own_actions_are_not_contradictions(
    action: str | None, text: str
) -> None:
    assert kinds({"reasoning": text}, action=action, checks=["action_contradiction"]) == []


def test_a_risk_warning_arguing_for_another_action_is_flagged_as_its_bullet() -> None:
    [violation] = check_claims({"risk_warnings": ["估值回落", "建议买入"]}, {}, action="SELL")
    assert (violation.kind, violation.field, violation.item) == ("action_contradiction", "risk_warnings", 1)


# ---- side_contradiction ------------------------------------------------------------------------


def test_the_recorded_bull_giving_bearish_facts_as_its_reason_is_a_side_contradiction() -> None:
    """ "…且财务状况堪忧，因此仍被看多": role_reversal misses it, its own conclusion is there."""
    found = check_claims({"core_thesis": RECORDED_BULL}, {}, role="bull")
    assert [(v.kind, v.term) for v in found] == [("side_contradiction", "堪忧")]
    assert "你是多头辩手" in found[0].detail and "“堪忧”当作理由" in found[0].detail


@pytest.mark.parametrize(
    ("role", "field", "text"),
    [
        ("bull", "core_thesis", "由于亏损扩大，看好后市"),
        ("bull", "supporting_arguments", "财务状况堪忧"),  # an argument that is the other side's fact
        ("bull", "supporting_arguments", "营收同比下降，利润下滑"),
        ("bear", "core_thesis", "盈利增长强劲，因此看空"),
        ("bear", "supporting_arguments", "现金流充沛"),
        ("bear", "supporting_arguments", "估值被低估"),
    ],
)
def test_an_advocate_arguing_from_the_other_sides_facts_is_flagged(role: str, field: str, text: str) -> None:
    value: str | list[str] = text if field == "core_thesis" else [text]
    assert kinds({field: value}, role=role) == ["side_contradiction"]


@pytest.mark.parametrize(
    ("role", "field", "text"),
    [
        ("bull", "core_thesis", "估值偏高，但盈利增长强劲，因此看多"),  # concedes and turns
        ("bull", "core_thesis", "财务状况并未恶化，因此看多"),  # negated
        ("bull", "supporting_arguments", "亏损收窄"),  # the fact is said to be passing
        ("bull", "supporting_arguments", "估值偏高的风险可控"),
        ("bull", "acknowledged_risks", "财务状况堪忧"),  # conceding is where the other side's facts go
        ("bear", "core_thesis", "营收增长放缓，因此看空"),  # a change of pace, not growth
        ("bear", "supporting_arguments", "增长已被充分定价"),
        ("bear", "acknowledged_strengths", "现金流充沛"),
        (None, "core_thesis", RECORDED_BULL),  # no role: the resolution or the judge
    ],
)
def test_conceded_negated_contained_or_own_side_arguments_are_not_side_contradictions(
    role: str | None, field: str, text: str
) -> None:
    value: str | list[str] = text if field == "core_thesis" else [text]
    assert kinds({field: value}, role=role, checks=["side_contradiction"]) == []


@pytest.mark.parametrize(
    ("role", "argument", "card_id"),
    [
        ("bull", "PE 历史分位 85", "valuation.pe_percentile"),  # the card's words
        ("bull", "营收同比 -13.74%", "financial.revenue_yoy"),
        ("bull", "营收下降 13.74%，需求稳定", "financial.revenue_yoy"),  # its figure beside its metric
        ("bear", "安全边际 12.8%", "valuation.graham_safety_margin"),
    ],
)
def test_an_advocate_quoting_a_card_signed_for_the_other_side_is_flagged(
    role: str, argument: str, card_id: str
) -> None:
    [violation] = check_claims(
        {"supporting_arguments": [argument]}, CARDS, role=role, checks=["side_contradiction"]
    )
    assert violation.kind == "side_contradiction" and violation.term == card_id and violation.item == 0


@pytest.mark.parametrize(
    ("role", "argument"),
    [
        ("bull", "安全边际 12.8%"),  # its own side's card
        ("bear", "PE 历史分位 85"),
        ("bull", "PE 历史分位 85，但安全边际 12.8%"),  # conceded and turned
        ("bull", "ROE 85"),  # the number, but of another metric than the card's
    ],
)
def test_own_side_cards_conceded_cards_and_other_metrics_are_not_card_quotes(
    role: str, argument: str
) -> None:
    found = check_claims(
        {"supporting_arguments": [argument]}, CARDS, role=role, checks=["side_contradiction"]
    )
    assert found == []


def test_cards_are_found_at_any_depth_of_the_facts() -> None:
    deep = {"run": [{"views": {"valuation": CARDS["digests"][0]}}]}
    assert kinds({"supporting_arguments": ["PE 历史分位 85"]}, deep, role="bull") == ["side_contradiction"]


# ---- growth against the newest period (direction_contradicts_sign) -----------------------------


def test_profitability_said_to_grow_against_a_falling_newest_period_is_flagged_despite_the_average() -> None:
    [violation] = check_claims({"t": "盈利能力在增长。"}, FALLING_NOW)
    assert violation.kind == "direction_contradicts_sign" and "profit_dedt_yoy=-25.49" in violation.detail
    assert "growth_rate_avg=2.57 是多年增速均值" in violation.detail


def test_results_growth_is_read_against_the_newest_period_not_the_multi_year_average() -> None:
    assert kinds({"t": "业绩增长。"}, FALLING_NOW) == ["direction_contradicts_sign"]
    assert kinds({"t": "业绩增长。"}, {"growth_rate_avg": 2.57}) == []  # only the average: it decides


def test_a_growth_claim_is_checked_against_a_card_of_the_newest_period() -> None:
    only_card = {"cards": [card("financial.profit_dedt_yoy", "扣非净利同比 -25.49%（下降）", -1,
                                profit_dedt_yoy=-25.49)]}  # fmt: skip
    assert kinds({"t": "盈利能力持续提升。"}, only_card) == ["direction_contradicts_sign"]


@pytest.mark.parametrize(
    "text",
    [
        "盈利能力良好。",  # a level, not a change
        "盈利能力下降。",  # its fall agrees (and a fall of profitability is not read as a sign)
        "盈利平均增速为 2.57%，保持增长。",  # about the average itself
        "若需求回暖，盈利能力有望提升。",  # forward-looking
    ],
)
def test_profitability_levels_falls_averages_and_hedges_are_not_growth_claims(text: str) -> None:
    assert kinds({"t": text}, FALLING_NOW) == []


def test_profitability_growth_agreeing_with_the_newest_period_is_not_flagged() -> None:
    rising = {"revenue_yoy": 8.0, "profit_dedt_yoy": 12.0, "growth_rate_avg": -3.0}
    assert kinds({"t": "盈利能力在增长，业绩改善。"}, rising) == []


# ---- cut_off -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "text", "term"),
    [
        ("core_thesis", "空头论据更充分，但考虑到", "但考虑到"),  # the recorded bear case's end
        ("conflict_resolution", "多头证据更充分。因此，多头论", "因此"),  # the recorded resolution's end
        ("conflict_resolution", "估值合理，盈利稳定，", "，"),
        ("reasoning", "辩论偏多。证据中等，轻仓参与", "句末标点"),  # earlier sentences end, the last does not
        ("reasoning", "Revenue fell because", "because"),
    ],
)
def test_a_prose_field_that_stops_mid_sentence_is_cut_off(field: str, text: str, term: str) -> None:
    [violation] = check_claims({field: text}, {}, checks=["cut_off"])
    assert violation.kind == "cut_off" and violation.term == term
    assert violation.text == sentences(text)[-1] and "字数上限" in violation.detail


def test_a_bullet_ending_in_a_dangling_connective_is_cut_off_but_a_label_bullet_is_not() -> None:
    found = check_claims(
        {"key_disagreements": ["多头认为", "安全边际为负是否抵消增长"]}, {}, checks=["cut_off"]
    )
    assert [(v.item, v.term) for v in found] == [(0, "认为")]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("core_thesis", "盈利增长稳健，技术面中期向上"),  # a one-sentence headline
        ("conflict_resolution", "盈利增长的证据多于估值压力"),
        ("reasoning", "辩论偏多且置信度中等，轻仓参与。"),  # "参与" only ends like "与"
        ("reasoning", "观望是合理的"),
        ("risk_matrix.0.mitigation", "跟踪 PE 分位"),
        ("supporting_arguments", ["扣非净利同比 30.0%", "PE 历史分位 85（偏高）"]),  # label bullets
        ("reasoning", "估值偏高；盈利下滑"),  # a pair of labels
        ("reasoning", ""),
    ],
)
def test_headlines_labels_and_complete_sentences_are_not_cut_off(field: str, value: str | list[str]) -> None:
    assert check_claims({field: value}, {}, checks=["cut_off"]) == []


def test_a_cut_off_sentence_is_dropped_whole_and_the_complete_ones_are_kept_as_written() -> None:
    """Code never shortens a sentence: what is kept is the original's whole sentences."""
    text = "多头证据更充分。因此，多头论"
    cleaned = drop_violating({"conflict_resolution": text}, check_claims({"conflict_resolution": text}, {}))
    assert cleaned.texts["conflict_resolution"] == "多头证据更充分。"
    assert cleaned.dropped == ["conflict_resolution: 因此，多头论"]


# ---- feedback ----------------------------------------------------------------------------------


def test_repair_feedback_asks_for_complete_sentences_the_chosen_action_and_the_own_side() -> None:
    found = [
        *check_claims({"conflict_resolution": "空头论据更充分，但考虑到"}, {}),
        *check_claims({"reasoning": RECORDED_JUDGE}, {}, action="HOLD"),
        *check_claims({"core_thesis": RECORDED_BULL}, {}, role="bull"),
    ]
    feedback = repair_feedback(found)
    assert "写成完整的句子并以句号结束" in feedback and "字数上限" in feedback
    assert "必须支持你选择的操作" in feedback and "你选择的操作是 HOLD" in feedback
    assert "论据只能是己方的理由" in feedback and "「被评估为被高估" in feedback
