"""Evidence cards: each rule's thresholds on both sides, no card without a number, the card's numbers
are the snapshot's, the prompts' highlights unchanged, and the cards on a real expert's result."""

from __future__ import annotations

import asyncio
import math
import re
from datetime import date
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from stockdesk.coordinator.application.gateways import ResearchGateway
from stockdesk.research.application import (
    EvidenceCard,
    cards_for,
    expert_result,
    financial_cards,
    snapshot_of,
    stored,
    technical_cards,
    valuation_cards,
)
from stockdesk.research.application.snapshot.highlights import financial_highlights, valuation_highlights
from stockdesk.research.domain.dtos.financial import FinancialSnapshotDTO, PeriodMetrics
from stockdesk.research.domain.dtos.technical import TechnicalSnapshotDTO
from stockdesk.research.domain.dtos.valuation import NET_PROFIT_FALLBACK, ValuationSnapshotDTO
from stockdesk.shared.config import Settings
from tests.coordinator.support import AS_OF, SYMBOL, pipeline

NA = "N/A"
DAY = date(2024, 6, 28)


def valuation(**changes: Any) -> ValuationSnapshotDTO:
    base: dict[str, Any] = {
        "symbol": "600001.SH", "stock_name": "示例银行", "industry": "银行", "as_of": DAY,
        "trade_date": "2024-06-28", "current_price": 20.0, "total_mv": 1234.56, "currency": "CNY",
        "pe_ttm": 12.5, "pb": 0.9, "ps_ttm": NA, "dv_ratio": 1.5, "pe_percentile": 14, "pb_percentile": 2,
        "ps_percentile": NA, "history_days": 200, "growth_rate_avg": -5.2, "growth_periods": 4,
        "peg_ratio": 1.8, "eps_ttm": 1.3, "bps": 10.4, "graham_intrinsic_val": 17.44,
        "graham_safety_margin": -12.8, "gross_margin": 33.7, "gross_margin_trend": "同比上升 2.2%",
        "roe": 4.46, "net_margin": 8.0, "debt_to_assets": 55.0, "latest_report_period": "2024-03-31",
    }  # fmt: skip
    return ValuationSnapshotDTO(**(base | changes))


def period(**changes: Any) -> PeriodMetrics:
    base: dict[str, Any] = {
        "period": "2020Q1", "revenue_yoy": -13.74, "profit_dedt_yoy": -25.49, "gross_margin": 22.4,
        "net_margin": 5.1, "roe": 4.46, "roic": NA, "cash_quality": 0.3, "debt_to_assets": 68.2,
        "interest_debt_yi": NA, "current_ratio": 1.2, "quick_ratio": 0.9, "receivable_days": 40.0,
        "inventory_days": 60.0,
    }  # fmt: skip
    return PeriodMetrics(**(base | changes))


def financial(basis: str | None = None, **changes: Any) -> FinancialSnapshotDTO:
    older = period(period="2019Q1", revenue_yoy=50.0, roe=20.0)  # never read: the newest period counts
    extra = {"profit_growth_basis": basis} if basis else {}
    return FinancialSnapshotDTO(
        symbol="600001.SH", stock_name="示例银行", industry="银行", as_of=DAY,
        periods=[period(**changes), older], period_count=2, latest_period="2020Q1", table="", **extra,
    )  # fmt: skip


def technical(**changes: Any) -> TechnicalSnapshotDTO:
    base: dict[str, Any] = {
        "symbol": "600001.SH", "stock_name": "示例银行", "as_of": DAY, "trade_date": "2024-06-28",
        "bars": 300, "close": 10.5, "change_5d_pct": 1.2, "change_20d_pct": 12.5, "ma5": 10.4,
        "ma10": 10.3, "ma20": 10.0, "ma60": 11.0, "ma120": 9.0, "ma250": 8.5, "rsi14": 55.5,
        "macd_dif": 0.2, "macd_dea": 0.1, "macd_hist": 0.1, "kdj_k": 60.0, "kdj_d": 55.0, "kdj_j": 70.0,
        "boll_upper": 11.0, "boll_mid": 10.0, "boll_lower": 9.0, "boll_bandwidth_pct": 20.0, "atr14": 0.3,
        "atr14_pct": 2.9, "adx14": 25.0, "obv_trend": "上升", "vwap20": 10.1, "volume_ratio": 1.1,
        "high_20d": 10.8, "low_20d": 9.6, "support_levels": [9.6], "resistance_levels": [10.8],
        "support_text": "9.6", "resistance_text": "10.8", "patterns": [], "patterns_text": "无",
    }  # fmt: skip
    return TechnicalSnapshotDTO(**(base | changes))


