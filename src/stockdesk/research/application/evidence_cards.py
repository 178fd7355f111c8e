"""Evidence cards: each expert's snapshot figures worded and signed by code, one card per figure.

Why: the direction of a figure (does a bull or a bear read it?) is decided here, by the table
below, never by a model; a model later only picks card ids. Every card quotes the snapshot's own
number: `figures[field]` is the snapshot's value and the text writes it as `f"{value}"` (the
snapshot already rounded it), so a card cannot state a number the snapshot does not hold. A figure
that is missing (N/A, None, NaN, not a number) gives no card: never a guess. Strength is rounded
to 3 decimals and clipped to [0, 1].

Rules:

| card id (figure)           | direction                          | words zh / en; strength             |
|----------------------------|------------------------------------|-------------------------------------|
| valuation.pe_percentile,   | p < 40: +1; p > 60: -1; else 0     | 偏低 low / 偏高 high / 居中 mid     |
|   valuation.pb_percentile  |                                    | strength abs(p - 50) / 50           |
| valuation.graham_safety_   | m > 0: +1; m < 0: -1; 0: 0         | 价格低于/高于/等于格雷厄姆内在价值, |
|   margin (%)               |                                    | price below / above / at Graham     |
|                            |                                    | value; strength min(1, abs(m) / 50) |
| valuation.peg_ratio        | 0 < peg < 1: +1; peg > 2: -1;      | 偏低 low / 偏高 high / 居中 mid;    |
|                            | else 0 (peg <= 0: 不适用,          | strength min(1, abs(peg - 1.5) /    |
|                            | not meaningful)                    | 1.5); 0 when not meaningful         |
| valuation.growth_rate_avg  | sign                               | 增长 growth / 下降 decline / 持平   |
|   (%)                      |                                    | flat; strength min(1, abs(g) / 30)  |
| valuation.dv_ratio (%)     | dv > 3: +1; else 0                 | 较高 high / 一般 ordinary;          |
|                            |                                    | strength min(1, dv / 6)             |
| financial.revenue_yoy,     | sign (profit labelled by the       | 增长 / 下降 / 持平;                 |
|   financial.profit_dedt_yoy| snapshot's profit_growth_basis)    | strength min(1, abs(x) / 30)        |
| financial.roe (%, year to  | roe >= 15: +1; roe < 5: -1; else 0 | the period, 年初至今 / year to date;|
|   date)                    |                                    | strength min(1, abs(roe - 10) / 10) |
| financial.debt_to_assets   | d > 70: -1; d < 40: +1; else 0     | (en) high / low / mid;              |
|   (%)                      |                                    | strength min(1, abs(d - 55) / 45)   |
| financial.cash_quality     | c >= 1: +1; c < 0.5: -1; else 0    | (en) backed by cash / weak /        |
|   (OCF per share / EPS)    |                                    | moderate; strength                  |
|                            |                                    | min(1, abs(c - 0.75) / 1.5)         |
| financial.gross_margin (%) | 0 (a fact)                         | strength 0                          |
| technical.ma20,            | close above the MA: +1; below: -1; | 高于/低于/等于, above / below / at; |
|   technical.ma60           | equal: 0                           | strength min(1, abs(close / ma - 1) |
|                            |                                    | / 0.1)                              |
| technical.macd_hist        | h > 0: +1; h < 0: -1; 0: 0         | 为正/为负/为零, positive / negative |
|                            |                                    | / zero; strength min(1, abs(h) /    |
|                            |                                    | (0.02 x close)), 0.5 without close  |
| technical.rsi14            | rsi > 70: -1; rsi < 30: +1; else 0 | 超买 overbought / 超卖 oversold /   |
|                            |                                    | 中性 neutral; abs(rsi - 50) / 50    |
| technical.change_20d_pct   | 0: short-term A-share returns tend | strength 0                          |
|   (%)                      | to reverse, so code calls it       |                                     |
|                            | neither bullish nor bearish        |                                     |
| technical.adx14            | 0: trend strength, not direction   | 趋势强度 trend strength;            |
|                            |                                    | strength min(1, adx / 50)           |

Financial cards read the newest period (`periods[0]`). The Chinese text of revenue, profit, ROE,
debt to assets, cash quality and the valuation percentiles, margin and growth is the wording of the
prompts' highlights (`infrastructure.snapshot.highlights` joins these texts), so ROE, debt and cash
quality carry their direction in the card's `direction` and English text only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from stockdesk.research.domain.dtos.evidence_card import Direction, EvidenceCard
from stockdesk.research.domain.dtos.financial import FinancialSnapshotDTO, PeriodMetrics
from stockdesk.research.domain.dtos.technical import TechnicalSnapshotDTO
from stockdesk.research.domain.dtos.valuation import (
    DEDUCTED_PROFIT,
    NET_PROFIT_FALLBACK,
    ValuationSnapshotDTO,
)
from stockdesk.shared.numbers import finite_number

VALUATION, FINANCIAL, TECHNICAL = "valuation_modeler", "financial_auditor", "technical_analyst"
SHORT = {VALUATION: "valuation", FINANCIAL: "financial", TECHNICAL: "technical"}

# the profit growth row's label by the snapshot's profit_growth_basis (the table row without "%")
PROFIT_LABEL_ZH = {DEDUCTED_PROFIT: "扣非净利同比", NET_PROFIT_FALLBACK: "归母净利同比"}
PROFIT_LABEL_EN = {"扣非净利同比": "deducted net profit YoY", "归母净利同比": "net profit YoY"}
GROWTH_BASIS_EN = {
    DEDUCTED_PROFIT: "deducted net profit",
    NET_PROFIT_FALLBACK: "net profit attributable to the parent (no deducted figure)",
}

CHANGE_WORDS = {1: ("增长", "growth"), -1: ("下降", "decline"), 0: ("持平", "flat")}
LEVEL_WORDS = {1: ("偏低", "low"), -1: ("偏高", "high"), 0: ("居中", "mid")}
MARGIN_WORDS = {
    1: ("价格低于格雷厄姆内在价值", "price below Graham value"),
    -1: ("价格高于格雷厄姆内在价值", "price above Graham value"),
    0: ("价格等于格雷厄姆内在价值", "price at Graham value"),
}
PEG_NOT_MEANINGFUL = ("不适用", "not meaningful")
SIDE_WORDS = {1: ("高于", "above"), -1: ("低于", "below"), 0: ("等于", "at")}
MACD_WORDS = {1: ("为正", "positive"), -1: ("为负", "negative"), 0: ("为零", "zero")}
RSI_WORDS = {-1: ("超买", "overbought"), 1: ("超卖", "oversold"), 0: ("中性", "neutral")}
PERCENTILE_NAMES = {"pe_percentile": "PE", "pb_percentile": "PB"}


def _strength(value: float) -> float:
    """Clipped to [0, 1] so an odd input (an RSI above 100) cannot break the card's contract."""
    return round(max(0.0, min(1.0, value)), 3)


