"""A session's charts built by the real code (research chart series, the coordinator's plan levels and
stance chart) over inputs made to crowd their labels; matplotlib and ECharts label tests draw the same.

- `session_charts("store")`: the synthetic store's history (flat close 20, PE 10 -> 30) as a session
  page shows it, with the scripted HOLD plan's levels 18 / 20 / 22.
- `session_charts("wide")`: a random walk around 1,500 (wide axis labels, like 600519.SH) and a
  BUY plan's levels a few percent apart.
- `session_charts("worst")`: the crafted worst case: today's PE equal to its median, the last close
  equal to the entry, and stop, entry and target within 1% of each other.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from stockdesk.coordinator.application.charts import stance_chart, with_plan_lines
from stockdesk.research.application.chart_series import financial_chart, price_chart, valuation_chart
from stockdesk.research.domain.dtos.technical import PriceBarInput
from stockdesk.research.domain.dtos.valuation import ValuationDailyInput
from stockdesk.shared.charts import ChartSpec
from tests.research.support import AS_OF, audit_records

Case = Literal["store", "wide", "worst"]
CASES: tuple[Case, ...] = ("store", "wide", "worst")
SYMBOL = "600001.SH"
DAYS = 300
AGGREGATION = {
    "digests": [
        {"expert": "valuation_modeler", "stance": "bullish", "confidence": 0.7},
        {"expert": "technical_analyst", "stance": "bearish", "confidence": 0.6},
        {"expert": "financial_auditor", "stance": "bullish", "confidence": 0.55},
        {"expert": "macro_intelligence", "stance": "neutral", "confidence": 0.5},
        {"expert": "catalyst_detective", "stance": "neutral", "confidence": 0.4},
    ]
}


def _days() -> pd.DatetimeIndex:
    return pd.bdate_range(end=AS_OF, periods=DAYS)


def _closes(case: Case) -> np.ndarray:
    if case == "store":
        return np.full(DAYS, 20.0)
    walk = 1500 * np.exp(np.cumsum(np.random.default_rng(7).normal(0, 0.015, DAYS)))
    return walk.round(2)


def _pe(case: Case) -> np.ndarray:
    if case == "store":
        return np.linspace(10, 30, DAYS)
    pe = (25 + 6 * np.sin(np.linspace(0, 9, DAYS)) + np.random.default_rng(3).normal(0, 0.8, DAYS)).round(2)
    if case == "worst":  # 299 values then their median: with an odd count, the median is that last value
        pe[-1] = float(np.median(pe[:-1]))
    return pe


def _plan(case: Case, close: float) -> dict[str, Any]:
    if case == "store":  # the scripted HOLD verdict of the served app
        return {"action": "HOLD", "entry_price": 20.0, "stop_loss_price": 18.0, "take_profit_price": 22.0}
    spread = 0.005 if case == "worst" else 0.04  # worst: stop, entry and target within 1%
    return {
        "action": "BUY", "entry_price": close, "stop_loss_price": round(close * (1 - spread), 2),
        "take_profit_price": round(close * (1 + spread), 2), "risk_reward": 1.0,
    }  # fmt: skip


def session_charts(case: Case) -> list[ChartSpec]:
    """Price (with the plan's levels), valuation, financials and stances, as a session stores them."""
    days, closes = _days(), _closes(case)
    bars = [
        PriceBarInput(
            trade_date=d.date(), open=c, high=c * 1.01, low=c * 0.99, close=c, volume=1e6 + 5e4 * (i % 9)
        )
        for i, (d, c) in enumerate(zip(days, closes, strict=True))
    ]
    dailies = [
        ValuationDailyInput(trade_date=d.date(), close=float(c), pe_ttm=float(pe), pb=2.0 + i / 100)
        for i, (d, c, pe) in enumerate(zip(days, closes, _pe(case), strict=True))
    ]
    price = price_chart(SYMBOL, bars, AS_OF)
    valuation = valuation_chart(SYMBOL, dailies, AS_OF)
    financials = financial_chart(SYMBOL, audit_records(), AS_OF)
    stances = stance_chart(AGGREGATION)
    assert price and valuation and financials and stances
    plan = {"trade_plan": _plan(case, float(closes[-1]))}
    return [
        ChartSpec.model_validate(with_plan_lines(price.model_dump(mode="json"), plan)),
        valuation,
        financials,
        stances,
    ]
