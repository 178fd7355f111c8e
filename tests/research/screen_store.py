"""A real store of awkward symbols for the screen: each one a case the per-symbol builders handle.

- 600001.SH: 420 bars (the technical window cuts the oldest), cent prices, an ex-date and adj_factor
  gaps, a bar after as_of; 900 valuation days with gaps and a negative PE; 15 quarters (the newest 12
  count), a zero profit, a restatement announced before as_of (counts) and after it (does not), and
  the next period announced after as_of.
- 000002.SZ: 30 bars (no MA60, no MACD), 50 valuation days (no percentile), a negative PE, dv_ratio
  missing but dv_ttm given, two reports without year-earlier ones and without deducted profit.
- AAPL (US): 52/53-week fiscal years ending in September (report types given), net profit only.
- 300003.SZ: a security without any data.
- 600004.SH: bars without any adj_factor, reports ending in odd months (unknown types), two of them
  equally near a year before a third (the earlier is its prior).
- 000006.SZ: exactly 250 bars (MA250 just formed); every report announced after as_of.
"""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

AS_OF = date(2024, 6, 28)
SYMBOLS = ["600001.SH", "000002.SZ", "AAPL", "300003.SZ", "600004.SH", "000006.SZ"]


def _security(symbol: str, name: str, market: str = "CN") -> dict:
    exchange = symbol.rsplit(".", 1)[1] if market == "CN" else "US"
    currency = "CNY" if market == "CN" else "USD"
    return {"symbol": symbol, "name": name, "industry": "测试", "market": market, "exchange": exchange,
            "currency": currency, "list_date": "2000-01-01", "provider_codes": {}}  # fmt: skip


def _bars(
    symbol: str, rng: np.random.Generator, count: int, end: date = AS_OF, factor: np.ndarray | None = None
) -> pd.DataFrame:
    days = pd.bdate_range(end=end, periods=count)
    close = np.round(20 * np.exp(np.cumsum(rng.normal(0, 0.02, count))), 2)
    return pd.DataFrame(
        {
            "symbol": symbol,
            "trade_date": days,
            "open": close,
            "high": np.round(close * 1.01, 2),
            "low": np.round(close * 0.99, 2),
            "close": close,
            "volume": 1e6,
            "adj_factor": np.ones(count) if factor is None else factor,
        }
    )


