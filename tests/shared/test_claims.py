"""The shared claim checks on small hand-written cases: what each check flags, and what it must not.

Precision matters more than recall here (a false positive drops real analysis), so every check
has negatives next to its positives: negations, hedges, other periods, other metrics in the clause.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from stockdesk.shared.claims import (
    PLACEHOLDER,
    Violation,
    apply_texts,
    check_claims,
    check_grounding,
    collect_texts,
    drop_violating,
    numbers_in_text,
    repair_feedback,
    required_fields,
)

# the financial auditor's input in the recorded bad run: the newest period falls on every line
FALLING = {
    "periods": [
        {
            "period": "2024Q3",
            "revenue_yoy": -13.7,
            "profit_dedt_yoy": -25.5,
            "roe": 4.46,
            "gross_margin": 20.1,
        },
        {"period": "2023Q3", "revenue_yoy": 5.2, "profit_dedt_yoy": 3.1, "roe": 6.0, "gross_margin": 22.0},
    ]
}
RISING = {"periods": [{"period": "2024Q1", "revenue_yoy": 30.77, "profit_dedt_yoy": 30.0, "roe": 12.5}]}
# the valuation modeler's input in the recorded bad run: cheap against its own history
CHEAP = {
    "pe_ttm": 12.5,
    "pe_percentile": 14,
    "pb_percentile": 2,
    "ps_percentile": "N/A",
    "net_margin": 8.0,
    "roe": 4.46,
    "debt_to_assets": 55.0,
    "rsi14": 45.99,
    "gross_margin_trend": "同比上升 2.2%",
    "industry": "银行",
}


def kinds(text: str, facts: object, **options: object) -> list[str]:
    return [v.kind for v in check_claims({"t": text}, facts, **options)]  # type: ignore[arg-type]


# ---- the kernel stays a kernel -----------------------------------------------------------------


def test_the_claims_package_imports_only_stdlib_pydantic_and_itself() -> None:
    """Research, debate and judge all use it: it must not import any bounded context."""
    package = Path(__file__).resolve().parents[2] / "src" / "stockdesk" / "shared" / "claims"
    allowed_roots = set(sys.stdlib_module_names) | {"pydantic", "__future__"}
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] in allowed_roots or name.startswith("stockdesk.shared.claims"), (
                    f"{path.name} imports {name}"
                )


# ---- (a) unavailable_but_present ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["ROE 数据不足，无法判断盈利能力。", "缺失 ROE 数据。", "ROE is not available.", "ROE、毛利率数据不足。"],
)
def test_a_metric_called_unavailable_while_the_input_holds_it_is_flagged(text: str) -> None:
    assert "unavailable_but_present" in kinds(text, FALLING)


@pytest.mark.parametrize(
    "text",
    [
        "并非数据不足，ROE 为 4.46%。",  # negated
        "ROE 趋势数据不足。",  # the trend, not the value
        "ROIC 数据不足。",  # not in the input at all
        "ROE 为 4.46%，PS 分位数据不足。",  # the word is said about another metric of the clause
    ],
)
def test_unavailability_that_is_negated_true_or_about_something_else_is_not_flagged(text: str) -> None:
    assert kinds(text, FALLING) == []


def test_unavailability_of_a_metric_the_input_gives_as_na_is_true() -> None:
    assert kinds("PS 分位数据不足。", CHEAP) == [] and kinds("PS 分位 N/A。", CHEAP) == []


def test_the_unavailable_word_is_scoped_to_the_metrics_after_the_last_number() -> None:
    """ "PE 分位 14，PS N/A" says only PS is missing; "PE 分位 N/A" with 14 in the input is wrong."""
    assert kinds("PE 分位 14 而 PS 分位 N/A", CHEAP) == []
    assert kinds("PE 分位 N/A", CHEAP) == ["unavailable_but_present"]


# ---- (b) direction_contradicts_sign ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "营收增长。",
        "公司财务表现良好。",  # praise of results is a claim about growth
        "业绩稳健。",
        "营收增长 13.7%。",  # the number's size is right, its sign is not
        "Revenue grew strongly.",
        "较去年同期营收增长。",  # "去年同期" is the yoy comparison itself
        "2024Q3 营收增长。",  # the newest period named explicitly
    ],
)
def test_a_direction_against_the_sign_of_the_growth_is_flagged(text: str) -> None:
    assert kinds(text, FALLING) == ["direction_contradicts_sign"]


@pytest.mark.parametrize(
    "text",
    [
        "营收同比下降 13.7%，净利润同比下滑 25.5%。",
        "净利润同比增长 -25.5%。",  # "增长 -25.5%" says it fell
        "营收没有增长，利润也未改善。",  # negated
        "营收增长放缓。",  # a change of pace, not a sign
        "2023Q3 营收增长 5.2%。",  # another period
        "去年营收增长。",
        "若需求回暖，营收有望增长。",  # forward-looking
        "营收下滑风险需关注。",  # a risk
        "盈利能力良好，ROE 为 4.46%。",  # profitability is a level, not growth
        "股价表现良好。",  # "表现" of the price, not of results
        "资产负债率下降。",  # a level without a change in the input
    ],
)
def test_directions_that_agree_or_make_no_claim_about_the_newest_value_are_not_flagged(text: str) -> None:
    assert kinds(text, FALLING) == []


def test_a_growth_rate_said_to_slow_is_not_a_sign_claim_but_said_negative_is() -> None:
    assert kinds("净利润增速下降。", RISING) == []
    assert kinds("营收增速为负。", RISING) == ["direction_contradicts_sign"]


def test_praise_of_results_needs_every_growth_figure_against_it() -> None:
    mixed = {"periods": [{"period": "2024Q1", "revenue_yoy": 8.0, "profit_dedt_yoy": -3.0}]}
    assert kinds("业绩表现良好。", mixed) == []
    assert kinds("业绩表现良好。", RISING) == []


def test_the_gross_margin_trend_is_read_from_the_trend_text_or_the_same_period_a_year_earlier() -> None:
    assert kinds("毛利率下降。", CHEAP) == ["direction_contradicts_sign"]  # 同比上升 2.2%
    assert kinds("毛利率提升。", CHEAP) == []
    assert kinds("毛利率提升。", FALLING) == ["direction_contradicts_sign"]  # 20.1 vs 22.0 a year earlier


# ---- (c) ungrounded_number ---------------------------------------------------------------------


def test_numbers_not_in_the_input_are_flagged_with_their_sentence() -> None:
    [violation] = check_claims({"key_evidence": ["PE 为 12.5", "PEG 仅为 0.8"]}, CHEAP)
    assert violation.kind == "ungrounded_number" and violation.term == "0.8" and violation.item == 1
    assert numbers_in_text("2024-06-28 的 2023 年报，过去 4 个季度，PE 处于 5% 分位") == ["5"]
    assert check_grounding(["ROE 4.5%，分位 14"], CHEAP).ungrounded == []


# ---- (d) duplicate and repetition --------------------------------------------------------------


def test_the_same_bullet_twice_is_a_duplicate_but_bullets_with_other_numbers_are_not() -> None:
    risks = ["应收账款周转天数上升", "应收账款周转天数上升。", "ROE 为 4.46%", "ROE 为 12.5%"]
    found = check_claims({"key_risks": risks}, {"roe": [4.46, 12.5]}, checks=["duplicate"])
    assert [(v.kind, v.item) for v in found] == [("duplicate", 1)]


def test_a_sentence_pair_looping_until_the_length_limit_is_repetition() -> None:
    """The judge's recorded reasoning: one sentence pair five times, cut at 200 characters."""
    pair = "技术面与财务面均偏多，多头论据更充分。估值处于历史低位，安全边际尚可。"
    reasoning = (pair * 5)[:200]
    found = check_claims({"reasoning": reasoning}, {}, checks=["repetition"])
    assert [v.text for v in found] == [
        "技术面与财务面均偏多，多头论据更充分",
        "估值处于历史低位，安全边际尚可",
    ]
    cleaned = drop_violating({"reasoning": reasoning}, found)
    assert cleaned.texts["reasoning"] == pair and len(cleaned.dropped) >= 8


