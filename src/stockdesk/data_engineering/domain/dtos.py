"""What data_engineering hands to other contexts: plain DTOs, never ORM rows or provider frames."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field


class SecurityDTO(BaseModel):
    symbol: str
    name: str | None = None
    industry: str | None = None
    market: str
    exchange: str | None = None
    currency: str | None = None
    list_date: date | None = None
    provider_codes: dict[str, str] = Field(default_factory=dict)


class DailyBarDTO(BaseModel):
    symbol: str
    trade_date: date
    open: float | None = None
    high: float | None = None
    low: float | None = None
    close: float
    pre_close: float | None = None
    pct_chg: float | None = None
    volume: float | None = Field(default=None, description="shares")
    amount: float | None = Field(default=None, description="currency units")
    adj_factor: float | None = None


class IntradayBarDTO(BaseModel):
    """One intraday bar: the stored 5-minute bar, or several of one trading day aggregated.

    `ts` is the bar's start in the exchange's local time (with its UTC offset), `ts_utc` the same
    instant in UTC; `trade_date` is the exchange date. Prices are as traded (not adjusted).
    """

    symbol: str
    interval: str = Field(description="5m (stored), or 15m/30m/60m/1h aggregated from 5m bars")
    ts: datetime = Field(description="bar start, exchange local time, timezone-aware")
    ts_utc: datetime = Field(description="bar start in UTC, timezone-aware")
    trade_date: date
    open: float
    high: float
    low: float
    close: float
    volume: float = Field(description="shares")
    amount: float | None = Field(default=None, description="currency units; None when the source has none")
    bars: int = Field(default=1, description="5-minute bars aggregated into this one")


class IntradayCoverage(BaseModel):
    """The stored 5-minute bars of one symbol as of a date: how many, and the first and last bar's
    start in the exchange's local time (timezone-aware); None when there is none."""

    count: int = 0
    first: datetime | None = None
    last: datetime | None = None


class IntradayWriteCounts(BaseModel):
    """What one intraday write did: bars added, bars whose values changed, bars already stored as sent."""

    new: int = 0
    changed: int = 0
    unchanged: int = 0


class DailyValuationDTO(BaseModel):
    symbol: str
    trade_date: date
    close: float | None = None
    total_mv: float | None = Field(default=None, description="currency units")
    circ_mv: float | None = None
    pe: float | None = None
    pe_ttm: float | None = None
    pb: float | None = None
    ps: float | None = None
    ps_ttm: float | None = None
    dv_ratio: float | None = None
    dv_ttm: float | None = None
    turnover_rate: float | None = None
    is_derived: bool = False


class FinancialReportDTO(BaseModel):
    """One report period as announced on `ann_date` (year-to-date figures, as reported)."""

    symbol: str
    end_date: date
    ann_date: date
    report_type: str
    eps: float | None = None
    dt_eps: float | None = None
    bps: float | None = None
    roe: float | None = None
    roe_waa: float | None = None
    roe_dt: float | None = None
    roa: float | None = None
    roic: float | None = None
    grossprofit_margin: float | None = Field(default=None, description="gross margin in percent")
    netprofit_margin: float | None = None
    debt_to_assets: float | None = None
    profit_dedt: float | None = Field(default=None, description="net profit after non-recurring items")
    revenue: float | None = None
    net_profit: float | None = None
    revenue_ps: float | None = None
    ocfps: float | None = None
    cfps: float | None = None
    current_ratio: float | None = None
    quick_ratio: float | None = None
    ar_turn: float | None = None
    inv_turn: float | None = None
    arturn_days: float | None = None
    invturn_days: float | None = None
    turn_days: float | None = None
    interestdebt: float | None = None
    netdebt: float | None = None
    or_yoy: float | None = None
    netprofit_yoy: float | None = None
    dt_netprofit_yoy: float | None = None
    total_shares: float | None = None
    extra: dict[str, Any] = Field(default_factory=dict, description="every other reported field")


class NewsItemDTO(BaseModel):
    symbol: str
    published_at: datetime | None = None
    title: str
    summary: str | None = None
    body: str | None = None
    url: str
    source: str | None = None


class FilingDTO(BaseModel):
    symbol: str
    accession_number: str
    form: str
    filed_date: date
    report_date: date | None = None
    url: str | None = None
    document_text: str | None = None


class FilingPageDTO(BaseModel):
    """One page (at most 20,000 characters) of a stored filing document's clean text."""

    symbol: str
    accession_number: str
    page_no: int
    text: str


class TextHitDTO(BaseModel):
    """One match of the full-text index over stored news and filing pages."""

    kind: Literal["news", "filing"]
    symbol: str
    title: str
    url: str
    published_at: datetime
    summary: str = ""
    snippet: str = ""
    source: str = ""


class RangeSummary(BaseModel):
    count: int
    first: date | None = None
    last: date | None = None


class BarChecksum(BaseModel):
    """One symbol's daily bars in a date range, summed: two reads of the same range differ when a bar
    was added, removed or changed in between (what a stored result computed from the bars checks)."""

    count: int
    last: date | None = None
    sums: list[float | None] = Field(description="open, close, pre_close, volume, adj_factor")


class PriceHistoryDTO(BaseModel):
    """Daily closes of many symbols, column-oriented: one row per (symbol, trade_date), sorted so.

    `adj_close` = close x adj_factor (back-adjusted: splits and dividends make no jumps); it equals
    `close` where the store has no factor for the day.
    """

    symbol: list[str] = Field(default_factory=list)
    trade_date: list[date] = Field(default_factory=list)
    close: list[float] = Field(default_factory=list)
    adj_close: list[float] = Field(default_factory=list)


class StockDataSummaryDTO(BaseModel):
    """What `data show` prints: basic info, coverage, latest values, all as of one date."""

    security: SecurityDTO
    as_of: date
    bars: RangeSummary
    valuations: RangeSummary
    derived_valuations: int
    financial_periods: list[str]
    financial_period_dates: list[tuple[str, str, str]] = Field(
        default_factory=list,
        description="(end date, report type, announced) of each period, for a page to word",
    )
    bars_5m: IntradayCoverage = Field(
        default_factory=IntradayCoverage, description="the stored 5-minute bars of exchange dates up to as_of"
    )
    latest_bar: DailyBarDTO | None = None
    latest_valuation: DailyValuationDTO | None = None
    latest_financial: FinancialReportDTO | None = None