SNAPSHOTS = {"valuation": valuation, "financial": financial, "technical": technical}
EXPERTS = {
    "valuation": "valuation_modeler",
    "financial": "financial_auditor",
    "technical": "technical_analyst",
}
BUILDERS = {"valuation": valuation_cards, "financial": financial_cards, "technical": technical_cards}


def cards(kind: str, **changes: Any) -> dict[str, EvidenceCard]:
    built = BUILDERS[kind](SNAPSHOTS[kind](**changes))  # type: ignore[operator]
    return {card.id: card for card in built}


# (snapshot kind, snapshot changes, card id, direction, strength): both sides of each threshold
RULES = [
    ("valuation", {"pe_percentile": 39}, "valuation.pe_percentile", 1, 0.22),
    ("valuation", {"pe_percentile": 40}, "valuation.pe_percentile", 0, 0.2),
    ("valuation", {"pe_percentile": 60}, "valuation.pe_percentile", 0, 0.2),
    ("valuation", {"pe_percentile": 61}, "valuation.pe_percentile", -1, 0.22),
    ("valuation", {"pb_percentile": 0}, "valuation.pb_percentile", 1, 1.0),
    ("valuation", {"pb_percentile": 40}, "valuation.pb_percentile", 0, 0.2),
    ("valuation", {"pb_percentile": 61}, "valuation.pb_percentile", -1, 0.22),
    ("valuation", {"pb_percentile": 100}, "valuation.pb_percentile", -1, 1.0),
    ("valuation", {"graham_safety_margin": 0.1}, "valuation.graham_safety_margin", 1, 0.002),
    ("valuation", {"graham_safety_margin": 0.0}, "valuation.graham_safety_margin", 0, 0.0),
    ("valuation", {"graham_safety_margin": -25.0}, "valuation.graham_safety_margin", -1, 0.5),
    ("valuation", {"graham_safety_margin": 80.0}, "valuation.graham_safety_margin", 1, 1.0),
    ("valuation", {"peg_ratio": 0.99}, "valuation.peg_ratio", 1, 0.34),
    ("valuation", {"peg_ratio": 1.0}, "valuation.peg_ratio", 0, 0.333),
    ("valuation", {"peg_ratio": 2.0}, "valuation.peg_ratio", 0, 0.333),
    ("valuation", {"peg_ratio": 2.01}, "valuation.peg_ratio", -1, 0.34),
    ("valuation", {"peg_ratio": -0.5}, "valuation.peg_ratio", 0, 0.0),
    ("valuation", {"peg_ratio": 0.0}, "valuation.peg_ratio", 0, 0.0),
    ("valuation", {"growth_rate_avg": 5.2}, "valuation.growth_rate_avg", 1, 0.173),
    ("valuation", {"growth_rate_avg": 0.0}, "valuation.growth_rate_avg", 0, 0.0),
    ("valuation", {"growth_rate_avg": -45.0}, "valuation.growth_rate_avg", -1, 1.0),
    ("valuation", {"dv_ratio": 3.0}, "valuation.dv_ratio", 0, 0.5),
    ("valuation", {"dv_ratio": 3.01}, "valuation.dv_ratio", 1, 0.502),
    ("valuation", {"dv_ratio": 9.0}, "valuation.dv_ratio", 1, 1.0),
    ("financial", {"revenue_yoy": -13.74}, "financial.revenue_yoy", -1, 0.458),
    ("financial", {"revenue_yoy": 0.0}, "financial.revenue_yoy", 0, 0.0),
    ("financial", {"revenue_yoy": 12.0}, "financial.revenue_yoy", 1, 0.4),
    ("financial", {"profit_dedt_yoy": 31.0}, "financial.profit_dedt_yoy", 1, 1.0),
    ("financial", {"profit_dedt_yoy": 0.0}, "financial.profit_dedt_yoy", 0, 0.0),
    ("financial", {"profit_dedt_yoy": -3.0}, "financial.profit_dedt_yoy", -1, 0.1),
    ("financial", {"roe": 15.0}, "financial.roe", 1, 0.5),
    ("financial", {"roe": 14.99}, "financial.roe", 0, 0.499),
    ("financial", {"roe": 5.0}, "financial.roe", 0, 0.5),
    ("financial", {"roe": 4.99}, "financial.roe", -1, 0.501),
    ("financial", {"debt_to_assets": 70.0}, "financial.debt_to_assets", 0, 0.333),
    ("financial", {"debt_to_assets": 70.1}, "financial.debt_to_assets", -1, 0.336),
    ("financial", {"debt_to_assets": 40.0}, "financial.debt_to_assets", 0, 0.333),
    ("financial", {"debt_to_assets": 39.9}, "financial.debt_to_assets", 1, 0.336),
    ("financial", {"cash_quality": 1.0}, "financial.cash_quality", 1, 0.167),
    ("financial", {"cash_quality": 0.99}, "financial.cash_quality", 0, 0.16),
    ("financial", {"cash_quality": 0.5}, "financial.cash_quality", 0, 0.167),
    ("financial", {"cash_quality": 0.49}, "financial.cash_quality", -1, 0.173),
    ("financial", {"gross_margin": 95.0}, "financial.gross_margin", 0, 0.0),
    ("technical", {"close": 10.5, "ma20": 10.0}, "technical.ma20", 1, 0.5),
    ("technical", {"close": 10.0, "ma20": 10.0}, "technical.ma20", 0, 0.0),
    ("technical", {"close": 9.0, "ma20": 10.0}, "technical.ma20", -1, 1.0),
    ("technical", {"close": 10.5, "ma60": 11.0}, "technical.ma60", -1, 0.455),
    ("technical", {"close": 11.0, "ma60": 11.0}, "technical.ma60", 0, 0.0),
    ("technical", {"close": 11.2, "ma60": 11.0}, "technical.ma60", 1, 0.182),
    ("technical", {"close": 10.0, "macd_hist": 0.1}, "technical.macd_hist", 1, 0.5),
    ("technical", {"close": 10.0, "macd_hist": 0.0}, "technical.macd_hist", 0, 0.0),
    ("technical", {"close": 10.0, "macd_hist": -0.3}, "technical.macd_hist", -1, 1.0),
    ("technical", {"close": NA, "macd_hist": -0.01}, "technical.macd_hist", -1, 0.5),
    ("technical", {"rsi14": 70.0}, "technical.rsi14", 0, 0.4),
    ("technical", {"rsi14": 70.01}, "technical.rsi14", -1, 0.4),
    ("technical", {"rsi14": 30.0}, "technical.rsi14", 0, 0.4),
    ("technical", {"rsi14": 29.99}, "technical.rsi14", 1, 0.4),
    ("technical", {"change_20d_pct": 25.0}, "technical.change_20d_pct", 0, 0.0),
    ("technical", {"change_20d_pct": -25.0}, "technical.change_20d_pct", 0, 0.0),
    ("technical", {"adx14": 25.0}, "technical.adx14", 0, 0.5),
    ("technical", {"adx14": 60.0}, "technical.adx14", 0, 1.0),
]


