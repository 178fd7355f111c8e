"""IStrategyMarketData over data_engineering's use cases: DTOs in, pandas panels out."""

from __future__ import annotations

from datetime import date

import pandas as pd

from stockdesk.data_engineering.application import (
    GetFinanceForTickerUseCase,
    GetPriceHistoryUseCase,
    ListSecuritiesUseCase,
)
from stockdesk.strategy_lab.domain.ports import IStrategyMarketData

FINANCIAL_COLUMNS = ["symbol", "end_date", "ann_date", "report_type", "revenue", "roe"]


class StoreMarketData(IStrategyMarketData):
    def __init__(
        self,
        securities: ListSecuritiesUseCase,
        prices: GetPriceHistoryUseCase,
        finance: GetFinanceForTickerUseCase,
    ):
        self._securities = securities
        self._prices = prices
        self._finance = finance

    def securities(self) -> dict[str, str]:
        return {s.symbol: s.market for s in self._securities.execute()}

    def adjusted_closes(self, symbols: list[str], start: date, end: date) -> pd.DataFrame:
        history = self._prices.execute(symbols, start, end)
        frame = pd.DataFrame(
            {
                "symbol": history.symbol,
                "trade_date": pd.to_datetime(pd.Series(history.trade_date, dtype="object")),
                "adj_close": history.adj_close,
            }
        )
        panel = frame.pivot_table(index="trade_date", columns="symbol", values="adj_close", aggfunc="last")
        panel = panel.reindex(columns=[s for s in symbols if s in panel.columns]).sort_index()
        panel.columns.name = None
        return panel.astype(float)

    def reported_financials(self, symbols: list[str], as_of: date) -> pd.DataFrame:
        rows = [
            report.model_dump(include=set(FINANCIAL_COLUMNS))
            for symbol in symbols
            for report in self._finance.execute(symbol, as_of)
        ]
        return pd.DataFrame(rows, columns=FINANCIAL_COLUMNS)
