"""ORM tables of the market store. Unique keys everywhere: every write is an upsert."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Boolean, Date, DateTime, Float, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from stockdesk.shared.db import Base


class SecurityRow(Base):
    __tablename__ = "securities"

    symbol: Mapped[str] = mapped_column(String(20), primary_key=True)
    name: Mapped[str | None] = mapped_column(String(200))
    industry: Mapped[str | None] = mapped_column(String(200))
    market: Mapped[str] = mapped_column(String(8))
    exchange: Mapped[str | None] = mapped_column(String(16))
    currency: Mapped[str | None] = mapped_column(String(8))
    list_date: Mapped[date | None] = mapped_column(Date)
    provider_codes: Mapped[dict | None] = mapped_column(JSON(none_as_null=True))


class DailyBarRow(Base):
    __tablename__ = "daily_bars"

    symbol: Mapped[str] = mapped_column(String(20), primary_key=True)
    trade_date: Mapped[date] = mapped_column(Date, primary_key=True)
    open: Mapped[float | None] = mapped_column(Float)
    high: Mapped[float | None] = mapped_column(Float)
    low: Mapped[float | None] = mapped_column(Float)
    close: Mapped[float] = mapped_column(Float)
    pre_close: Mapped[float | None] = mapped_column(Float)
    pct_chg: Mapped[float | None] = mapped_column(Float)
    volume: Mapped[float | None] = mapped_column(Float)
    amount: Mapped[float | None] = mapped_column(Float)
    adj_factor: Mapped[float | None] = mapped_column(Float)


class IntradayBarRow(Base):
    """A 5-minute bar, keyed by the instant it STARTS (timezone-aware UTC; SQLite keeps it naive UTC).

    `trade_date` is the exchange-local date: reads are point in time by it. `volume` in shares,
    `amount` in currency units (NULL when the source has none), prices as traded. `source` is the
    file layout (yfinance, akshare-em, akshare-sina); `imported_at` when the values were last written.
    """

    __tablename__ = "bars_5m"
    __table_args__ = (Index("ix_bars_5m_symbol_trade_date", "symbol", "trade_date"),)

    symbol: Mapped[str] = mapped_column(String(20), primary_key=True)
    ts_utc: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    trade_date: Mapped[date] = mapped_column(Date)
    open: Mapped[float] = mapped_column(Float)
    high: Mapped[float] = mapped_column(Float)
    low: Mapped[float] = mapped_column(Float)
    close: Mapped[float] = mapped_column(Float)
    volume: Mapped[float] = mapped_column(Float)
    amount: Mapped[float | None] = mapped_column(Float)
    source: Mapped[str] = mapped_column(String(40))
    imported_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class DailyValuationRow(Base):
    __tablename__ = "daily_valuations"

    symbol: Mapped[str] = mapped_column(String(20), primary_key=True)
    trade_date: Mapped[date] = mapped_column(Date, primary_key=True)
    close: Mapped[float | None] = mapped_column(Float)
    total_mv: Mapped[float | None] = mapped_column(Float)
    circ_mv: Mapped[float | None] = mapped_column(Float)
    pe: Mapped[float | None] = mapped_column(Float)
    pe_ttm: Mapped[float | None] = mapped_column(Float)
    pb: Mapped[float | None] = mapped_column(Float)
    ps: Mapped[float | None] = mapped_column(Float)
    ps_ttm: Mapped[float | None] = mapped_column(Float)
    dv_ratio: Mapped[float | None] = mapped_column(Float)
    dv_ttm: Mapped[float | None] = mapped_column(Float)
    turnover_rate: Mapped[float | None] = mapped_column(Float)
    is_derived: Mapped[bool] = mapped_column(Boolean, default=False)


class FinancialReportRow(Base):
    """One announced version of a report period; restatements add a row with a later ann_date."""

    __tablename__ = "financial_reports"

    symbol: Mapped[str] = mapped_column(String(20), primary_key=True)
    end_date: Mapped[date] = mapped_column(Date, primary_key=True)
    ann_date: Mapped[date] = mapped_column(Date, primary_key=True)
    report_type: Mapped[str] = mapped_column(String(8))
    eps: Mapped[float | None] = mapped_column(Float)
    dt_eps: Mapped[float | None] = mapped_column(Float)
    bps: Mapped[float | None] = mapped_column(Float)
    roe: Mapped[float | None] = mapped_column(Float)
    roe_waa: Mapped[float | None] = mapped_column(Float)
    roe_dt: Mapped[float | None] = mapped_column(Float)
    roa: Mapped[float | None] = mapped_column(Float)
    roic: Mapped[float | None] = mapped_column(Float)
    grossprofit_margin: Mapped[float | None] = mapped_column(Float)
    netprofit_margin: Mapped[float | None] = mapped_column(Float)
    debt_to_assets: Mapped[float | None] = mapped_column(Float)
    profit_dedt: Mapped[float | None] = mapped_column(Float)
    revenue: Mapped[float | None] = mapped_column(Float)
    net_profit: Mapped[float | None] = mapped_column(Float)
    revenue_ps: Mapped[float | None] = mapped_column(Float)
    ocfps: Mapped[float | None] = mapped_column(Float)
    cfps: Mapped[float | None] = mapped_column(Float)
    current_ratio: Mapped[float | None] = mapped_column(Float)
    quick_ratio: Mapped[float | None] = mapped_column(Float)
    ar_turn: Mapped[float | None] = mapped_column(Float)
    inv_turn: Mapped[float | None] = mapped_column(Float)
    arturn_days: Mapped[float | None] = mapped_column(Float)
    invturn_days: Mapped[float | None] = mapped_column(Float)
    turn_days: Mapped[float | None] = mapped_column(Float)
    interestdebt: Mapped[float | None] = mapped_column(Float)
    netdebt: Mapped[float | None] = mapped_column(Float)
    or_yoy: Mapped[float | None] = mapped_column(Float)
    netprofit_yoy: Mapped[float | None] = mapped_column(Float)
    dt_netprofit_yoy: Mapped[float | None] = mapped_column(Float)
    total_shares: Mapped[float | None] = mapped_column(Float)
    extra: Mapped[dict | None] = mapped_column(JSON(none_as_null=True))  # NULL, so COALESCE keeps stored


class DividendRow(Base):
    """Cash dividends per share by ex-date (for dividend yields derived in code)."""

    __tablename__ = "dividends"

    symbol: Mapped[str] = mapped_column(String(20), primary_key=True)
    ex_date: Mapped[date] = mapped_column(Date, primary_key=True)
    cash_per_share: Mapped[float] = mapped_column(Float)


class SplitRow(Base):
    """A stock split: `ratio` new shares per old one from `ex_date` on (0.1: a 1-for-10 reverse split).

    `known_date` is when it can be known (the ex-date for the price data; the first filing that tags
    it for the filings); `source` is "prices" or "filings" (see `domain/splits.py`).
    """

    __tablename__ = "stock_splits"

    symbol: Mapped[str] = mapped_column(String(20), primary_key=True)
    ex_date: Mapped[date] = mapped_column(Date, primary_key=True)
    ratio: Mapped[float] = mapped_column(Float)
    known_date: Mapped[date] = mapped_column(Date)
    source: Mapped[str] = mapped_column(String(16))


class NewsItemRow(Base):
    __tablename__ = "news_items"
    __table_args__ = (UniqueConstraint("symbol", "url"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    symbol: Mapped[str] = mapped_column(String(20), index=True)
    published_at: Mapped[datetime | None] = mapped_column(DateTime, index=True)
    title: Mapped[str] = mapped_column(Text)
    summary: Mapped[str | None] = mapped_column(Text)
    body: Mapped[str | None] = mapped_column(Text)
    url: Mapped[str] = mapped_column(String(1000))
    source: Mapped[str | None] = mapped_column(String(200))
    search_text: Mapped[str | None] = mapped_column(Text, doc="tokenised for the full-text index")


class FilingRow(Base):
    __tablename__ = "filings"

    symbol: Mapped[str] = mapped_column(String(20), primary_key=True)
    accession_number: Mapped[str] = mapped_column(String(40), primary_key=True)
    form: Mapped[str] = mapped_column(String(20))
    filed_date: Mapped[date] = mapped_column(Date, index=True)
    report_date: Mapped[date | None] = mapped_column(Date)
    url: Mapped[str | None] = mapped_column(String(1000))
    document_text: Mapped[str | None] = mapped_column(Text)


class FilingPageRow(Base):
    """A filing document as clean text, in pages of at most 20,000 characters."""

    __tablename__ = "filing_pages"
    __table_args__ = (UniqueConstraint("symbol", "accession_number", "page_no"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    symbol: Mapped[str] = mapped_column(String(20))
    accession_number: Mapped[str] = mapped_column(String(40))
    page_no: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    search_text: Mapped[str | None] = mapped_column(Text, doc="tokenised for the full-text index")


class SyncFailureRow(Base):
    __tablename__ = "sync_failures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    run_id: Mapped[str] = mapped_column(String(64), index=True)
    provider: Mapped[str] = mapped_column(String(40))
    symbol: Mapped[str] = mapped_column(String(20))
    dataset: Mapped[str] = mapped_column(String(40))
    reason: Mapped[str] = mapped_column(Text)


class SyncStateRow(Base):
    __tablename__ = "sync_state"

    symbol: Mapped[str] = mapped_column(String(20), primary_key=True)
    dataset: Mapped[str] = mapped_column(String(40), primary_key=True)
    done_through: Mapped[date] = mapped_column(Date)