@pytest.mark.parametrize(("kind", "changes", "card_id", "direction", "strength"), RULES)
def test_each_rule_on_both_sides_of_its_thresholds(
    kind: str, changes: dict[str, Any], card_id: str, direction: int, strength: float
) -> None:
    card = cards(kind, **changes)[card_id]
    assert card.direction == direction
    assert card.strength == pytest.approx(strength, abs=1e-3)


@pytest.mark.parametrize(
    ("kind", "changes", "card_id", "zh", "en"),
    [
        ("valuation", {"pe_percentile": 14}, "valuation.pe_percentile", "偏低", "low"),
        ("valuation", {"pe_percentile": 76}, "valuation.pe_percentile", "偏高", "high"),
        ("valuation", {"pb_percentile": 50}, "valuation.pb_percentile", "居中", "mid"),
        ("valuation", {"graham_safety_margin": 5.0}, "valuation.graham_safety_margin", "低于", "below"),
        ("valuation", {"graham_safety_margin": -5.0}, "valuation.graham_safety_margin", "高于", "above"),
        ("valuation", {"peg_ratio": -0.5}, "valuation.peg_ratio", "不适用", "not meaningful"),
        ("valuation", {"growth_rate_avg": -5.2}, "valuation.growth_rate_avg", "下降", "decline"),
        ("valuation", {"growth_rate_avg": 0.0}, "valuation.growth_rate_avg", "持平", "flat"),
        ("financial", {"revenue_yoy": 2.5}, "financial.revenue_yoy", "增长", "growth"),
        ("financial", {"debt_to_assets": 75.0}, "financial.debt_to_assets", "资产负债率", "high"),
        ("technical", {"close": 9.0, "ma20": 10.0}, "technical.ma20", "低于", "below"),
        ("technical", {"macd_hist": 0.1}, "technical.macd_hist", "MACD 柱为正", "positive"),
        ("technical", {"rsi14": 80.0}, "technical.rsi14", "超买", "overbought"),
        ("technical", {"rsi14": 20.0}, "technical.rsi14", "超卖", "oversold"),
    ],
)  # fmt: skip
def test_the_words_follow_the_direction(
    kind: str, changes: dict[str, Any], card_id: str, zh: str, en: str
) -> None:
    card = cards(kind, **changes)[card_id]
    assert zh in card.text_zh and en in card.text_en