def test_a_short_clause_said_of_two_metrics_is_not_a_loop() -> None:
    text = "PE 分位 14，处于历史低位；PB 分位 2，处于历史低位。"
    assert check_claims({"t": text}, CHEAP, checks=["repetition"]) == []


# ---- (e) unsupported_reference and percentile_contradiction ------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "净利率低于行业平均。",
        "ROE 低于同行。",
        "资产负债率高于行业平均水平。",
        "ROE is below the industry average.",
    ],
)
def test_a_benchmark_the_input_never_gave_is_an_unsupported_reference(text: str) -> None:
    assert kinds(text, CHEAP) == ["unsupported_reference"]


@pytest.mark.parametrize(
    "text", ["缺少行业平均数据，无法与同行比较。", "同行竞争加剧。", "若跑输同行，估值或承压。"]
)
def test_a_missing_benchmark_peers_without_comparison_and_hedges_are_not_references(text: str) -> None:
    assert kinds(text, CHEAP) == []


def test_a_benchmark_named_without_a_comparison_claims_nothing_but_placed_at_it_does() -> None:
    assert kinds("跟踪 PE 和行业平均值。", CHEAP) == []
    assert kinds("ROE 处于行业平均水平。", CHEAP) == ["unsupported_reference"]


def test_a_benchmark_in_the_input_supports_the_reference() -> None:
    assert kinds("净利率低于行业平均。", {**CHEAP, "industry_avg_net_margin": 10.0}) == []
    assert kinds("ROE 低于同行。", {**CHEAP, "news": "ROE 低于同行业公司"}) == []