def _sign(value: float) -> Direction:
    return 1 if value > 0 else -1 if value < 0 else 0


def _band(value: float, bullish_below: float, bearish_above: float) -> Direction:
    """+1 below the low threshold, -1 above the high one, 0 in between (thresholds excluded)."""
    return 1 if value < bullish_below else -1 if value > bearish_above else 0


def _card(
    expert: str,
    figure: str,
    texts: tuple[str, str],
    direction: Direction,
    strength: float,
    figures: dict[str, float],
) -> EvidenceCard:
    return EvidenceCard(
        id=f"{SHORT[expert]}.{figure}",
        expert=expert,
        text_zh=texts[0],
        text_en=texts[1],
        direction=direction,
        strength=_strength(strength),
        figures=figures,
    )


# valuation


def percentile_card(field: str, value: Any) -> EvidenceCard | None:
    """PE or PB 3-year percentile: cheap against its own history reads bullish."""
    p = finite_number(value)
    if p is None:
        return None
    direction = _band(p, 40, 60)
    zh, en = LEVEL_WORDS[direction]
    name = PERCENTILE_NAMES[field]
    texts = (f"{name} 历史分位 {value}（{zh}）", f"{name} historical percentile {value} ({en})")
    return _card(VALUATION, field, texts, direction, abs(p - 50) / 50, {field: p})


def safety_margin_card(value: Any) -> EvidenceCard | None:
    """Graham safety margin in % of the price: positive means the price is below the Graham value."""
    m = finite_number(value)
    if m is None:
        return None
    direction = _sign(m)
    zh, en = MARGIN_WORDS[direction]
    texts = (f"安全边际 {value}%（{zh}）", f"safety margin {value}% ({en})")
    return _card(
        VALUATION, "graham_safety_margin", texts, direction, abs(m) / 50, {"graham_safety_margin": m}
    )


def peg_card(value: Any) -> EvidenceCard | None:
    """PEG below 1 is growth bought cheaply, above 2 dear; zero or negative says nothing."""
    peg = finite_number(value)
    if peg is None:
        return None
    if peg <= 0:
        direction: Direction = 0
        (zh, en), strength = PEG_NOT_MEANINGFUL, 0.0
    else:
        direction = 1 if peg < 1 else -1 if peg > 2 else 0
        (zh, en), strength = LEVEL_WORDS[direction], abs(peg - 1.5) / 1.5
    texts = (f"PEG {value}（{zh}）", f"PEG {value} ({en})")
    return _card(VALUATION, "peg_ratio", texts, direction, strength, {"peg_ratio": peg})