def test_the_profit_card_is_labelled_by_the_growth_basis_and_roe_says_year_to_date() -> None:
    deducted = cards("financial")
    assert deducted["financial.profit_dedt_yoy"].text_zh == "扣非净利同比 -25.49%（下降）"
    fallback = {c.id: c for c in financial_cards(financial(NET_PROFIT_FALLBACK))}
    assert fallback["financial.profit_dedt_yoy"].text_zh == "归母净利同比 -25.49%（下降）"
    assert deducted["financial.roe"].text_zh == "ROE 4.46%（2020Q1 年初至今）"
    assert "year to date" in deducted["financial.roe"].text_en


# every figure a card reads, each set missing in turn: the card is gone, never guessed
MISSING = [
    ("valuation", field, f"valuation.{field}")
    for field in ("pe_percentile", "pb_percentile", "graham_safety_margin", "peg_ratio", "growth_rate_avg",
                  "dv_ratio")
] + [
    ("financial", field, f"financial.{field}")
    for field in ("revenue_yoy", "profit_dedt_yoy", "roe", "debt_to_assets", "cash_quality", "gross_margin")
] + [
    ("technical", field, f"technical.{field}")
    for field in ("ma20", "ma60", "macd_hist", "rsi14", "change_20d_pct", "adx14")
]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "field", "card_id", "missing"),
    [
        (*case, missing)
        for case in MISSING
        for missing in (NA, math.nan)
        if not (case[1].endswith("_percentile") and missing is math.nan)  # a percentile is an int or N/A
    ],
)
def test_a_missing_figure_gives_no_card(kind: str, field: str, card_id: str, missing: object) -> None:
    assert card_id in cards(kind)  # present with the number...
    assert card_id not in cards(kind, **{field: missing})  # ...gone without it


def test_without_a_close_neither_average_gives_a_card() -> None:
    left = cards("technical", close=NA)
    assert "technical.ma20" not in left and "technical.ma60" not in left
    assert "technical.macd_hist" in left


