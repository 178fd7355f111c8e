"""Technical analyst: indicators on forward-adjusted prices, N/A rules, levels, patterns, service."""

from __future__ import annotations

import json
from datetime import date

import numpy as np
import pandas as pd
import pytest
import talib

from stockdesk.data_engineering.application import (
    GetDailyBarsUseCase,
    GetFinanceForTickerUseCase,
    GetStockBasicInfoUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.application.snapshot.technical_snapshot_builder import TechnicalSnapshotBuilder
from stockdesk.research.application.stock_data import StockData
from stockdesk.research.application.technical_analyst_service import TechnicalAnalystService
from stockdesk.research.domain.dtos.technical import PriceBarInput
from stockdesk.research.domain.dtos.valuation import NA
from stockdesk.research.infrastructure.agents.structured_agent import SAMPLING
from stockdesk.research.infrastructure.agents.technical_analyst.agent import TechnicalAnalystAgent
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException, NotFoundException
from tests.conftest import scripted_service

AS_OF = date(2024, 6, 28)


def make_bars(closes: list[float], factors: list[float] | None = None) -> list[PriceBarInput]:
    days = pd.bdate_range(end=AS_OF, periods=len(closes))
    factors = factors or [1.0] * len(closes)
    return [
        PriceBarInput(
            trade_date=d.date(), open=c, high=c * 1.01, low=c * 0.99, close=c, volume=1000 + i, adj_factor=f
        )
        for i, (d, c, f) in enumerate(zip(days, closes, factors, strict=True))
    ]


build = TechnicalSnapshotBuilder().build


def reference_kdj(closes: list[float], period: int = 9) -> tuple[float, float]:
    """KDJ(9,3,3) the textbook way, over make_bars' highs and lows: K and D start at 50, and each
    day K = 2/3 K + 1/3 RSV, D = 2/3 D + 1/3 K."""
    highs, lows = [c * 1.01 for c in closes], [c * 0.99 for c in closes]
    k = d = 50.0
    for i in range(period - 1, len(closes)):
        low, high = min(lows[i - period + 1 : i + 1]), max(highs[i - period + 1 : i + 1])
        rsv = (closes[i] - low) / (high - low) * 100 if high > low else 50.0
        k = 2 / 3 * k + rsv / 3
        d = 2 / 3 * d + k / 3
    return k, d


def test_moving_averages_and_na_when_history_is_short():
    closes = [float(v) for v in range(1, 101)]
    snap = build("X", "x", make_bars(closes), AS_OF)
    assert snap.ma5 == np.mean(closes[-5:]) == 98.0 and snap.ma60 == np.mean(closes[-60:])
    assert snap.ma120 == NA and snap.ma250 == NA  # never a shorter MA in disguise
    assert snap.bars == 100


def test_indicators_use_forward_adjusted_prices():
    raw = [10.0] * 50 + [5.0] * 50  # a 2:1 split halves the price...
    factors = [1.0] * 50 + [2.0] * 50  # ...and doubles the adjustment factor
    snap = build("X", "x", make_bars(raw, factors), AS_OF)
    assert snap.close == 5.0 and snap.ma60 == 5.0  # adjusted history is flat at today's price level
    assert snap.change_20d_pct == 0.0


def test_rsi_macd_match_talib_on_the_same_series():
    rng = np.random.default_rng(7)
    closes = list(np.round(100 * np.exp(np.cumsum(rng.normal(0, 0.01, 300))), 2))
    snap = build("X", "x", make_bars(closes), AS_OF)
    arr = np.array(closes)
    assert snap.rsi14 == round(float(talib.RSI(arr, 14)[-1]), 2)
    dif, dea, _ = talib.MACD(arr, 12, 26, 9)
    assert snap.macd_dif == pytest.approx(dif[-1], abs=6e-4) and snap.macd_dea == pytest.approx(
        dea[-1], abs=6e-4
    )
    k, d = reference_kdj(closes)
    assert (snap.kdj_k, snap.kdj_d) == (pytest.approx(k, abs=0.006), pytest.approx(d, abs=0.006))
    assert snap.kdj_j == pytest.approx(3 * k - 2 * d, abs=0.006)
    assert snap.ma250 != NA


def test_breakout_and_golden_cross_are_detected():
    closes = [100.0 - i * 0.5 for i in range(60)] + [70.0 + i * 3 for i in range(8)]
    snap = build("X", "x", make_bars(closes), AS_OF)
    assert "MA5 上穿 MA20（金叉）" in snap.patterns
    assert "突破 20 日高点" in snap.patterns or snap.close <= snap.high_20d
    assert snap.patterns_text != "无明显形态"


def test_levels_come_from_confirmed_swings_around_the_price():
    wave = [100 + 10 * np.sin(i / 4) for i in range(120)]
    snap = build("X", "x", make_bars(wave), AS_OF)
    assert all(level < snap.close for level in snap.support_levels)
    assert all(level > snap.close for level in snap.resistance_levels)
    assert len(snap.resistance_levels) <= 3 and len(snap.support_levels) <= 3


def stored(database: Database, bars: list[PriceBarInput] | None) -> StockData:
    """The real StockData over a real store holding 600001.SH and `bars` (no security if None)."""
    repository = SqlMarketDataRepository(database)
    if bars is not None:
        frames = {
            "securities": pd.DataFrame([{"symbol": "600001.SH", "name": "示例", "market": "CN"}]),
            "bars": pd.DataFrame([{"symbol": "600001.SH", **b.model_dump()} for b in bars]),
        }
        MarketDataImportService(repository).import_frames("test", frames)
    return StockData(
        GetStockBasicInfoUseCase(repository),
        GetDailyBarsUseCase(repository),
        GetValuationDailiesForTickerUseCase(repository),
        GetFinanceForTickerUseCase(repository),
    )


ANSWER = json.dumps(
    {
        "signal": "NEUTRAL",
        "confidence": 0.5,
        "key_technical_levels": {"support": [], "resistance": []},
        "risk_warning": "数据有限",
        "summary_reasoning": "均线走平，方向不明。",
        "evidence": [],
    },
    ensure_ascii=False,
)


def service(
    database: Database, bars: list[PriceBarInput] | None, *answers: str
) -> tuple[TechnicalAnalystService, ScriptedProvider]:
    provider = ScriptedProvider(list(answers) or [ANSWER])
    agent = TechnicalAnalystAgent(LLMHandle(scripted_service(provider), SAMPLING))
    return TechnicalAnalystService(stored(database, bars), TechnicalSnapshotBuilder(), agent), provider


def test_service_returns_symmetric_result_with_indicators(database: Database) -> None:
    svc, provider = service(database, make_bars([float(v) for v in range(1, 80)]))
    result = svc.run("600001.SH", AS_OF)
    assert result.signal == "NEUTRAL" and result.technical_indicators["ma20"] == 69.5
    assert result.input == provider.requests[0].messages[-1].content and result.output == ANSWER
    assert "MA20：69.5" in result.input and "{" not in result.input


def test_service_rejects_a_blank_symbol(database: Database) -> None:
    svc, provider = service(database, make_bars([1.0] * 30))
    with pytest.raises(BadRequestException):
        svc.run("", AS_OF)
    assert provider.calls == 0


def test_service_rejects_an_unknown_symbol(database: Database) -> None:
    svc, provider = service(database, None)
    with pytest.raises(NotFoundException):
        svc.run("600999.SH", AS_OF)
    assert provider.calls == 0


def test_service_rejects_a_too_short_history(database: Database) -> None:
    svc, provider = service(database, make_bars([1.0] * 5))
    with pytest.raises(BadRequestException) as info:
        svc.run("600001.SH", AS_OF)
    assert info.value.code == "NOT_ENOUGH_BARS" and provider.calls == 0


def test_trade_instruction_is_flagged_after_one_retry(database: Database) -> None:
    trade = ANSWER.replace("方向不明。", "建议买入。")
    svc, provider = service(database, make_bars([float(v) for v in range(1, 80)]), trade, trade)
    result = svc.run("600001.SH", AS_OF)
    assert provider.calls == 2 and result.guards.flagged and result.guards.trade_instructions == ["建议买入"]
