"""Code-only signals: each expert's snapshot read by documented rules, no LLM.

Every rule gives a component score in [-1, 1]; an expert's score is the mean of the components
its snapshot could feed (a missing number is skipped, never guessed). stance: score >= 0.3
bullish, <= -0.3 bearish, else neutral; confidence = 0.3 + 0.6 x |score|, times the share of
components that had data (an expert with no usable number says neutral with confidence 0 and
`has_data` False: it is missing, not a voice; a search expert has data when its search found items).

- valuation: PE/PB percentile (mean of the two; <= 20 +1, <= 40 +0.5, >= 80 -1, >= 60 -0.5),
  Graham safety margin (>= 30% +1, >= 10% +0.5, <= -50% -1, <= -20% -0.5), PEG (0 < PEG < 1 +0.5,
  > 2 -0.5, else 0).
- technical: trend = mean of close vs MA20/MA60/MA120 (+1 above, -1 below); 20-day change
  (> 5% +1, > 0 +0.5, < -5% -1, < 0 -0.5); MACD histogram sign (+-0.5); RSI > 75 -0.5, < 25 +0.5.
- financial (newest period): revenue and profit growth (> 10% +1, > 0 +0.5, < -10% -1, < 0 -0.5),
  ROE annualised from the year-to-date figure (>= 15% +1, >= 8% +0.5, < 0 -1, < 4% -0.5), debt to
  assets > 70% -0.5, cash quality (OCF/EPS) >= 1 +0.5, < 0.5 -0.5. Its code score is 50 + 50 x score.
- macro / catalyst: positive and negative headlines counted with a word list; with at least two
  counted, score = (positive - negative) / (positive + negative), confidence grows with the count.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping
from typing import Any

from stockdesk.research.domain.dtos.code_signal import CodeSignal
from stockdesk.shared.numbers import finite_number
from stockdesk.shared.wording import LANGUAGES, say

BULLISH_AT, BEARISH_AT = 0.3, -0.3
ANNUALISE = {"Q1": 4.0, "H1": 2.0, "Q3": 4.0 / 3.0, "A": 1.0}
INDICATOR_FIELDS = {
    "valuation_modeler": "valuation_indicators",
    "technical_analyst": "technical_indicators",
    "financial_auditor": "financial_indicators",
    "macro_intelligence": "macro_indicators",
    "catalyst_detective": "catalyst_indicators",
}
POSITIVE_WORDS = (
    "增长", "上涨", "利好", "突破", "超预期", "增持", "回购", "中标", "获批", "降息", "降准", "宽松",
    "创新高", "盈利", "扭亏", "提价", "分红",
    "beat", "beats", "upgrade", "record high", "surge", "rally", "approval", "raises guidance",
    "rate cut", "buyback", "growth",
)  # fmt: skip
NEGATIVE_WORDS = (
    "下跌", "下滑", "利空", "亏损", "减持", "处罚", "立案", "调查", "诉讼", "加息", "收紧", "违约",
    "暴跌", "退市", "预减", "预亏", "召回",
    "miss", "misses", "downgrade", "lawsuit", "probe", "plunge", "decline", "recall", "rate hike",
    "cuts guidance", "loss",
)  # fmt: skip


OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}
Reason = tuple[str, dict[str, Any]]  # a rule that fired: its catalogue key (`signal.*`) and its numbers


def _say(reason: Reason, lang: str) -> str:
    """A reason in `lang`; a value that is itself a reason (a label) is worded in `lang` too."""
    key, values = reason
    return say(key, lang, **{k: _say(v, lang) if isinstance(v, tuple) else v for k, v in values.items()})


def worded(reasons: list[Reason]) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The reasons as the signal stores them: in Chinese (the field the prompts read) and in every
    language (`i18n`, what a page in either language shows)."""
    by_lang = {lang: [_say(reason, lang) for reason in reasons] for lang in LANGUAGES}
    return by_lang["zh"], {lang: {"reasons": texts} for lang, texts in by_lang.items()}


def _signal(
    expert: str, stance: str, score: float, confidence: float, reasons: list[Reason], **kw: Any
) -> CodeSignal:
    texts, i18n = worded(reasons)
    return CodeSignal(
        expert=expert, stance=stance, score=score, confidence=confidence, reasons=texts, i18n=i18n, **kw
    )  # type: ignore[arg-type]


Rule = tuple[str, float, float]  # (comparison, threshold, points)


