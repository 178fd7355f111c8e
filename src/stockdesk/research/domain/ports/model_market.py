"""Port of the signal model at analysis time: the symbol's market peers and their bars by a date."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

import pandas as pd


@dataclass(frozen=True)
class Peer:
    symbol: str
    name: str | None
    market: str


class IModelMarketPort(Protocol):
    def peers(self, symbol: str) -> list[Peer]:
        """Every stored symbol of `symbol`'s market, itself included (empty: not stored)."""
        ...

    def bars(self, symbols: Sequence[str], start: date, end: date) -> pd.DataFrame:
        """Long raw bars (symbol, trade_date, open, close, pre_close, volume, adj_factor) in [start, end]."""
        ...
