"""Ports of the rules signals in batch: many dates of one symbol from history loaded once.

Walk-forward evaluation asks for the code-only signals of thousands of (symbol, date) points; the
snapshot path reads the store and builds a full snapshot per point. The batch path loads each
symbol's history once and computes, per date, only the fields the code signals read, with the
builders' own functions, from exactly the rows the snapshot path would read on that date.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

import pandas as pd


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


class IRulesHistoryPort(ABC):
    @abstractmethod
    def load(self, symbols: Sequence[str], start: date, end: date) -> dict[str, SymbolHistory]:
        """History of the stored symbols among `symbols`, from before `start` (the snapshot
        windows' look-back) up to `end`; unknown symbols are left out."""
