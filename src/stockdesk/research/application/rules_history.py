"""The rules signals' history in batch: many dates of each symbol from history loaded once.

Walk-forward evaluation asks for the code-only signals of thousands of (symbol, date) points; the
snapshot path reads the store and builds a full snapshot per point. The batch path loads each
symbol's history once (here: one read per kind over data_engineering's bulk frames, for all
symbols) and computes, per date, only the fields the code signals read (`snapshot/rules_fields`),
with the builders' own functions, from exactly the rows the snapshot path would read on that date.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

import pandas as pd

from stockdesk.data_engineering.application import GetMarketFramesUseCase, ListSecuritiesUseCase
from stockdesk.research.application.stock_data import BAR_DAYS, VALUATION_DAYS

BAR_COLUMNS = ["trade_date", "open", "high", "low", "close", "volume", "adj_factor"]
VALUATION_COLUMNS = ["trade_date", "close", "pe_ttm", "pb"]


@dataclass(frozen=True)
class SymbolHistory:
    """One symbol's stored history up to the last date asked for (frames in store column names)."""

    symbol: str
    name: str
    bars: pd.DataFrame = field(repr=False)
    """trade_date (Timestamp), open, high, low, close, volume, adj_factor; by date."""
    valuations: pd.DataFrame = field(repr=False)
    """trade_date, close, pe_ttm, pb; by date."""
    financials: pd.DataFrame = field(repr=False)
    """Every announced version: end_date, ann_date (Timestamps) and the report fields."""


class RulesHistory:
    def __init__(self, securities: ListSecuritiesUseCase, frames: GetMarketFramesUseCase):
        self._securities = securities
        self._frames = frames

    def load(self, symbols: Sequence[str], start: date, end: date) -> dict[str, SymbolHistory]:
        """History of the stored symbols among `symbols`, from before `start` (the snapshot
        windows' look-back) up to `end`; unknown symbols are left out."""
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
