"""Target weights from a day's verdicts, by code: one pure function, `allocate`.

The rule, in order (every cut is recorded on the name as a worded reason):

1. Which names may hold weight. A BUY does. A HOLD on a held name keeps its current weight (then
   the caps below); a HOLD on a name not held, and a name without a verdict that is not held, get
   0 (a held name without a verdict keeps its weight, as a HOLD). A SELL gets 0.
2. The edge of a BUY: P(up) - 0.5, with P(up) the verdict's calibrated probability at its main
   horizon. An uncalibrated verdict uses its confidence as the probability, and says so. No
   positive edge: 0.
3. The volatility-targeted size of a BUY: (VOL_TARGET / the name's annualised volatility over the
   window) x min(edge / FULL_EDGE, 1): a name at FULL_EDGE or more is sized to VOL_TARGET of risk
   on its own. Fewer than MIN_OBSERVATIONS daily returns in the window: 0 (no volatility to size by).
4. The cap per name (NAME_CAP), then the cap per industry (INDUSTRY_CAP: an industry over it has
   its names scaled down alike), then the whole book to at most fully invested.
5. The correlation-aware risk budget. With Σ the shrunk covariance of the window's daily returns
   (`risk.shrunk_covariance`), while the book's annualised volatility sqrt(w'Σw) is above
   RISK_BUDGET, each weight is divided by (1 + λ m_i), m_i being the name's marginal contribution
   to the book's volatility per unit of weight ((Σw)_i / σ, over its mean; never below 0) and λ the
   one number (found by bisection) that brings the book's volatility to the budget. A name that
   moves with the rest of the book gives up more than one that diversifies it. The rest is cash.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pydantic import BaseModel

from stockdesk.portfolio.application.risk import TRADING_DAYS_PER_YEAR, book_volatility
from stockdesk.portfolio.domain.view import NameAllocation, NameVerdict, Reason
from stockdesk.shared.wording import LANGUAGES, say

NAME_CAP = 0.20
"""The largest weight of one name."""
INDUSTRY_CAP = 0.40
"""The largest weight of one industry (the store's securities' industry)."""
RISK_BUDGET = 0.15
"""The largest annualised volatility of the whole book."""
VOL_TARGET = 0.10
"""The annualised volatility one name at full edge is sized to on its own."""
FULL_EDGE = 0.10
"""An edge (P(up) - 0.5) at which a name gets its full volatility-targeted size."""
WINDOW_DAYS = 120
"""Trading days of returns the volatilities, the covariance and the risk figures are read over."""
MIN_OBSERVATIONS = 60
"""Daily returns a name needs in the window to be sized."""
TOLERANCE = 1e-9
BISECTION_STEPS = 100


@dataclass(frozen=True)
class Limits:
    name_cap: float = NAME_CAP
    industry_cap: float = INDUSTRY_CAP
    risk_budget: float = RISK_BUDGET
    vol_target: float = VOL_TARGET

    def as_dict(self) -> dict[str, float]:
        return {
            "name_cap": self.name_cap, "industry_cap": self.industry_cap,
            "risk_budget": self.risk_budget, "vol_target": self.vol_target,
        }  # fmt: skip


class NameInput(BaseModel):
    """One name of the book: its verdict, industry and weight now."""

    verdict: NameVerdict
    name: str = ""
    industry: str = ""
    current_weight: float = 0.0
    held: bool = False


def pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def reason(code: str, kind: str = "reason", **values: float | str | dict[str, str]) -> Reason:
    """A reason (or a note) worded from the catalogue (`portfolio.<kind>.<code>`) in every language; a
    value that is itself worded (language -> text, e.g. a market's name) is put in its own language."""
    return Reason(
        code=code,
        values={k: v["en"] if isinstance(v, dict) else v for k, v in values.items()},
        text={
            lang: say(
                f"portfolio.{kind}.{code}",
                lang,
                **{k: v[lang] if isinstance(v, dict) else v for k, v in values.items()},
            )
            for lang in LANGUAGES
        },
    )


def market_words(market: str) -> dict[str, str]:
    """A market's name in every language (`portfolio.market.<CN|US>`; another market: its code)."""
    key = f"portfolio.market.{market}"
    return {lang: say(key, lang) if market in ("CN", "US") else market for lang in LANGUAGES}


def _annual_vol(column: pd.Series) -> float | None:
    seen = column.dropna()
    if len(seen) < MIN_OBSERVATIONS:
        return None
    value = float(seen.std(ddof=1)) * math.sqrt(TRADING_DAYS_PER_YEAR)
    return value if value > 0 else None


def _start(item: NameInput, vol: float | None, limits: Limits) -> NameAllocation:
    """Steps 1-3: the raw size and the reasons for it."""
    v = item.verdict
    probability = v.probability_up if v.calibrated and v.probability_up is not None else None
    reasons: list[Reason] = []
    if probability is None and v.action is not None:
        probability = v.confidence
        reasons.append(reason("uncalibrated", confidence=f"{v.confidence:.2f}"))
    edge = None if probability is None else probability - 0.5
    raw = 0.0
    if v.action == "SELL":
        reasons.append(reason("sell"))
    elif v.action == "BUY":
        if edge is None or edge <= 0:
            reasons.append(reason("no_edge", probability=f"{probability or 0:.2f}"))
        elif vol is None:
            reasons.append(reason("no_history", days=MIN_OBSERVATIONS))
        else:
            raw = limits.vol_target / vol * min(edge / FULL_EDGE, 1.0)
            reasons.append(
                reason(
                    "sized", vol=pct(vol), target=pct(limits.vol_target), edge=f"{edge:+.3f}", weight=pct(raw)
                )
            )
    elif item.held:
        raw = item.current_weight
        key = "hold_kept" if v.action == "HOLD" else "no_verdict_kept"
        reasons.append(reason(key, weight=pct(raw)))
    else:
        reasons.append(reason("hold_not_held" if v.action == "HOLD" else "no_verdict"))
    return NameAllocation(
        symbol=v.symbol, name=item.name, industry=item.industry, action=v.action, probability=probability,
        calibrated=bool(v.calibrated and v.probability_up is not None), edge=edge, volatility=vol,
        raw_weight=raw, current_weight=item.current_weight, target_weight=raw, reasons=reasons,
    )  # fmt: skip


def _cut(book: list[NameAllocation], index: int, weight: float, why: Reason) -> None:
    book[index] = book[index].model_copy(
        update={"target_weight": weight, "reasons": [*book[index].reasons, why]}
    )


def _caps(book: list[NameAllocation], limits: Limits) -> None:
    """Step 4: the name cap, the industry cap, then at most fully invested."""
    for i, a in enumerate(book):
        if a.target_weight > limits.name_cap + TOLERANCE:
            _cut(
                book,
                i,
                limits.name_cap,
                reason("name_cap", before=pct(a.target_weight), cap=pct(limits.name_cap)),
            )
    industries: dict[str, float] = {}
    for a in book:
        if a.industry:
            industries[a.industry] = industries.get(a.industry, 0.0) + a.target_weight
    for industry, total in industries.items():
        if total <= limits.industry_cap + TOLERANCE:
            continue
        scale = limits.industry_cap / total
        for i, a in enumerate(book):
            if a.industry == industry and a.target_weight > 0:
                why = reason(
                    "industry_cap", industry=industry, total=pct(total), cap=pct(limits.industry_cap),
                    before=pct(a.target_weight), after=pct(a.target_weight * scale),
                )  # fmt: skip
                _cut(book, i, a.target_weight * scale, why)
    total = sum(a.target_weight for a in book)
    if total > 1.0 + TOLERANCE:
        for i, a in enumerate(book):
            if a.target_weight > 0:
                why = reason("fully_invested", total=pct(total), before=pct(a.target_weight))
                _cut(book, i, a.target_weight / total, why)


def _budget_weights(weights: np.ndarray, sigma: np.ndarray, budget: float) -> np.ndarray:
    """Step 5 on arrays: the weights divided by (1 + λ m) with λ bringing the volatility to `budget`."""

    def vol(w: np.ndarray) -> float:
        return math.sqrt(max(float(w @ sigma @ w), 0.0))

    sigma_p = vol(weights)
    marginal = np.clip(sigma @ weights / sigma_p, 0.0, None)
    held = weights > 0
    mean = float(marginal[held].mean()) if held.any() else 0.0
    if mean <= 0:
        return weights * budget / sigma_p
    m = marginal / mean
    low, high = 0.0, 1.0
    while vol(weights / (1.0 + high * m)) > budget and high < 1e12:
        high *= 2.0
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2.0
        if vol(weights / (1.0 + middle * m)) > budget:
            low = middle
        else:
            high = middle
    out = weights / (1.0 + high * m)
    left = vol(out)
    return out * (budget / left) if left > budget else out  # a name with m = 0 alone over the budget


def _risk_budget(book: list[NameAllocation], covariance: pd.DataFrame, limits: Limits) -> float:
    """Step 5; returns the book's volatility before it (annualised)."""
    weights = {a.symbol: a.target_weight for a in book}
    before = book_volatility(weights, covariance)
    if before <= limits.risk_budget + TOLERANCE:
        return before
    names = [a.symbol for a in book if a.target_weight > 0 and a.symbol in covariance.index]
    w = np.array([weights[s] for s in names])
    sigma = covariance.loc[names, names].to_numpy()
    after = dict(zip(names, _budget_weights(w, sigma, limits.risk_budget), strict=True))
    for i, a in enumerate(book):
        if a.symbol in after and after[a.symbol] < a.target_weight - TOLERANCE:
            why = reason(
                "risk_budget", before=pct(a.target_weight), after=pct(after[a.symbol]),
                book=pct(before), budget=pct(limits.risk_budget),
            )  # fmt: skip
            _cut(book, i, float(after[a.symbol]), why)
    return before


def allocate(
    names: Sequence[NameInput],
    returns: pd.DataFrame,
    covariance: pd.DataFrame,
    limits: Limits | None = None,
) -> list[NameAllocation]:
    """Each name's target weight (see the module docstring). `returns`: daily returns over the
    window, days x symbols; `covariance`: their shrunk annualised covariance (`risk.shrunk_covariance`)."""
    limits = limits or Limits()
    book = []
    for item in names:
        symbol = item.verdict.symbol
        vol = _annual_vol(returns[symbol]) if symbol in returns.columns else None
        book.append(_start(item, vol, limits))
    _caps(book, limits)
    _risk_budget(book, covariance, limits)
    return book
