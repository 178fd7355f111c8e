"""Prices and fundamentals of a universe, read through data_engineering's use cases: DTOs in, pandas
panels out."""

from __future__ import annotations

from datetime import date

import pandas as pd

from stockdesk.data_engineering.application import (
    GetFinanceForTickerUseCase,
    GetMarketFramesUseCase,
    ListSecuritiesUseCase,
)
from stockdesk.strategy_lab.domain.ports import StoredSecurity

BAR_COLUMNS = ["symbol", "trade_date", "open", "close", "pre_close", "volume", "adj_factor"]
# YTD figures as reported; the catalyst's single quarters are derived from them (application/fundamentals.py)
FINANCIAL_COLUMNS = ["symbol", "end_date", "ann_date", "report_type", "revenue", "profit_dedt", "net_profit"]


class StrategyMarketData:
    def __init__(
        self,
        securities: ListSecuritiesUseCase,
        frames: GetMarketFramesUseCase,
        finance: GetFinanceForTickerUseCase,
    ):
        self._securities = securities
        self._frames = frames
        self._finance = finance

    def securities(self) -> dict[str, StoredSecurity]:
        """Every stored security: its market (CN, US, HK, TW) and name (the A-share ST price limits)."""
        return {s.symbol: StoredSecurity(market=s.market, name=s.name) for s in self._securities.execute()}

    def daily_bars(self, symbols: list[str], start: date, end: date) -> pd.DataFrame:
        """Raw daily bars, one row per (symbol, trade_date): symbol, trade_date, open, close, pre_close,
        volume, adj_factor (what shared.execution.trading_bars reads)."""
        frame = self._frames.bars(list(symbols), start, end)
        return frame.reindex(columns=BAR_COLUMNS)

    def reported_financials(self, symbols: list[str], as_of: date) -> pd.DataFrame:
        """As reported and announced by `as_of`: symbol, end_date, ann_date, report_type, revenue,
        profit_dedt, net_profit (year-to-date figures)."""
        rows = [
            report.model_dump(include=set(FINANCIAL_COLUMNS))
            for symbol in symbols
            for report in self._finance.execute(symbol, as_of)
        ]
        return pd.DataFrame(rows, columns=FINANCIAL_COLUMNS)