def _valuations(symbol: str, rng: np.random.Generator, count: int, end: date = AS_OF) -> pd.DataFrame:
    days = pd.bdate_range(end=end, periods=count)
    pe = np.round(rng.uniform(5, 40, count), 2)
    pe[rng.choice(count, count // 20, replace=False)] = np.nan
    pe[rng.choice(count, count // 30, replace=False)] = -3.5
    return pd.DataFrame(
        {
            "symbol": symbol,
            "trade_date": days,
            "close": np.round(rng.uniform(10, 30, count), 2),
            "total_mv": np.round(rng.uniform(1e10, 5e11, count), 0),
            "pe_ttm": pe,
            "pb": np.round(rng.uniform(0.5, 6, count), 3),
            "ps_ttm": np.round(rng.uniform(0.5, 8, count), 3),
            "dv_ratio": np.round(rng.uniform(0, 4, count), 2),
            "dv_ttm": np.round(rng.uniform(0, 4, count), 2),
        }
    )


def _quarters(symbol: str, rng: np.random.Generator, ends: list[str], types: list[str | None]) -> list[dict]:
    rows = []
    for i, (end, kind) in enumerate(zip(ends, types, strict=True)):
        scale = {"Q1": 1, "H1": 2, "Q3": 3, "A": 4}.get(kind or "", 2) * rng.uniform(0.8, 1.2)
        rows.append(
            {"symbol": symbol, "end_date": end, "report_type": kind,
             "ann_date": (date.fromisoformat(end) + timedelta(days=30)).isoformat(),
             "eps": round(0.3 * scale, 4), "bps": round(8 + i * 0.2, 4), "roe": round(3 * scale, 2),
             "roic": round(2.5 * scale, 2), "grossprofit_margin": round(rng.uniform(20, 40), 2),
             "netprofit_margin": round(rng.uniform(5, 20), 2),
             "debt_to_assets": round(rng.uniform(30, 70), 2),
             "profit_dedt": round(1e8 * scale, 0), "net_profit": round(1.1e8 * scale, 0),
             "revenue": round(1e9 * scale, 0), "or_yoy": round(rng.uniform(-10, 30), 2),
             "ocfps": round(0.4 * scale, 4), "current_ratio": 1.5, "quick_ratio": 1.1}
        )  # fmt: skip
    return rows


def _a_share_reports(rng: np.random.Generator) -> pd.DataFrame:
    ends = [e.date().isoformat() for e in pd.date_range("2020-12-31", "2024-03-31", freq="QE")]
    rows = _quarters("600001.SH", rng, ends, [None] * len(ends))  # types from the end month
    rows[-5]["profit_dedt"] = 0.0  # 2023-03-31: the newest period's year-earlier profit is zero
    restated = dict(rows[-6], ann_date="2023-06-01", eps=rows[-6]["eps"] + 0.05)  # 2022-12-31, counts
    late = dict(rows[-2], ann_date="2024-07-15", eps=9.99, roe=99.0)  # 2023-12-31 restated after as_of
    following = dict(rows[-1], end_date="2024-06-30", ann_date="2024-08-20", roe=77.0)  # next period
    return pd.DataFrame([*rows, restated, late, following])


def _us_reports(rng: np.random.Generator) -> pd.DataFrame:
    ends = ["2021-09-25", "2021-12-25", "2022-03-26", "2022-06-25", "2022-09-24", "2022-12-31",
            "2023-04-01", "2023-07-01", "2023-09-30", "2023-12-30", "2024-03-30"]  # fmt: skip
    kinds = ["A", "Q1", "H1", "Q3"] * 2 + ["A", "Q1", "H1"]
    frame = pd.DataFrame(_quarters("AAPL", rng, ends, kinds))
    frame["profit_dedt"] = np.nan  # SEC filings: net income only
    frame["or_yoy"] = np.nan
    return frame


def store_frames(seed: int = 7) -> list[dict[str, pd.DataFrame]]:
    rng = np.random.default_rng(seed)
    factor = np.where(np.arange(421) < 300, 1.0, 1.2)
    factor[[0, 1, 2, 150, 151]] = np.nan
    a_bars = _bars("600001.SH", rng, 421, end=AS_OF + timedelta(days=3), factor=factor)
    b_values = _valuations("000002.SZ", rng, 50)
    b_values.loc[b_values.index[-1], ["pe_ttm", "dv_ratio"]] = [-12.0, np.nan]
    b_reports = pd.DataFrame(_quarters("000002.SZ", rng, ["2023-12-31", "2024-03-31"], ["A", "Q1"]))
    b_reports["profit_dedt"] = np.nan
    e_ends = ["2022-07-28", "2022-08-03", "2023-07-31", "2024-01-31"]  # 2023-07-31's prior: a 3-day tie
    e_reports = pd.DataFrame(_quarters("600004.SH", rng, e_ends, [None] * 4))
    f_reports = pd.DataFrame(_quarters("000006.SZ", rng, ["2024-03-31"], ["Q1"]))
    f_reports["ann_date"] = "2024-07-02"
    return [
        {
            "securities": pd.DataFrame(
                [
                    _security("600001.SH", "甲公司"),
                    _security("000002.SZ", "乙公司"),
                    _security("AAPL", "Apple Inc.", "US"),
                    _security("300003.SZ", "空公司"),
                    _security("600004.SH", "丁公司"),
                    _security("000006.SZ", "戊公司"),
                ]
            )
        },
        {
            "bars": a_bars,
            "valuations": _valuations("600001.SH", rng, 900, end=AS_OF + timedelta(days=7)),
            "financials": _a_share_reports(rng),
        },
        {"bars": _bars("000002.SZ", rng, 30), "valuations": b_values, "financials": b_reports},
        {
            "bars": _bars("AAPL", rng, 300),
            "valuations": _valuations("AAPL", rng, 800),
            "financials": _us_reports(rng),
        },
        {"bars": _bars("600004.SH", rng, 100, factor=np.full(100, np.nan)), "financials": e_reports},
        {"bars": _bars("000006.SZ", rng, 250), "financials": f_reports},
    ]


def populate(database: Database, seed: int = 7) -> None:
    """Write the store through the import service (its validation included)."""
    service = MarketDataImportService(SqlMarketDataRepository(database))
    for number, frames in enumerate(store_frames(seed)):
        service.import_frames(f"screen store {number}", frames)
