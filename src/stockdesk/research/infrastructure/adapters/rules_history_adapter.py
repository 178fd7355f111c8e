"""IRulesHistoryPort over data_engineering's bulk frames: one read per kind for all symbols."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

import pandas as pd

from stockdesk.data_engineering.application import GetMarketFramesUseCase, ListSecuritiesUseCase
from stockdesk.research.application.stock_data import BAR_DAYS, VALUATION_DAYS
from stockdesk.research.domain.ports.rules_batch import IRulesHistoryPort, SymbolHistory

BAR_COLUMNS = ["trade_date", "open", "high", "low", "close", "volume", "adj_factor"]
VALUATION_COLUMNS = ["trade_date", "close", "pe_ttm", "pb"]


class RulesHistoryAdapter(IRulesHistoryPort):
    def __init__(self, securities: ListSecuritiesUseCase, frames: GetMarketFramesUseCase):
        self._securities = securities
        self._frames = frames

    def load(self, symbols: Sequence[str], start: date, end: date) -> dict[str, SymbolHistory]:
        known = {s.symbol: s for s in self._securities.execute()}
        wanted = [s for s in dict.fromkeys(symbols) if s in known]
        if not wanted:
            return {}
        bars = self._frames.bars(wanted, start - timedelta(days=BAR_DAYS), end)
        valuations = self._frames.valuations(wanted, start - timedelta(days=VALUATION_DAYS), end)
        financials = self._frames.financial_versions(wanted)
        financials = financials[financials["ann_date"] <= pd.Timestamp(end)]
        by_symbol = {
            kind: dict(tuple(frame.groupby("symbol", sort=False))) if not frame.empty else {}
            for kind, frame in (("bars", bars), ("valuations", valuations), ("financials", financials))
        }
        return {
            symbol: SymbolHistory(
                symbol=symbol,
                name=known[symbol].name or symbol,
                bars=by_symbol["bars"].get(symbol, pd.DataFrame(columns=BAR_COLUMNS)),
                valuations=by_symbol["valuations"].get(symbol, pd.DataFrame(columns=VALUATION_COLUMNS)),
                financials=by_symbol["financials"].get(symbol, financials.iloc[0:0]),
            )
            for symbol in wanted
        }