def growth_card(value: Any, basis: str) -> EvidenceCard | None:
    """Average YoY growth of the profit named by `basis` (the snapshot's growth_basis)."""
    g = finite_number(value)
    if g is None:
        return None
    direction = _sign(g)
    zh, en = CHANGE_WORDS[direction]
    texts = (
        f"{basis}同比增速均值 {value}%（{zh}）",
        f"average YoY growth of {GROWTH_BASIS_EN.get(basis, basis)} {value}% ({en})",
    )
    return _card(VALUATION, "growth_rate_avg", texts, direction, abs(g) / 30, {"growth_rate_avg": g})


def dividend_card(value: Any) -> EvidenceCard | None:
    """Dividend yield above 3% is a bull's point; a lower one is no bear's point."""
    dv = finite_number(value)
    if dv is None:
        return None
    direction: Direction = 1 if dv > 3 else 0
    zh, en = ("较高", "high") if direction else ("一般", "ordinary")
    texts = (f"股息率 {value}%（{zh}）", f"dividend yield {value}% ({en})")
    return _card(VALUATION, "dv_ratio", texts, direction, dv / 6, {"dv_ratio": dv})


def valuation_cards(snapshot: ValuationSnapshotDTO) -> list[EvidenceCard]:
    cards = [
        percentile_card("pe_percentile", snapshot.pe_percentile),
        percentile_card("pb_percentile", snapshot.pb_percentile),
        safety_margin_card(snapshot.graham_safety_margin),
        peg_card(snapshot.peg_ratio),
        growth_card(snapshot.growth_rate_avg, snapshot.growth_basis),
        dividend_card(snapshot.dv_ratio),
    ]
    return [c for c in cards if c is not None]


# financial


def _growth(figure: str, value: Any, label_zh: str, label_en: str) -> EvidenceCard | None:
    x = finite_number(value)
    if x is None:
        return None
    direction = _sign(x)
    zh, en = CHANGE_WORDS[direction]
    texts = (f"{label_zh} {value}%（{zh}）", f"{label_en} {value}% ({en})")
    return _card(FINANCIAL, figure, texts, direction, abs(x) / 30, {figure: x})


def _roe(period: PeriodMetrics) -> EvidenceCard | None:
    """ROE is year to date (a Q1 figure is about a quarter of the year's): the text says which period."""
    roe = finite_number(period.roe)
    if roe is None:
        return None
    direction: Direction = 1 if roe >= 15 else -1 if roe < 5 else 0
    texts = (
        f"ROE {period.roe}%（{period.period} 年初至今）",
        f"ROE {period.roe}% ({period.period} year to date)",
    )
    return _card(FINANCIAL, "roe", texts, direction, abs(roe - 10) / 10, {"roe": roe})


def _debt(value: Any) -> EvidenceCard | None:
    d = finite_number(value)
    if d is None:
        return None
    direction: Direction = -1 if d > 70 else 1 if d < 40 else 0
    en = {-1: "high", 1: "low", 0: "mid"}[direction]
    texts = (f"资产负债率 {value}%", f"debt to assets {value}% ({en})")
    return _card(FINANCIAL, "debt_to_assets", texts, direction, abs(d - 55) / 45, {"debt_to_assets": d})


def _cash_quality(value: Any) -> EvidenceCard | None:
    """Operating cash flow per share / EPS: profit backed by cash (>= 1) or not (< 0.5)."""
    c = finite_number(value)
    if c is None:
        return None
    direction: Direction = 1 if c >= 1 else -1 if c < 0.5 else 0
    en = {1: "backed by cash", -1: "weak", 0: "moderate"}[direction]
    texts = (f"现金质量 {value}", f"cash quality (OCF per share / EPS) {value} ({en})")
    return _card(FINANCIAL, "cash_quality", texts, direction, abs(c - 0.75) / 1.5, {"cash_quality": c})


def _gross_margin(value: Any) -> EvidenceCard | None:
    """A level that means different things by industry: a fact, no direction."""
    g = finite_number(value)
    if g is None:
        return None
    texts = (f"毛利率 {value}%", f"gross margin {value}%")
    return _card(FINANCIAL, "gross_margin", texts, 0, 0.0, {"gross_margin": g})


def period_cards(period: PeriodMetrics, profit_label: str) -> list[EvidenceCard]:
    """The cards of one period; `profit_label` names the profit (see PROFIT_LABEL_ZH). The prompts'
    financial highlights join the first five of these."""
    cards = [
        _growth("revenue_yoy", period.revenue_yoy, "营收同比", "revenue YoY"),
        _growth(
            "profit_dedt_yoy",
            period.profit_dedt_yoy,
            profit_label,
            PROFIT_LABEL_EN.get(profit_label, "profit YoY"),
        ),
        _roe(period),
        _debt(period.debt_to_assets),
        _cash_quality(period.cash_quality),
        _gross_margin(period.gross_margin),
    ]
    return [c for c in cards if c is not None]