def test_a_financial_snapshot_without_periods_gives_no_card() -> None:
    empty = FinancialSnapshotDTO(
        symbol="X",
        stock_name="X",
        industry="X",
        as_of=DAY,
        periods=[],
        period_count=0,
        latest_period=NA,
        table="",
    )
    assert financial_cards(empty) == []


# Numbers a text quotes, without the digits of names: MA20, RSI14, ADX14, 20日 / 20-day, 2020Q1.
NAMES = re.compile(r"MA\d+|RSI\d+|ADX\d+|20日|20-day|\d{4}(?:Q1|Q3|H1|A)")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def snapshot_value(snapshot: Any, field: str) -> Any:
    source = snapshot.periods[0] if isinstance(snapshot, FinancialSnapshotDTO) else snapshot
    return getattr(source, field)


def assert_cards_quote_the_snapshot(kind: str, snapshot: Any) -> None:
    built = BUILDERS[kind](snapshot)  # type: ignore[operator]
    ids = [c.id for c in built]
    assert len(ids) == len(set(ids))
    for card in built:
        assert card.id.startswith(f"{kind}.") and card.expert == EXPERTS[kind]
        assert card.figures, card.id
        for field, value in card.figures.items():
            assert value == snapshot_value(snapshot, field), (card.id, field)
        for text in (card.text_zh, card.text_en):
            quoted = [float(n) for n in NUMBER.findall(NAMES.sub("", text))]
            assert quoted, text
            assert all(n in card.figures.values() for n in quoted), (text, card.figures)


@pytest.mark.parametrize(
    ("kind", "changes"),
    [
        ("valuation", {}),
        ("valuation", {"pe_percentile": 100, "pb_percentile": 0, "peg_ratio": -0.37, "dv_ratio": 0.0}),
        ("financial", {}),
        ("financial", {"revenue_yoy": 0.0, "roe": -12.5, "debt_to_assets": 91.37, "cash_quality": -2.15}),
        ("technical", {}),
        ("technical", {"close": 123.45, "ma20": 123.45, "macd_hist": -0.0123, "rsi14": 99.9}),
    ],
)
def test_every_card_quotes_the_snapshots_own_numbers(kind: str, changes: dict[str, Any]) -> None:
    assert_cards_quote_the_snapshot(kind, SNAPSHOTS[kind](**changes))  # type: ignore[operator]


FIGURE = st.one_of(st.just(NA), st.integers(-500, 500), st.floats(-1e4, 1e4).map(lambda v: round(v, 2)))


@hypothesis_settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({f: FIGURE for f in ("graham_safety_margin", "peg_ratio", "growth_rate_avg")}),
       st.fixed_dictionaries({f: FIGURE for f in ("revenue_yoy", "roe", "debt_to_assets", "cash_quality")}),
       st.fixed_dictionaries({f: FIGURE for f in ("close", "ma20", "macd_hist", "adx14")}))  # fmt: skip
def test_any_figures_are_quoted_as_the_snapshot_holds_them(
    val: dict[str, Any], fin: dict[str, Any], tech: dict[str, Any]
) -> None:
    assert_cards_quote_the_snapshot("valuation", valuation(**val))
    assert_cards_quote_the_snapshot("financial", financial(**fin))
    assert_cards_quote_the_snapshot("technical", technical(**tech))


def test_cards_for_dispatches_by_expert_name_and_reads_a_dumped_snapshot() -> None:
    snapshot = technical()
    assert cards_for("technical_analyst", snapshot) == technical_cards(snapshot)
    assert cards_for("technical_analyst", snapshot.model_dump(mode="json")) == technical_cards(snapshot)
    assert cards_for("valuation_modeler", valuation()) == valuation_cards(valuation())
    assert cards_for("financial_auditor", financial()) == financial_cards(financial())
    assert cards_for("macro_intelligence", {"dimensions": []}) == []
    assert cards_for("no_such_expert", snapshot) == []


def test_a_card_is_frozen() -> None:
    card = cards("valuation")["valuation.pe_percentile"]
    with pytest.raises(ValueError):
        card.direction = -1  # type: ignore[misc]


