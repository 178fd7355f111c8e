"""Technical analyst DTOs."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from stockdesk.research.domain.dtos.valuation import Num


class PriceBarInput(BaseModel):
    trade_date: date
    open: float | None = None
    high: float | None = None
    low: float | None = None
    close: float
    volume: float | None = None
    amount: float | None = None
    adj_factor: float | None = None


class TechnicalSnapshotDTO(BaseModel):
    """Indicators on forward-adjusted prices as of the analysis date; N/A when history is too short."""

    symbol: str
    stock_name: str
    as_of: date
    trade_date: str
    bars: int
    close: Num
    change_5d_pct: Num
    change_20d_pct: Num
    ma5: Num
    ma10: Num
    ma20: Num
    ma60: Num
    ma120: Num
    ma250: Num
    rsi14: Num
    macd_dif: Num
    macd_dea: Num
    macd_hist: Num
    kdj_k: Num
    kdj_d: Num
    kdj_j: Num
    boll_upper: Num
    boll_mid: Num
    boll_lower: Num
    boll_bandwidth_pct: Num
    atr14: Num
    atr14_pct: Num
    adx14: Num
    obv_trend: str
    vwap20: Num
    volume_ratio: Num
    high_20d: Num
    low_20d: Num
    support_levels: list[float]
    resistance_levels: list[float]
    support_text: str
    resistance_text: str
    patterns: list[str]
    patterns_text: str


class KeyTechnicalLevels(BaseModel):
    support: list[float] = Field(default_factory=list, max_length=3)
    resistance: list[float] = Field(default_factory=list, max_length=3)


class TechnicalAnalysisOutput(BaseModel):
    """What the LLM must return; the key levels are the snapshot's swing levels, set by code."""

    signal: Literal["BULLISH", "BEARISH", "NEUTRAL"]
    confidence: float = Field(ge=0.0, le=1.0)
    risk_warning: str = Field(min_length=1, max_length=100)
    summary_reasoning: str = Field(min_length=1, max_length=150)
    evidence: list[Annotated[str, Field(max_length=60)]] = Field(default_factory=list, max_length=3)