def profit_label(basis: str) -> str:
    """The profit growth label of a profit_growth_basis, as the table row and highlights name it."""
    return PROFIT_LABEL_ZH.get(basis, f"{basis}同比")


def financial_cards(snapshot: FinancialSnapshotDTO) -> list[EvidenceCard]:
    if not snapshot.periods:
        return []
    return period_cards(snapshot.periods[0], profit_label(snapshot.profit_growth_basis))


# technical


def _versus_ma(snapshot: TechnicalSnapshotDTO, field: str) -> EvidenceCard | None:
    close, ma = finite_number(snapshot.close), finite_number(getattr(snapshot, field))
    if close is None or ma is None or ma <= 0:  # a non-positive average has no meaningful ratio
        return None
    direction = _sign(close - ma)
    zh, en = SIDE_WORDS[direction]
    name = field.upper()
    texts = (
        f"收盘价 {snapshot.close} {zh} {name} {getattr(snapshot, field)}",
        f"close {snapshot.close} {en} {name} {getattr(snapshot, field)}",
    )
    strength = abs(close / ma - 1) / 0.1
    return _card(TECHNICAL, field, texts, direction, strength, {"close": close, field: ma})


def _macd(snapshot: TechnicalSnapshotDTO) -> EvidenceCard | None:
    """The histogram's size counts against 2% of the price; without a price, a middling 0.5."""
    h, close = finite_number(snapshot.macd_hist), finite_number(snapshot.close)
    if h is None:
        return None
    direction = _sign(h)
    zh, en = MACD_WORDS[direction]
    texts = (f"MACD 柱{zh}（{snapshot.macd_hist}）", f"MACD histogram {en} ({snapshot.macd_hist})")
    strength = abs(h) / (0.02 * close) if close is not None and close > 0 else 0.5
    return _card(TECHNICAL, "macd_hist", texts, direction, strength, {"macd_hist": h})


def _rsi(value: Any) -> EvidenceCard | None:
    """Overbought reads bearish, oversold bullish (mean reversion of the oscillator)."""
    rsi = finite_number(value)
    if rsi is None:
        return None
    direction: Direction = -1 if rsi > 70 else 1 if rsi < 30 else 0
    zh, en = RSI_WORDS[direction]
    texts = (f"RSI14 {value}（{zh}）", f"RSI14 {value} ({en})")
    return _card(TECHNICAL, "rsi14", texts, direction, abs(rsi - 50) / 50, {"rsi14": rsi})


def _change_20d(value: Any) -> EvidenceCard | None:
    """A fact only: on A-shares short-term returns tend to reverse, so code calls it neither way."""
    x = finite_number(value)
    if x is None:
        return None
    texts = (f"20日涨跌幅 {value}%", f"20-day change {value}%")
    return _card(TECHNICAL, "change_20d_pct", texts, 0, 0.0, {"change_20d_pct": x})


def _adx(value: Any) -> EvidenceCard | None:
    """ADX measures how strong a trend is, not which way it runs: strength only."""
    adx = finite_number(value)
    if adx is None:
        return None
    texts = (f"ADX14 {value}（趋势强度，不含方向）", f"ADX14 {value} (trend strength, not direction)")
    return _card(TECHNICAL, "adx14", texts, 0, adx / 50, {"adx14": adx})


def technical_cards(snapshot: TechnicalSnapshotDTO) -> list[EvidenceCard]:
    cards = [
        _versus_ma(snapshot, "ma20"),
        _versus_ma(snapshot, "ma60"),
        _macd(snapshot),
        _rsi(snapshot.rsi14),
        _change_20d(snapshot.change_20d_pct),
        _adx(snapshot.adx14),
    ]
    return [c for c in cards if c is not None]


BUILDERS: dict[str, tuple[type[BaseModel], Callable[[Any], list[EvidenceCard]]]] = {
    VALUATION: (ValuationSnapshotDTO, valuation_cards),
    FINANCIAL: (FinancialSnapshotDTO, financial_cards),
    TECHNICAL: (TechnicalSnapshotDTO, technical_cards),
}


def cards_for(expert: str, snapshot: BaseModel | Mapping[str, Any]) -> list[EvidenceCard]:
    """The cards of `expert` from its snapshot (the DTO, or its JSON dump as a result carries it);
    an expert without card rules (the search experts, an unknown name) has none."""
    if expert not in BUILDERS:
        return []
    model, build = BUILDERS[expert]
    if not isinstance(snapshot, model):
        snapshot = model.model_validate(snapshot)
    return build(snapshot)
