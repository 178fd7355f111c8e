"""Prices for schedules, fills and returns, read through data_engineering's application interface
(bulk frames, one read each)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

import pandas as pd

from stockdesk.data_engineering.application import GetMarketFramesUseCase, ListSecuritiesUseCase
from stockdesk.evaluation.domain.ports import SecurityInfo

BAR_COLUMNS = ["symbol", "trade_date", "open", "close", "pre_close", "volume", "adj_factor"]
LAST_DAY = date(2100, 1, 1)
LOOK_BACK = timedelta(days=10)  # the day before the window: a pre_close fallback for its first day


class EvaluationMarket:
    def __init__(self, securities: ListSecuritiesUseCase, frames: GetMarketFramesUseCase):
        self._securities = securities
        self._frames = frames

    def securities(self, symbols: Sequence[str]) -> dict[str, SecurityInfo]:
        """The stored ones among `symbols` (unknown symbols are left out)."""
        wanted = set(symbols)
        return {
            s.symbol: SecurityInfo(symbol=s.symbol, name=s.name, market=s.market)
            for s in self._securities.execute()
            if s.symbol in wanted
        }

    def bars(self, symbols: Sequence[str], start: date, end: date | None) -> pd.DataFrame:
        """Long frame: symbol, trade_date, open, close, pre_close, volume, adj_factor (raw prices);
        `end` None: everything stored (forward returns need the days after the last verdict)."""
        frame = self._frames.bars(list(symbols), start - LOOK_BACK, end or LAST_DAY)
        return frame.reindex(columns=BAR_COLUMNS)

    def bars_fingerprint(self, symbols: Sequence[str], start: date, end: date | None) -> str:
        """A digest of the bars `bars(symbols, start, end)` reads: equal while none of them changed."""
        return self._frames.bars_fingerprint(list(symbols), start - LOOK_BACK, end)
