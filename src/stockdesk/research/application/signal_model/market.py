"""What the signal model reads at analysis time: the symbol's market peers and their bars by a date.

Both over data_engineering's application interface (the securities list, the bulk bar frames).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import pandas as pd

from stockdesk.data_engineering.application import GetMarketFramesUseCase, ListSecuritiesUseCase

BAR_COLUMNS = ["symbol", "trade_date", "open", "close", "pre_close", "volume", "adj_factor"]


@dataclass(frozen=True)
class Peer:
    symbol: str
    name: str | None
    market: str


class ModelMarket:
    def __init__(self, securities: ListSecuritiesUseCase, frames: GetMarketFramesUseCase):
        self._securities = securities
        self._frames = frames

    def peers(self, symbol: str) -> list[Peer]:
        """Every stored symbol of `symbol`'s market, itself included (empty: not stored)."""
        stored = self._securities.execute()
        own = next((s for s in stored if s.symbol == symbol), None)
        if own is None:
            return []
        return [Peer(s.symbol, s.name, s.market) for s in stored if s.market == own.market]

    def bars(self, symbols: Sequence[str], start: date, end: date) -> pd.DataFrame:
        """Long raw bars (symbol, trade_date, open, close, pre_close, volume, adj_factor) in [start, end]."""
        return self._frames.bars(list(symbols), start, end).reindex(columns=BAR_COLUMNS)
