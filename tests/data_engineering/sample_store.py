"""A small store touching every table and awkward value (NULLs, JSON, unicode, restatements, flags).

Built from canonical frames in code (no third-party data); shared by the Parquet and REST tests.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService

DAYS = pd.bdate_range("2024-01-02", periods=8)


def securities() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"symbol": "600519.SH", "name": "贵州茅台", "industry": "白酒", "market": "CN", "exchange": "SH",
             "currency": "CNY", "list_date": "20010827", "provider_codes": {"tushare": "600519.SH"}},
            {"symbol": "AAPL", "name": "Apple Inc.", "industry": None, "market": "US", "exchange": "US",
             "currency": "USD", "list_date": None, "provider_codes": {"sec": "0000320193", "yf": "AAPL"}},
        ]
    )  # fmt: skip


def bars(symbol: str = "600519.SH", days: pd.DatetimeIndex = DAYS) -> pd.DataFrame:
    close = 1700.0 + np.arange(len(days)) * 1.25
    return pd.DataFrame(
        {
            "symbol": symbol,
            "trade_date": days,
            "open": close - 0.5,
            "high": close + 2.0,
            "low": close - 3.0,
            "close": close,
            "pre_close": np.r_[np.nan, close[:-1]],
            "pct_chg": np.r_[np.nan, np.diff(close) / close[:-1] * 100],
            "volume": np.linspace(1.0e6, 2.0e6, len(days)),
            "amount": close * np.linspace(1.0e6, 2.0e6, len(days)),
            "adj_factor": [np.nan if i % 3 == 0 else 1.0 + i / 10 for i in range(len(days))],
        }
    )


def valuations(symbol: str = "600519.SH", days: pd.DatetimeIndex = DAYS) -> pd.DataFrame:
    n = len(days)
    return pd.DataFrame(
        {
            "symbol": symbol,
            "trade_date": days,
            "close": 1700.0 + np.arange(n),
            "total_mv": 2.1e12 + np.arange(n) * 1e9,
            "circ_mv": np.nan,
            "pe": 30.5,
            "pe_ttm": 28.25 + np.arange(n) / 100,
            "pb": 9.0,
            "ps": np.nan,
            "ps_ttm": 14.5,
            "dv_ratio": 1.5,
            "dv_ttm": 1.75,
            "turnover_rate": 0.25,
            "is_derived": [i % 2 == 0 for i in range(n)],
        }
    )


def financials(symbol: str = "600519.SH") -> pd.DataFrame:
    """Three periods; 2023 annual is restated (a second version with a later ann_date)."""
    return pd.DataFrame(
        [
            {"symbol": symbol, "end_date": "2023-09-30", "ann_date": "2023-10-20", "eps": 39.8,
             "bps": 190.0, "grossprofit_margin": 91.5, "revenue": 1.05e11, "total_shares": 1.256e9,
             "extra": {"q_sales_yoy": 13.2, "note": "三季报", "tags": ["a", "b"], "nested": {"x": 1}}},
            {"symbol": symbol, "end_date": "2023-12-31", "ann_date": "2024-04-02", "eps": 59.49,
             "bps": 200.0, "grossprofit_margin": 91.96, "revenue": 1.47e11, "total_shares": 1.256e9,
             "extra": {}},
            {"symbol": symbol, "end_date": "2023-12-31", "ann_date": "2024-06-28", "eps": 59.5,
             "bps": 200.1, "grossprofit_margin": 91.96, "revenue": 1.47e11, "total_shares": 1.256e9,
             "extra": {"restated": True}},
            {"symbol": symbol, "end_date": "2024-03-31", "ann_date": "2024-04-26", "eps": 19.16,
             "bps": 215.0, "grossprofit_margin": None, "revenue": 4.6e10, "total_shares": 1.256e9,
             "extra": None},
        ]
    )  # fmt: skip


def dividends() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "symbol": ["600519.SH", "600519.SH", "AAPL"],
            "ex_date": pd.to_datetime(["2023-06-30", "2023-12-20", "2024-02-09"]),
            "cash_per_share": [25.911, 19.106, 0.24],
        }
    )


def splits() -> pd.DataFrame:
    """AAPL's 4-for-1 split as the price data has it, and its 7-for-1 as only the filings tag it."""
    return pd.DataFrame(
        {
            "symbol": ["AAPL", "AAPL"],
            "ex_date": pd.to_datetime(["2014-06-06", "2020-08-31"]),
            "ratio": [7.0, 4.0],
            "known_date": pd.to_datetime(["2014-07-23", "2020-08-31"]),
            "source": ["filings", "prices"],
        }
    )