@pytest.mark.parametrize(
    "text",
    [
        "PE 分位高于历史分位。",
        "PE处于历史高位。",
        "市盈率分位较高。",
        "PE 分位 14 处于高位。",
        "RSI 进入超买区。",
    ],
)
def test_a_level_word_against_the_percentile_is_flagged(text: str) -> None:
    assert kinds(text, CHEAP) == ["percentile_contradiction"]


@pytest.mark.parametrize(
    "text",
    [
        "PE 分位 14，处于历史低位。",
        "PE 为 12.5 偏高。",  # a multiple's level may compare with anything: only its history counts
        "PE 并未处于历史高位。",
        "估值处于历史高位。",  # not a named percentile
        "股价处于高位。",
        "RSI 距超买区尚远。",
        "PE(TTM) 为 12.5，处于历史 14 分位，PB 分位 2，均处于低位。",
    ],
)
def test_level_words_that_agree_negate_or_name_no_percentile_are_not_flagged(text: str) -> None:
    assert kinds(text, CHEAP) == []


# ---- (f) role_reversal -------------------------------------------------------------------------


def test_a_bull_thesis_concluding_bearish_is_a_role_reversal() -> None:
    assert kinds("估值过高，存在投资风险", {}, role="bull") == []  # field "t" is no thesis
    found = check_claims({"core_thesis": "估值过高，存在投资风险"}, {}, role="bull")
    assert [v.kind for v in found] == ["role_reversal"] and "多头辩手" in found[0].detail


@pytest.mark.parametrize(
    ("role", "thesis"),
    [
        ("bull", "尽管估值偏高，但盈利增长强劲"),  # a positive turn
        ("bull", "估值并未高估，盈利稳定"),
        ("bear", "估值偏低但增长放缓，风险大于机会"),
        (None, "估值过高，存在投资风险"),  # no role, no check
    ],
)
def test_theses_that_turn_or_have_no_role_are_not_reversals(role: str | None, thesis: str) -> None:
    assert check_claims({"core_thesis": thesis}, {}, role=role, checks=["role_reversal"]) == []


def test_a_bear_thesis_concluding_bullish_is_a_role_reversal() -> None:
    found = check_claims({"core_thesis": "估值处于低位，具备上涨空间"}, {}, role="bear")
    assert [v.kind for v in found] == ["role_reversal"]


# ---- quotes ------------------------------------------------------------------------------------


def test_a_clause_quoted_from_the_input_is_not_checked_as_a_claim_of_ones_own() -> None:
    """The debate repeating an expert's words ("RSI 接近超买区") is not the debater's claim."""
    shown = {
        "digests": [{"risk_warnings": ["RSI 接近超买区，短线或有回调"], "key_numbers": {"rsi14": 45.99}}]
    }
    assert kinds("技术面向上，但 RSI 接近超买区。", shown) == []
    assert kinds("RSI 已进入超买区。", shown) == ["percentile_contradiction"]


# ---- feedback and dropping ---------------------------------------------------------------------


