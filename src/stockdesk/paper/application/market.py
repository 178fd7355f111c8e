"""The book's market data through data_engineering's application interface (bulk frames, one read
each): a plain class, as the evaluation's `EvaluationMarket` (the tests run it over a real store)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import pandas as pd

from stockdesk.data_engineering.application import GetMarketFramesUseCase, ListSecuritiesUseCase

BAR_COLUMNS = ["symbol", "trade_date", "open", "close", "pre_close", "volume", "adj_factor"]


class PaperMarket:
    def __init__(self, securities: ListSecuritiesUseCase, frames: GetMarketFramesUseCase):
        self._securities = securities
        self._frames = frames

    def bars(self, symbols: Sequence[str], start: date, end: date) -> pd.DataFrame:
        """Long frame: symbol, trade_date, open, close, pre_close, volume, adj_factor (raw prices)
        from `start` through `end`, nothing after."""
        frame = self._frames.bars(list(symbols), start, end).reindex(columns=BAR_COLUMNS)
        days = pd.to_datetime(frame["trade_date"])
        return frame.loc[(days >= pd.Timestamp(start)) & (days <= pd.Timestamp(end))].reset_index(drop=True)

    def markets(self, symbols: Sequence[str]) -> dict[str, str]:
        """symbol -> market of the stored ones."""
        wanted = set(symbols)
        return {s.symbol: str(s.market).upper() for s in self._securities.execute() if s.symbol in wanted}

    def names(self, symbols: Sequence[str]) -> dict[str, str]:
        """symbol -> name (ST names have the narrower price limits)."""
        wanted = set(symbols)
        return {s.symbol: s.name or "" for s in self._securities.execute() if s.symbol in wanted}
