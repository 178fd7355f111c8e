"""Valuation modeler DTOs (spec: research-valuation-modeler)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, Field

NA = "N/A"
Num = float | str  # a number, or "N/A" when it cannot be computed honestly
Pct = int | str  # an integer percentile 0-100, or "N/A"

# Which profit a growth figure is of: deducted profit (A-share), else net income attributable to the
# parent (SEC NetIncomeLoss), which US filings report instead.
DEDUCTED_PROFIT = "扣非净利润"
NET_PROFIT_FALLBACK = "归母净利润（无扣非数据）"
EPS_TTM = "TTM"


class StockOverviewInput(BaseModel):
    """Basic info plus the latest market valuation as of the analysis date."""

    symbol: str
    stock_name: str
    industry: str | None = None
    third_code: str | None = None
    currency: str | None = None
    trade_date: date | None = None
    close: float | None = None
    total_mv: float | None = Field(default=None, description="currency units")
    pe_ttm: float | None = None
    pb: float | None = None
    ps_ttm: float | None = None
    dv_ratio: float | None = None


class ValuationDailyInput(BaseModel):
    trade_date: date
    close: float | None = None
    pe_ttm: float | None = None
    pb: float | None = None
    ps_ttm: float | None = None


class FinanceRecordInput(BaseModel):
    """One report period as visible on the analysis date (year-to-date figures)."""

    end_date: date
    ann_date: date
    eps: float | None = None
    bps: float | None = None
    roe: float | None = None
    grossprofit_margin: float | None = None
    netprofit_margin: float | None = None
    debt_to_assets: float | None = None
    profit_dedt: float | None = None
    net_profit: float | None = Field(default=None, description="attributable to the parent, YTD")
    report_type: str | None = Field(default=None, description="Q1/H1/Q3/A; None: from the end month")


class ValuationSnapshotDTO(BaseModel):
    """Every number the valuation prompt shows; the LLM may quote these and nothing else."""

    symbol: str
    stock_name: str
    industry: str
    as_of: date
    trade_date: str
    current_price: Num
    total_mv: Num = Field(description="亿 (100 million) of the listing currency")
    currency: str
    pe_ttm: Num
    pb: Num
    ps_ttm: Num
    dv_ratio: Num
    pe_percentile: Pct
    pb_percentile: Pct
    ps_percentile: Pct
    history_days: int = Field(description="trading days in the 3-year percentile window")
    growth_rate_avg: Num
    growth_periods: int
    growth_basis: str = Field(default=DEDUCTED_PROFIT, description="which profit the growth is of")
    peg_ratio: Num
    eps_ttm: Num
    eps_basis: str = Field(default=EPS_TTM, description='"TTM", or annualised when TTM cannot be formed')
    bps: Num
    graham_intrinsic_val: Num
    graham_safety_margin: Num
    gross_margin: Num
    gross_margin_trend: str
    roe: Num
    net_margin: Num
    debt_to_assets: Num
    latest_report_period: str
    highlights: str = Field(default="", description="percentiles, safety margin and growth worded by code")


class IntrinsicValueRange(BaseModel):
    lower_bound: str = Field(max_length=60)
    upper_bound: str = Field(max_length=60)


class ValuationModelOutput(BaseModel):
    """What the LLM must return (output contract of the spec)."""

    valuation_verdict: Literal["Undervalued", "Fair", "Overvalued"]
    confidence_score: float = Field(ge=0.0, le=1.0)
    estimated_intrinsic_value_range: IntrinsicValueRange
    # bounds keep a small local model's grammar-constrained answer short
    key_evidence: list[Annotated[str, Field(max_length=60)]] = Field(min_length=1, max_length=3)
    risk_factors: list[Annotated[str, Field(max_length=60)]] = Field(min_length=1, max_length=3)
    reasoning_summary: str = Field(min_length=1, max_length=150)


VERDICT_DISPLAY_LABELS = {"Undervalued": "低估", "Fair": "合理", "Overvalued": "高估"}