# The prompts' highlights, joined from the cards' text_zh, byte for byte as before the cards.
def test_financial_highlights_are_byte_identical() -> None:
    assert financial_highlights(period(), "扣非净利同比") == (
        "2020Q1：营收同比 -13.74%（下降）；扣非净利同比 -25.49%（下降）；ROE 4.46%（2020Q1 年初至今）；"
        "资产负债率 68.2%；现金质量 0.3"
    )
    missing = period(revenue_yoy=NA, profit_dedt_yoy=0.0, roe=NA, debt_to_assets=NA, cash_quality=NA)
    assert financial_highlights(missing, "归母净利同比") == (
        "2020Q1：营收同比 N/A%（数据不足）；归母净利同比 0.0%（持平）；ROE N/A%（2020Q1 年初至今）；"
        "资产负债率 N/A%；现金质量 N/A"
    )


def test_valuation_highlights_are_byte_identical() -> None:
    assert valuation_highlights(14, 61, 12.3, -5.2, "扣非净利润") == (
        "PE 历史分位 14（偏低）；PB 历史分位 61（偏高）；安全边际 12.3%（价格低于格雷厄姆内在价值）；"
        "扣非净利润同比增速均值 -5.2%（下降）"
    )
    assert valuation_highlights(NA, 50, NA, NA, "归母净利润（无扣非数据）") == (
        "PE 历史分位 N/A（数据不足）；PB 历史分位 50（居中）；安全边际 N/A%（数据不足）；"
        "归母净利润（无扣非数据）同比增速均值 N/A%（数据不足）"
    )


def test_a_zero_safety_margin_is_worded_as_at_the_graham_value() -> None:
    """The one wording that changed: the old highlight called a 0.0% margin "price above"."""
    assert "安全边际 0.0%（价格等于格雷厄姆内在价值）" in valuation_highlights(14, 2, 0.0, 5.2, "扣非净利润")


def test_the_highlights_are_the_cards_texts() -> None:
    snapshot = financial()
    texts = [c.text_zh for c in financial_cards(snapshot) if c.id != "financial.gross_margin"]
    assert financial_highlights(snapshot.periods[0], "扣非净利同比") == "2020Q1：" + "；".join(texts)
    v = valuation()
    by_id = {c.id: c.text_zh for c in valuation_cards(v)}
    order = ("pe_percentile", "pb_percentile", "graham_safety_margin", "growth_rate_avg")
    highlights = valuation_highlights(
        v.pe_percentile, v.pb_percentile, v.graham_safety_margin, v.growth_rate_avg, v.growth_basis
    )
    assert highlights == "；".join(by_id[f"valuation.{f}"] for f in order)


CARDED = ("valuation_modeler", "technical_analyst", "financial_auditor")


def test_a_real_expert_run_and_its_rules_only_run_carry_the_cards(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    research = container.research
    services = {
        "valuation_modeler": research.valuation_modeler,
        "technical_analyst": research.technical_analyst,
        "financial_auditor": research.financial_auditor,
    }
    gateway = ResearchGateway(
        {name: (lambda s=s: s.run) for name, s in services.items()},
        container.data.stock_basic_info,
        {name: (lambda s=s: s.build_snapshot) for name, s in services.items()},
    )
    for expert, service in services.items():
        expected = cards_for(expert, service.build_snapshot(SYMBOL, AS_OF))
        assert expected, expert  # the store's snapshot has figures to card
        result = asyncio.run(gateway.run_expert(expert, SYMBOL, AS_OF))  # the scripted LLM answers
        assert result.evidence_cards == expected
        assert result.code_signal is not None and snapshot_of(expert, result)
        rules = asyncio.run(gateway.run_expert_rules(expert, SYMBOL, AS_OF))  # no LLM
        assert rules.evidence_cards == expected and rules.rules_only is True
        stored_json = stored(rules)  # what a session keeps, read back as the same type
        assert stored_json["rules_only"] is True and expert_result(expert, stored_json) == rules
    assert {"ValuationModelOutput", "TechnicalAnalysisOutput", "FinancialAuditOutput"} <= set(router.calls)
