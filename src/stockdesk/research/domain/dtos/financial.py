"""Financial auditor DTOs."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from stockdesk.research.domain.dtos.valuation import DEDUCTED_PROFIT, Num


class AuditFinanceRecordInput(BaseModel):
    """One report period as visible on the analysis date (year-to-date, as reported)."""

    end_date: date
    ann_date: date
    report_type: str | None = Field(default=None, description="Q1/H1/Q3/A; None: from the end month")
    eps: float | None = None
    revenue: float | None = None
    or_yoy: float | None = None
    profit_dedt: float | None = None
    net_profit: float | None = Field(default=None, description="attributable to the parent, YTD")
    grossprofit_margin: float | None = None
    netprofit_margin: float | None = None
    roe: float | None = None
    roic: float | None = None
    ocfps: float | None = None
    debt_to_assets: float | None = None
    interestdebt: float | None = None
    current_ratio: float | None = None
    quick_ratio: float | None = None
    ar_turn: float | None = None
    inv_turn: float | None = None
    arturn_days: float | None = None
    invturn_days: float | None = None


class PeriodMetrics(BaseModel):
    period: str = Field(description="e.g. 2025Q3 (Q1/H1/Q3/A are year-to-date)")
    revenue_yoy: Num
    profit_dedt_yoy: Num = Field(description="of the snapshot's profit_growth_basis")
    gross_margin: Num
    net_margin: Num
    roe: Num
    roic: Num
    cash_quality: Num = Field(description="operating cash flow per share / EPS")
    debt_to_assets: Num
    interest_debt_yi: Num
    current_ratio: Num
    quick_ratio: Num
    receivable_days: Num
    inventory_days: Num


class FinancialSnapshotDTO(BaseModel):
    symbol: str
    stock_name: str
    industry: str
    as_of: date
    periods: list[PeriodMetrics] = Field(description="newest first, at most 8")
    period_count: int
    latest_period: str
    profit_growth_basis: str = Field(default=DEDUCTED_PROFIT, description="the profit profit_dedt_yoy is of")
    table: str = Field(description="the newest periods as the markdown table shown to the model")
    table_period_count: int = Field(default=0, description="how many periods the table shows")
    highlights: str = Field(default="", description="the newest figures with their direction in words")


Dimension = Literal["profitability", "growth", "cash_quality", "solvency", "efficiency"]


class DimensionAnalysis(BaseModel):
    """One dimension in the result: the score and findings from code, the assessment from the model."""

    dimension: Dimension
    score: int | None = Field(default=None, ge=0, le=100, description="code-computed; None without data")
    assessment: str = Field(min_length=1, max_length=150)
    key_findings: list[Annotated[str, Field(max_length=120)]] = Field(default_factory=list, max_length=3)


class DimensionNote(BaseModel):
    """What the model writes per dimension: one short judgement, no score (code scores)."""

    dimension: Dimension
    assessment: str = Field(min_length=1, max_length=60)


class FinancialAuditOutput(BaseModel):
    """What the LLM must return: choices and short text; every score is computed in code."""

    signal: Literal["STRONG_BULLISH", "BULLISH", "NEUTRAL", "BEARISH", "STRONG_BEARISH"]
    confidence: float = Field(ge=0.0, le=1.0)
    dimension_analyses: list[DimensionNote] = Field(min_length=1, max_length=5)
    key_risks: list[Annotated[str, Field(max_length=60)]] = Field(min_length=1, max_length=2)
    summary_reasoning: str = Field(min_length=1, max_length=150)