def graded(value: float | None, rules: tuple[Rule, ...]) -> float | None:
    """The points of the first rule that holds, else 0; None when there is no value."""
    if value is None:
        return None
    return next((points for op, limit, points in rules if OPS[op](value, limit)), 0.0)


GROWTH: tuple[Rule, ...] = ((">", 10, 1.0), (">", 0, 0.5), ("<", -10, -1.0), ("<", 0, -0.5))


def signal_from(expert: str, components: dict[str, float | None], reasons: list[Reason]) -> CodeSignal:
    present = [v for v in components.values() if v is not None]
    if not present:
        return _signal(expert, "neutral", 0.0, 0.0, [("signal.no_data", {})], has_data=False)
    score = max(-1.0, min(1.0, sum(present) / len(present)))
    stance = "bullish" if score >= BULLISH_AT else "bearish" if score <= BEARISH_AT else "neutral"
    coverage = len(present) / len(components)
    confidence = (0.3 + 0.6 * abs(score)) * coverage
    return _signal(expert, stance, round(score, 3), round(confidence, 2), reasons, has_data=True)


def valuation_signal(snapshot: Mapping[str, Any]) -> CodeSignal:
    known = [
        p
        for p in (finite_number(snapshot.get("pe_percentile")), finite_number(snapshot.get("pb_percentile")))
        if p is not None
    ]
    pct = sum(known) / len(known) if known else None
    margin = finite_number(snapshot.get("graham_safety_margin"))
    peg = finite_number(snapshot.get("peg_ratio"))
    components = {
        "percentile": graded(pct, (("<=", 20, 1.0), ("<=", 40, 0.5), (">=", 80, -1.0), (">=", 60, -0.5))),
        "safety_margin": graded(
            margin, ((">=", 30, 1.0), (">=", 10, 0.5), ("<=", -50, -1.0), ("<=", -20, -0.5))
        ),
        "peg": graded(peg, (("<=", 0, 0.0), ("<", 1, 0.5), (">", 2, -0.5))),
    }
    reasons: list[Reason] = []
    if pct is not None:
        reasons.append(("signal.percentile", {"pct": f"{pct:g}"}))
    if margin is not None:
        reasons.append(("signal.graham", {"margin": f"{margin:g}"}))
    if peg is not None:
        reasons.append(("signal.peg", {"peg": f"{peg:g}"}))
    return signal_from("valuation_modeler", components, reasons)


def technical_signal(snapshot: Mapping[str, Any]) -> CodeSignal:
    close = finite_number(snapshot.get("close"))
    averages = [finite_number(snapshot.get(f"ma{p}")) for p in (20, 60, 120)]
    sides = [1.0 if close > ma else -1.0 for ma in averages if ma is not None and close is not None]
    change = finite_number(snapshot.get("change_20d_pct"))
    hist = finite_number(snapshot.get("macd_hist"))
    rsi = finite_number(snapshot.get("rsi14"))
    components = {
        "trend": sum(sides) / len(sides) if sides else None,
        "momentum": graded(change, ((">", 5, 1.0), (">", 0, 0.5), ("<", -5, -1.0), ("<", 0, -0.5))),
        "macd": graded(hist, ((">", 0, 0.5), ("<", 0, -0.5))),
        "rsi": graded(rsi, ((">", 75, -0.5), ("<", 25, 0.5))),
    }
    reasons: list[Reason] = []
    if sides:
        reasons.append(("signal.above_mas", {"above": sum(s > 0 for s in sides), "total": len(sides)}))
    if change is not None:
        reasons.append(("signal.change_20d", {"change": f"{change:g}"}))
    if hist is not None:
        reasons.append(("signal.macd_hist", {"hist": f"{hist:g}"}))
    if rsi is not None:
        reasons.append(("signal.rsi", {"rsi": f"{rsi:g}"}))
    return signal_from("technical_analyst", components, reasons)


def annualised_roe(period: str, roe: float | None) -> float | None:
    match = re.search(r"(Q1|H1|Q3|A)$", period or "")
    if roe is None or match is None:
        return roe
    return roe * ANNUALISE[match.group(1)]


def _latest_period(snapshot: Mapping[str, Any]) -> Mapping[str, Any]:
    periods = snapshot.get("periods") or []
    return periods[0] if periods and isinstance(periods[0], Mapping) else {}


