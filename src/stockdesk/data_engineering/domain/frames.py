"""Canonical table layouts shared by importers, providers and the store.

Every source is first turned into a DataFrame with exactly these columns, in these units, so that
validation and storage exist once. Units: prices in the listing currency; `volume` in shares;
`amount`, `total_mv`, `circ_mv` and financial amounts in currency units (not 10k or 1k units);
ratios and margins in percent where the name says so (`*_margin`, `roe*`, `debt_to_assets`,
`turnover_rate`, `dv_*`, `pct_chg`).
"""

from __future__ import annotations

SECURITY_COLUMNS = [
    "symbol", "name", "industry", "market", "exchange", "currency", "list_date", "provider_codes",
]  # fmt: skip

BAR_KEY = ["symbol", "trade_date"]
BAR_COLUMNS = [
    *BAR_KEY, "open", "high", "low", "close", "pre_close", "pct_chg", "volume", "amount", "adj_factor",
]  # fmt: skip
BAR_PRICE_COLUMNS = ["open", "high", "low", "close"]

# 5-minute bars: ts_utc is the bar's START (timezone-aware UTC); trade_date the exchange-local date
INTRADAY_KEY = ["symbol", "ts_utc"]
INTRADAY_COLUMNS = [*INTRADAY_KEY, "trade_date", "open", "high", "low", "close", "volume", "amount", "source"]

VALUATION_KEY = ["symbol", "trade_date"]
VALUATION_COLUMNS = [
    *VALUATION_KEY, "close", "total_mv", "circ_mv", "pe", "pe_ttm", "pb", "ps", "ps_ttm",
    "dv_ratio", "dv_ttm", "turnover_rate", "is_derived",
]  # fmt: skip

FINANCIAL_KEY = ["symbol", "end_date", "ann_date"]
FINANCIAL_NUMERIC = [
    "eps", "dt_eps", "bps", "roe", "roe_waa", "roe_dt", "roa", "roic",
    "grossprofit_margin", "netprofit_margin", "debt_to_assets",
    "profit_dedt", "revenue", "net_profit", "revenue_ps", "ocfps", "cfps",
    "current_ratio", "quick_ratio", "ar_turn", "inv_turn", "arturn_days", "invturn_days", "turn_days",
    "interestdebt", "netdebt", "or_yoy", "netprofit_yoy", "dt_netprofit_yoy", "total_shares",
]  # fmt: skip
FINANCIAL_COLUMNS = [*FINANCIAL_KEY, "report_type", *FINANCIAL_NUMERIC, "extra"]

DIVIDEND_KEY = ["symbol", "ex_date"]
DIVIDEND_COLUMNS = [*DIVIDEND_KEY, "cash_per_share"]

# stock splits: `ratio` new shares per old share from `ex_date` on, known from `known_date`, by source
SPLIT_KEY = ["symbol", "ex_date"]
SPLIT_COLUMNS = [*SPLIT_KEY, "ratio", "known_date", "source"]

# published_at is naive UTC everywhere (sources' local times are converted on the way in); NULL = undated
NEWS_COLUMNS = ["symbol", "published_at", "title", "summary", "body", "url", "source"]
FILING_COLUMNS = ["symbol", "accession_number", "form", "filed_date", "report_date", "url", "document_text"]
FILING_PAGE_COLUMNS = ["symbol", "accession_number", "page_no", "text"]  # clean text, <= 20,000 chars a page


def report_type_of(month: int) -> str:
    """Q1 / H1 / Q3 / A from the month of a report period's end date."""
    return {3: "Q1", 6: "H1", 9: "Q3", 12: "A"}.get(month, "OTHER")