def test_repair_feedback_lists_each_violation_in_chinese() -> None:
    found = check_claims(
        {"summary": "公司财务表现良好。ROE 数据不足。", "key_risks": ["负债上升", "负债上升", "PEG 0.8"]},
        FALLING,
    )
    feedback = repair_feedback(found)
    assert feedback.startswith("以下表述与输入数据不符")
    assert "roe=4.46" in feedback and "revenue_yoy=-13.7" in feedback
    assert "key_risks 第 2 条" in feedback and "不在输入数据中，不得使用：0.8" in feedback
    assert repair_feedback([]) == ""


def test_dropping_removes_the_bullet_or_the_sentence_and_keeps_required_fields_non_empty() -> None:
    texts = {
        "summary": "公司财务表现良好。资产负债率 55.0%。",
        "assessment": "ROE 数据不足。",
        "key_risks": ["负债上升", "负债上升"],
        "notes": ["ROE 数据不足"],
    }
    found = check_claims(texts, {**FALLING, "debt_to_assets": 55.0})
    cleaned = drop_violating(texts, found, required={"assessment"})
    assert cleaned.texts == {
        "summary": "资产负债率 55.0%。",
        "assessment": PLACEHOLDER,
        "key_risks": ["负债上升"],
        "notes": [],
    }
    assert cleaned.kept == {"key_risks": [0], "notes": []}
    assert "summary: 公司财务表现良好" in cleaned.dropped and "key_risks[1]: 负债上升" in cleaned.dropped


class Catalyst(BaseModel):
    event: str


class Dimension(BaseModel):
    assessment: str = Field(min_length=1)
    points: list[str] = Field(default_factory=list)


class Answer(BaseModel):
    summary: str = Field(min_length=1)
    risks: list[str] = Field(min_length=1)
    dimensions: list[Dimension]
    catalysts: list[Catalyst] = Field(default_factory=list)


def test_field_paths_read_and_write_nested_texts_for_any_caller() -> None:
    answer = Answer(
        summary="营收增长。",
        risks=["营收增长", "负债上升"],
        dimensions=[Dimension(assessment="ROE 数据不足", points=["毛利率 20.1%"])],
        catalysts=[Catalyst(event="回购"), Catalyst(event="回购")],
    )
    paths = ("summary", "risks", "dimensions.*.assessment", "dimensions.*.points", "catalysts[].event")
    texts = collect_texts(answer, paths)
    assert texts == {
        "summary": "营收增长。",
        "risks": ["营收增长", "负债上升"],
        "dimensions.0.assessment": "ROE 数据不足",
        "dimensions.0.points": ["毛利率 20.1%"],
        "catalysts[].event": ["回购", "回购"],
    }
    assert required_fields(answer, texts) == {"summary", "risks", "dimensions.0.assessment"}
    found = check_claims(texts, FALLING)
    cleaned = drop_violating(texts, found, required=required_fields(answer, texts))
    fixed = Answer.model_validate(apply_texts(answer, cleaned))
    assert fixed.summary == PLACEHOLDER and fixed.risks == ["负债上升"]
    assert fixed.dimensions[0].assessment == PLACEHOLDER and fixed.dimensions[0].points == ["毛利率 20.1%"]
    assert [c.event for c in fixed.catalysts] == ["回购"]  # the duplicate object is gone


def test_violations_name_their_field_and_bullet() -> None:
    violation = Violation(kind="duplicate", field="positive_catalysts[].event", item=1, text="x", detail="d")
    assert violation.where() == "positive_catalysts.event 第 2 条"


def test_a_clause_said_twice_behind_a_connective_is_a_loop_and_its_repeat_is_cut() -> None:
    """make demo's judge (000338.SZ): "且整体财务状况不佳 ... 整体财务状况不佳。" in one reasoning."""
    said = "该股票仍然被高估，且整体财务状况不佳，现金质量下降，整体财务状况不佳。"
    texts = {"reasoning": said + "财务审计师的分析更有说服力。"}
    found = check_claims(texts, {})
    assert [(v.kind, v.text) for v in found] == [("repetition", "整体财务状况不佳")]
    cleaned = drop_violating(texts, found, required={"reasoning"})
    kept = "该股票仍然被高估，且整体财务状况不佳，现金质量下降。"
    assert cleaned.texts["reasoning"] == kept + "财务审计师的分析更有说服力。"
    assert cleaned.dropped == ["reasoning: 整体财务状况不佳。"]
