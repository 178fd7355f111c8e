"""Tushare Pro (needs TUSHARE_TOKEN) -> canonical frames, through the Tushare CSV converters.

`tushare.pro_api(token, timeout)` returns a `tushare/pro/client.py: DataApi` whose endpoints
`stock_basic`, `daily`, `adj_factor`, `daily_basic` and `fina_indicator` answer with the same columns
as the CSV exports, so `importers/tushare_csv.py` does the mapping and the unit conversions
(vol in lots, amount in 1,000 CNY, total_mv/circ_mv in 10,000 CNY). Tushare allows 200 calls per
minute on the basic tier: one token bucket spaces every call of this provider.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.ports import IMarketDataProvider
from stockdesk.data_engineering.infrastructure.importers.tushare_csv import (
    collapse_report_versions,
    daily_basic_to_valuations,
    daily_to_bars,
    fina_indicator_to_financials,
    universe_to_securities,
)
from stockdesk.data_engineering.infrastructure.providers.common import empty, require, with_rows, ymd
from stockdesk.data_engineering.infrastructure.providers.rate_limit import TokenBucket
from stockdesk.data_engineering.infrastructure.providers.resilience import CallPolicy, ProviderCaller
from stockdesk.shared.errors import ConfigurationError

TOKEN_ENV = "TUSHARE_TOKEN"
CALLS_PER_MINUTE = 200
STOCK_BASIC_FIELDS = "ts_code,symbol,name,area,industry,market,list_date"
TEXT_COLUMNS = ("ts_code", "trade_date", "ann_date", "end_date", "list_date", "symbol")


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Dates and codes stay strings, as the API sends them (YYYYMMDD)."""
    present = [c for c in TEXT_COLUMNS if c in frame.columns]
    return frame.astype(dict.fromkeys(present, "string")) if present else frame


class TushareProvider(IMarketDataProvider):
    """`client` is a `DataApi` (or anything with the same endpoint methods); built from the token if None."""

    name = "tushare"
    markets = ("CN",)

    def __init__(
        self,
        client: Any | None = None,
        *,
        token: str | None = None,
        policy: CallPolicy | None = None,
        limiter: TokenBucket | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.policy = policy or CallPolicy()
        if client is None:
            token = token or os.environ.get(TOKEN_ENV)
            if not token:
                raise ConfigurationError(
                    f"{TOKEN_ENV} is not set: export your Tushare Pro token to use tushare"
                )
            import tushare

            client = tushare.pro_api(token, timeout=self.policy.timeout)
        self.client = client
        self.call = ProviderCaller(
            self.name, limiter or TokenBucket.per_minute(CALLS_PER_MINUTE), self.policy, sleep=sleep
        )

    def _query(self, endpoint: str, **params: Any) -> pd.DataFrame:
        frame = self.call(endpoint, getattr(self.client, endpoint), **params)
        return _as_text(frame) if frame is not None else pd.DataFrame()

    def security(self, symbol: str) -> pd.DataFrame:
        frame = self._query("stock_basic", ts_code=symbol, fields=STOCK_BASIC_FIELDS)
        if frame.empty:
            return empty(F.SECURITY_COLUMNS)
        return universe_to_securities(with_rows(frame), Path("tushare:stock_basic"))

    def bars(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        daily = self._query("daily", ts_code=symbol, start_date=ymd(start), end_date=ymd(end))
        if daily.empty:
            return empty(F.BAR_COLUMNS)
        bars = daily_to_bars(with_rows(daily), Path("tushare:daily"))
        adj = self._query("adj_factor", ts_code=symbol, start_date=ymd(start), end_date=ymd(end))
        if not adj.empty:
            require(adj, ["trade_date", "adj_factor"], self.name, "adj_factor")
            factors = adj.drop_duplicates("trade_date", keep="first").set_index("trade_date")["adj_factor"]
            bars["adj_factor"] = bars["trade_date"].map(factors)
        return bars

    def valuations(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        frame = self._query("daily_basic", ts_code=symbol, start_date=ymd(start), end_date=ymd(end))
        if frame.empty:
            return empty(F.VALUATION_COLUMNS)
        return daily_basic_to_valuations(with_rows(frame), Path("tushare:daily_basic"))

    def financials(self, symbol: str) -> pd.DataFrame:
        frame = self._query("fina_indicator", ts_code=symbol)
        if frame.empty:
            return empty(F.FINANCIAL_COLUMNS)
        require(frame, ["ts_code", "ann_date", "end_date"], self.name, "fina_indicator")
        path = Path("tushare:fina_indicator")
        return fina_indicator_to_financials(collapse_report_versions(with_rows(frame)), path)