def financial_components(snapshot: Mapping[str, Any]) -> tuple[dict[str, float | None], list[Reason]]:
    """The financial rules' component scores and the numbers each read (newest period)."""
    latest = _latest_period(snapshot)
    period = str(latest.get("period", ""))
    revenue = finite_number(latest.get("revenue_yoy"))
    profit = finite_number(latest.get("profit_dedt_yoy"))
    roe = annualised_roe(period, finite_number(latest.get("roe")))
    debt = finite_number(latest.get("debt_to_assets"))
    cash = finite_number(latest.get("cash_quality"))
    components = {
        "revenue_growth": graded(revenue, GROWTH),
        "profit_growth": graded(profit, GROWTH),
        "roe": graded(roe, ((">=", 15, 1.0), (">=", 8, 0.5), ("<", 0, -1.0), ("<", 4, -0.5))),
        "leverage": graded(debt, ((">", 70, -0.5),)),
        "cash_quality": graded(cash, ((">=", 1, 0.5), ("<", 0.5, -0.5))),
    }
    named = (
        ("revenue_yoy", revenue, "%"), ("profit_yoy", profit, "%"), ("roe", roe, "%"),
        ("debt", debt, "%"), ("cash", cash, ""),
    )  # fmt: skip
    reasons: list[Reason] = [
        (
            "signal.period_figure",
            {"label": (f"signal.label.{label}", {}), "value": f"{value:.2f}", "unit": unit, "period": period},
        )
        for label, value, unit in named
        if value is not None
    ]
    return components, reasons


def financial_signal(snapshot: Mapping[str, Any]) -> CodeSignal:
    components, reasons = financial_components(snapshot)
    signal = signal_from("financial_auditor", components, reasons)
    fired = reasons if signal.has_data else [("signal.no_data", {})]
    scored: list[Reason] = [("signal.financial_score", {"score": financial_score(signal)}), *fired]
    return _signal(
        signal.expert, signal.stance, signal.score, signal.confidence, scored, has_data=signal.has_data
    )


def financial_score(signal: CodeSignal) -> int:
    return round(50 + 50 * signal.score)


DIMENSION_COMPONENTS = {
    "profitability": ("roe",),
    "growth": ("revenue_growth", "profit_growth"),
    "cash_quality": ("cash_quality",),
    "solvency": ("leverage",),
    "efficiency": (),  # turnover days have no rule yet: no score rather than a guessed one
}


def financial_dimension_scores(snapshot: Mapping[str, Any]) -> dict[str, int | None]:
    """Each audit dimension scored 0-100 by code: 50 + 50 x the mean of its components."""
    components, _ = financial_components(snapshot)
    scores: dict[str, int | None] = {}
    for dimension, names in DIMENSION_COMPONENTS.items():
        present = [components[n] for n in names if components[n] is not None]
        scores[dimension] = round(50 + 50 * sum(present) / len(present)) if present else None  # type: ignore[operator]
    return scores


def count_words(text: str, words: tuple[str, ...]) -> int:
    lowered = text.lower()
    return sum(1 for word in words if word in lowered)


def search_signal(expert: str, snapshot: Mapping[str, Any]) -> CodeSignal:
    """Each headline counts once, as positive or negative by which word list it hits more."""
    positive = negative = found = 0
    for dimension in snapshot.get("dimensions") or []:
        for item in (dimension or {}).get("items") or []:
            found += 1
            text = f"{item.get('title', '')} {item.get('snippet', '')}"
            pos, neg = count_words(text, POSITIVE_WORDS), count_words(text, NEGATIVE_WORDS)
            positive += pos > neg
            negative += neg > pos
    counted = positive + negative
    reasons: list[Reason] = [("signal.headlines", {"positive": positive, "negative": negative})]
    if counted < 2:  # found items without enough signed headlines: data, but no lean
        return _signal(expert, "neutral", 0.0, 0.0, reasons, has_data=found > 0)
    score = (positive - negative) / counted
    stance = "bullish" if score >= BULLISH_AT else "bearish" if score <= BEARISH_AT else "neutral"
    confidence = min(0.8, (0.3 + 0.6 * abs(score)) * min(1.0, counted / 10))
    return _signal(expert, stance, round(score, 3), round(confidence, 2), reasons, has_data=True)


def code_signal(expert: str, snapshot: Mapping[str, Any]) -> CodeSignal:
    """The code-only signal of `expert` from its snapshot (as the result DTO dumps it)."""
    if expert == "valuation_modeler":
        return valuation_signal(snapshot)
    if expert == "technical_analyst":
        return technical_signal(snapshot)
    if expert == "financial_auditor":
        return financial_signal(snapshot)
    return search_signal(expert, snapshot)