def news() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "symbol": ["600519.SH", "AAPL"],
            "published_at": [datetime(2024, 1, 5, 9, 30, 15, 123456), None],
            "title": ["茅台发布年度经营数据", "Apple earnings"],
            "summary": [None, "Q1 beat"],
            "body": ["正文", None],
            "url": ["https://example.com/a", "https://example.com/b"],
            "source": ["sina", None],
        }
    )


def filing_pages() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "symbol": ["AAPL", "AAPL"],
            "accession_number": ["0000320193-24-000006"] * 2,
            "page_no": [1, 2],
            "text": ["Quarterly report, page one.", "iPhone net sales, page two."],
        }
    )


def filings() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "symbol": ["AAPL", "AAPL"],
            "accession_number": ["0000320193-24-000006", "0000320193-23-000106"],
            "form": ["10-Q", "10-K"],
            "filed_date": pd.to_datetime(["2024-02-02", "2023-11-03"]),
            "report_date": [pd.Timestamp("2023-12-30"), pd.NaT],
            "url": ["https://www.sec.gov/a", None],
            "document_text": [None, "Annual report text"],
        }
    )


def bars_5m() -> pd.DataFrame:
    """5-minute bars, keyed by their start in UTC: two A-shares with bars at the same instants (each
    symbol's bars are checked on their own), AAPL on both sides of the 2024-03-10 DST change (13:30 UTC
    is the 09:30 open in March after the change, 14:30 before it), no amount from yfinance."""
    cn = pd.DatetimeIndex(["2024-01-03 09:30", "2024-01-03 09:35", "2024-01-03 09:40", "2024-01-03 13:00"])
    us = pd.DatetimeIndex(
        ["2024-03-08 09:30", "2024-03-08 09:35", "2024-03-11 09:30", "2024-03-11 09:35", "2024-03-11 15:55"]
    )
    rows = []
    for symbol, stamps, base, source in (
        ("600519.SH", cn.tz_localize("Asia/Shanghai"), 1452.37, "akshare-em"),
        ("000858.SZ", cn.tz_localize("Asia/Shanghai"), 140.01, "akshare-sina"),
        ("AAPL", us.tz_localize("America/New_York"), 170.1 + 0.2, "yfinance"),
    ):
        for i, start in enumerate(stamps):
            close = base + i * 0.1
            volume = 82_000.0 + i * 100
            amount = None if source == "yfinance" else round(volume * (base + close) / 2, 2)
            day = start.tz_localize(None).normalize()
            rows.append(
                {"symbol": symbol, "ts_utc": start.tz_convert("UTC"), "trade_date": day,
                 "open": base, "high": close + 0.5, "low": base - 0.25, "close": close, "volume": volume,
                 "amount": amount, "source": source}
            )  # fmt: skip
    return pd.DataFrame(rows)


def populate(service: MarketDataImportService) -> None:
    """Write the whole sample store through the import service (validation included)."""
    service.import_frames("securities", {"securities": securities()})
    service.import_frames(
        "600519.SH",
        {"bars": bars(), "valuations": valuations(), "financials": financials()},
    )
    service.import_frames("AAPL bars", {"bars": bars("AAPL", DAYS[:3])})
    service.import_frames(
        "others",
        {
            "dividends": dividends(),
            "splits": splits(),
            "news": news(),
            "filings": filings(),
            "filing_pages": filing_pages(),
        },
    )
    service.import_frames("bars_5m", {"bars_5m": bars_5m()})
